// The one table of operator semantics (src/grammar/operators.ts) against the description: a row for every positive
// operator the description declares and for nothing else, every negative one resolved through its `negationOf`; and
// no module of the sandbox's storage keeps a list of operator names of its own (issue 39).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEMANTICS, semanticsOf, stringTest, likeAsTest } from '../src/grammar/operators.ts';
import { loadSpec } from '../src/spec/index.ts';

const spec = loadSpec();
const declared = Object.values(spec.operators);

describe('the table of operator semantics (src/grammar/operators.ts)', () => {
  it('has a row for each positive operator of the description, and no other', () => {
    const positives = declared.filter((o) => o.negationOf === null).map((o) => o.name).sort();
    expect(Object.keys(SEMANTICS).sort()).toEqual(positives);
  });

  it('answers every operator of the description: a negative one is its positive, negated', () => {
    for (const o of declared) {
      const r = semanticsOf(o.name, spec.operators);
      expect(r.negated, o.name).toBe(o.negationOf !== null);
      expect(r.positive, o.name).toBe(o.negationOf ?? o.name);
      expect(r.semantics, o.name).toBe(SEMANTICS[o.negationOf ?? o.name]);
    }
    expect(() => semanticsOf('nope', spec.operators)).toThrow(/No semantics/);
  });

  it('is true on null only for null, empty and exists (D-22)', () => {
    const trueOnNull = Object.entries(SEMANTICS).filter(([, s]) => s.trueOnNull).map(([name]) => name).sort();
    expect(trueOnNull).toEqual(['empty', 'exists', 'null']);
  });

  it('tests strings by code point and the text tests by code unit', () => {
    const test = (operator: string, values: string[], v: string) => stringTest(SEMANTICS[operator], values)!(v);
    expect(test('lt', ['\uFFFF'], '😀')).toBe(false); // U+1F600 is above U+FFFF though its first code unit is below
    expect(test('gt', ['\uFFFF'], '😀')).toBe(true);
    expect(test('between', ['a', 'c'], 'c')).toBe(true);
    expect(test('endswith', ['de'], 'abcde')).toBe(true);
    expect(test('like', ['a*e'], 'abcde')).toBe(true);
    expect(test('match', ['^b'], 'abc')).toBe(false);
    expect(stringTest(SEMANTICS.exists, [])).toBeUndefined();
    expect(likeAsTest('*x*')).toEqual({ test: 'contains', x: 'x' });
    expect(likeAsTest('a?')).toBeNull();
  });
});

describe('no second list of operators in the storage', () => {
  it('src/sandbox/store names no negative operator of the description', () => {
    const negatives = declared.filter((o) => o.negationOf !== null).map((o) => o.name);
    const root = join(import.meta.dirname, '../src/sandbox/store');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const name of negatives) if (text.includes(`'${name}'`)) found.push(`${file}: '${name}'`);
    }
    expect(found).toEqual([]);
  });
});
