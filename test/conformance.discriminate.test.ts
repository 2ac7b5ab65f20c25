// The suite's judgement of whether data tells an operator apart from its neighbours (src/conformance/discriminate.ts).
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../src/spec/index.ts';
import { candidatesFor, chooseValues, discriminationSummary, neighboursOf } from '../src/conformance/discriminate.ts';
import { textVariants } from '../src/conformance/discriminating-fixtures.ts';

const spec = loadSpec();
const fields = spec.operation('listCases').list!.filterFields;
const text = fields.shortDescription;
const ops = spec.operators;
const items = (values: Array<string | null>) => values.map((v, i) => ({ id: `C${i}`, shortDescription: v }));
const verdict = (values: Array<string | null>, operator: string) =>
  chooseValues(items(values), text, operator, candidatesFor(items(values), text, ops[operator].arity, Object.values(fields)), ops);

describe('discrimination of filter operators by data', () => {
  it('names the neighbours the issue lists, and complements them for negative operators', () => {
    const names = (op: string) => neighboursOf(text, op, ops).map((n) => n.name);
    expect(names('startswith')).toEqual(expect.arrayContaining(['contains', 'endswith', 'like', 'match', 'startswith ignoring case']));
    expect(names('like')).toEqual(expect.arrayContaining(['like with * and ? taken literally', 'like with SQL % and _ as wildcards']));
    expect(names('lt')).toEqual(['le']);
    expect(names('between')).toEqual(['between without its ends']);
    expect(names('null')).toEqual(['empty', 'notExists']);
    expect(names('notStartswith')).toContain('not contains');
  });

  it('reports startswith as not told from contains for a prefix that occurs only at the start (issue 11)', () => {
    const data = items(['Printer jam', 'Printer toner']);
    expect(chooseValues(data, text, 'startswith', ['Printe'], ops).undiscriminated).toContain('contains');
    // Candidates drawn from the same data include an infix, which does tell them apart.
    expect(verdict(['Printer jam', 'Printer toner'], 'startswith').undiscriminated).not.toContain('contains');
  });

  it('tells every text operator apart on the fixture variants', () => {
    const values = textVariants('Fuser', true, true);
    for (const op of ['startswith', 'contains', 'endswith', 'like', 'match', 'notStartswith', 'notLike', 'eq']) {
      expect(verdict(values, op).undiscriminated, op).toEqual([]);
    }
  });

  it('tells lt from le and between from its exclusive reading only with a value on the bound', () => {
    const numbers = (vals: number[]) => vals.map((v, i) => ({ id: `C${i}`, priority: v }));
    const p = fields.priority;
    const on = numbers([1, 2, 3]);
    expect(chooseValues(on, p, 'lt', candidatesFor(on, p, 'single', Object.values(fields)), ops).undiscriminated).toEqual([]);
    expect(chooseValues(on, p, 'between', candidatesFor(on, p, 'pair', Object.values(fields)), ops).undiscriminated).toEqual([]);
    // Only values off every candidate bound: lt 2 and le 2 cannot differ when nothing equals 2.
    expect(chooseValues(on, p, 'lt', [2.5], ops).undiscriminated).toEqual(['le']);
  });

  it('counts discriminated and not discriminated results for the summary', () => {
    expect(discriminationSummary([
      { id: 'filters.discriminated[listCases:id.eq]', status: 'passed' },
      { id: 'filters.discriminated[listCases:id.lt]', status: 'skipped', reason: 'not discriminated: …' },
      { id: 'filters.operators[listCases]', status: 'passed' },
    ])).toEqual({ discriminated: 1, not: 1 });
  });
});
