// The SQL of the storage module agrees with the grammar's evaluator (decision D-22) and comparator (D-28): every
// operator on every field type of cases and comments, on data with nulls, empty values and awkward unicode.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareBySort, matchesFilters } from '../src/grammar/evaluate.ts';
import { parseListQuery } from '../src/grammar/parse.ts';
import { openSqliteStorage } from '../src/sandbox/store/sqlite.ts';
import type { Resource, Storage } from '../src/sandbox/store/types.ts';
import type { ListSpec, ValueType } from '../src/spec/types.ts';
import { spec } from './helpers/sandbox.ts';

const WORDS = ['Printer', 'printer', 'VPN', '', 'nul\u0000byte', '\u0000', 'a*b', 'x?y', '[brackets]', 'Zürich', '𝔘nicode', '😀 emoji', 'e\u0301', 'tail e', 'comma,inside', 'back\\slash'];
const EMAILS = ['ana.silva@customer.example', 'jonas.berg@partner.example', 'li.wei@customer.example'];
const INSTANTS = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.001Z', '2026-03-15T12:30:00.000Z', '2025-12-31T23:59:59.999Z', '2026-06-01T00:00:00.000Z'];

let store: Storage;
/** The same data in a storage whose case lists come from the in-memory column engine (D-84); `store` is SQL only. */
let memoryStore: Storage;
const items: Record<'cases' | 'comments', Record<string, any>[]> = { cases: [], comments: [] };

function caseRecords(): Record<string, any>[] {
  const word = fc.constantFrom(...WORDS);
  const text = fc.oneof(word, fc.tuple(word, word).map(([a, b]) => `${a} ${b}`), fc.string({ unit: 'binary', maxLength: 6 }));
  const instant = fc.constantFrom(...INSTANTS);
  const record = fc.record({
    contract: fc.option(fc.constantFrom('CT0000101', 'CT0000102', 'Printer'), { nil: null }),
    shortDescription: text,
    description: fc.option(text, { nil: null }),
    status: fc.constantFrom(1, 10, 18, 6, 3),
    priority: fc.constantFrom(1, 2, 3, 4),
    contact: fc.option(fc.constantFrom(...EMAILS), { nil: null }),
    watchList: fc.subarray(EMAILS),
    incident: fc.option(fc.constantFrom('INC1', 'INC2', 'Printer', ''), { nil: null }),
    createdAt: instant,
    updatedAt: instant,
  });
  return fc.sample(record, { numRuns: 160, seed: 42 }).map((r, i) => ({ id: `CS${String(10001 + i).padStart(7, '0')}`, ...r, created: r.createdAt }));
}

function commentRecords(): Record<string, any>[] {
  const record = fc.record({
    text: fc.constantFrom(...WORDS.filter(Boolean)),
    contact: fc.constantFrom(...EMAILS),
    partnerComment: fc.boolean(),
    createdAt: fc.constantFrom(...INSTANTS),
  });
  return fc.sample(record, { numRuns: 60, seed: 7 }).map((r, i) => ({ id: `CC${String(20001 + i).padStart(7, '0')}`, case: 'CS0010001', ...r }));
}

beforeAll(() => {
  store = openSqliteStorage(spec, { file: ':memory:', caseLists: 'sql' });
  memoryStore = openSqliteStorage(spec, { file: ':memory:', caseLists: 'memory-only' });
  items.cases = caseRecords();
  items.comments = commentRecords();
  for (const s of [store, memoryStore]) {
    for (const record of items.cases) s.insert('cases', 'sandbox', record, { customerOrg: 'ORG1' });
    for (const record of items.comments) s.insert('comments', 'sandbox', record, { contract: null });
  }
});
afterAll(() => {
  store?.close();
  memoryStore?.close();
});

function listSpecOf(operationId: string): ListSpec {
  return spec.operation(operationId).list!;
}

/** Values worth trying for a field of a type: taken from the data, plus edge values. */
function candidates(type: ValueType, field: string, data: Record<string, any>[]): string[] {
  const present = [...new Set(data.map((d) => d[field]).filter((v) => v !== null && v !== undefined))];
  switch (type) {
    case 'integer':
      return ['1', '3', '10', '0', '18'];
    case 'boolean':
      return ['true', 'false', '1', 'no'];
    case 'datetime':
      return ['2026-01-01', '2026-01-01T00:00:00.001Z', '2026-03-15T13:30:00+01:00', '1767225600', ...present.slice(0, 2).map(String)];
    case 'stringArray':
      return [...EMAILS, 'nobody@x.example'];
    default:
      return [...new Set(['', 'Printer', 'e', '*', 'P*r', '?rinter', '[brackets]', '😀', 'Zürich', '\u0000', 'byte', 'nul\u0000b', 'nul*', '*rin*', '*\u0000*', 'Pri*er', '*e*', 'tail*e', 'Printer*r', '*', ...present.slice(0, 4).map(String)])];
  }
}

const REGEXES = ['^P', 'e$', '[0-9]', '\\p{L}{3}', '😀', '^$', '.'];

function valuesFor(operator: string, arity: string, type: ValueType, field: string, list: ListSpec, data: Record<string, any>[]): Array<string | null> {
  const base = candidates(type, field, data);
  const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/,/g, '\\,');
  switch (arity) {
    case 'none':
      return [null];
    case 'field':
      return Object.values(list.filterFields).filter((f) => f.type === type).map((f) => f.name);
    case 'list':
      return [base.slice(0, 2).map(esc).join(','), base.slice(1, 4).map(esc).join(','), esc(base[0])];
    case 'pair':
      return [`${esc(base[0])},${esc(base[1])}`, `${esc(base[1])},${esc(base[0])}`, `${esc(base[2] ?? base[0])},${esc(base[base.length - 1])}`];
    default:
      return operator === 'match' || operator === 'notMatch' ? REGEXES : base;
  }
}

function compare(resource: Resource, operationId: string, data: Record<string, any>[], scope: { by: 'customerOrg' | 'case' | 'contract'; values: string[] }, store: Storage) {
  const list = listSpecOf(operationId);
  let checked = 0;
  for (const field of Object.values(list.filterFields)) {
    for (const operator of field.operators) {
      const op = spec.operators[operator];
      for (const value of valuesFor(operator, op.arity, field.type, field.name, list, data)) {
        const key = `filter[${field.name}][${operator}]`;
        const query = value === null ? `${encodeURIComponent(key)}&page[size]=200` : `${encodeURIComponent(key)}=${encodeURIComponent(value)}&page[size]=200`;
        const parsed = parseListQuery(query, list, spec.operators);
        if (parsed.errors.length > 0) continue; // a value the grammar refuses never reaches SQL
        const inScope = (item: Record<string, any>) => scope.by !== 'contract' || scope.values.includes(item.contract);
        const expected = data.filter((item) => inScope(item) && matchesFilters(item, parsed.query.filters, spec.operators)).map((d) => d.id);
        // a one-item page first makes the storage count (for cases on status/priority: from the maintained
        // aggregate); the full page after it may take the cached count
        const counted = store.list(resource, 'sandbox', scope, { ...parsed.query, page: { number: 1, size: 1 } });
        expect(counted.totalCount, `${operationId} ${query} counted`).toBe(expected.length);
        const got = store.list(resource, 'sandbox', scope, parsed.query);
        expect(got.items.map((d) => d.id), `${operationId} ${query}`).toEqual(expected);
        expect(got.totalCount, `${operationId} ${query} totalCount`).toBe(expected.length);
        checked++;
      }
    }
  }
  return checked;
}

describe('SQL filters = grammar evaluator', () => {
  it('agrees on cases: every operator of string, integer, datetime and stringArray fields', () => {
    const checked = compare('cases', 'listCases', items.cases, { by: 'customerOrg', values: ['ORG1'] }, store);
    expect(checked).toBeGreaterThan(300);
  });

  it('agrees on cases in a partner scope (contract IN ...): counts from the maintained groups and their complements', () => {
    // cases without a contract are outside every contract scope: a complement count must not include them (D-49)
    const checked = compare('cases', 'listCases', items.cases, { by: 'contract', values: ['CT0000101', 'Printer'] }, store);
    expect(checked).toBeGreaterThan(300);
  });

  it('agrees on comments: boolean fields', () => {
    const checked = compare('comments', 'listCaseComments', items.comments, { by: 'case', values: ['CS0010001'] }, store);
    expect(checked).toBeGreaterThan(50);
  });
});

describe('memory column engine filters = grammar evaluator (D-84)', () => {
  it('agrees on cases in a customer scope: every operator of every field type', () => {
    const checked = compare('cases', 'listCases', items.cases, { by: 'customerOrg', values: ['ORG1'] }, memoryStore);
    expect(checked).toBeGreaterThan(300);
  });

  it('agrees on cases in a partner scope (contract IN ...)', () => {
    const checked = compare('cases', 'listCases', items.cases, { by: 'contract', values: ['CT0000101', 'Printer'] }, memoryStore);
    expect(checked).toBeGreaterThan(300);
  });

  it('covers every operator on every value type declared', () => {
    const covered = new Set<string>();
    for (const opId of ['listCases', 'listCaseComments']) {
      for (const f of Object.values(listSpecOf(opId).filterFields)) for (const o of f.operators) covered.add(`${f.type}:${o}`);
    }
    for (const type of ['string', 'integer', 'datetime', 'boolean', 'stringArray']) {
      expect([...covered].some((c) => c.startsWith(type + ':')), type).toBe(true);
    }
  });
});

describe.each([
  ['SQL', () => store],
  ['memory column engine', () => memoryStore],
])('%s order and pages = grammar comparator', (_name, storeOf) => {
  let store: Storage;
  beforeAll(() => {
    store = storeOf();
  });

  it('sorts and pages like compareBySort for random sort keys', () => {
    const list = listSpecOf('listCases');
    const sortArb = fc.uniqueArray(fc.constantFrom(...list.sortFields), { minLength: 1, maxLength: 3 }).chain((fields) =>
      fc.tuple(fc.constant(fields), fc.array(fc.boolean(), { minLength: fields.length, maxLength: fields.length })),
    );
    fc.assert(
      fc.property(sortArb, ([fields, desc]) => {
        const sortText = fields.map((f, i) => (desc[i] ? '-' : '') + f).join(',');
        const parsed = parseListQuery(`sort=${sortText}&page[size]=200`, list, spec.operators);
        expect(parsed.errors).toEqual([]);
        const expected = [...items.cases].sort((a, b) => compareBySort(a, b, parsed.query.sort)).map((d) => d.id);
        const got = store.list('cases', 'sandbox', { by: 'customerOrg', values: ['ORG1'] }, parsed.query).items.map((d) => d.id);
        expect(got, sortText).toEqual(expected);
      }),
      { numRuns: 60, seed: 3 },
    );
  });

  it('pages partition the result and totalCount is exact on every page', () => {
    const list = listSpecOf('listCases');
    const parsed = parseListQuery('filter[status][in]=1,10,18&sort=-createdAt&page[size]=7', list, spec.operators);
    const expected = items.cases.filter((i) => [1, 10, 18].includes(i.status)).sort((a, b) => compareBySort(a, b, parsed.query.sort)).map((d) => d.id);
    const seen: string[] = [];
    for (let number = 1; number <= Math.ceil(expected.length / 7) + 1; number++) {
      const page = store.list('cases', 'sandbox', { by: 'customerOrg', values: ['ORG1'] }, { ...parsed.query, page: { number, size: 7 } });
      expect(page.totalCount).toBe(expected.length);
      seen.push(...page.items.map((d) => d.id));
    }
    expect(seen).toEqual(expected);
  });

  it('keeps totalCount exact after writes', () => {
    const list = listSpecOf('listCases');
    const parsed = parseListQuery('filter[status]=10&page[size]=1', list, spec.operators);
    const scope = { by: 'customerOrg' as const, values: ['ORG2'] };
    const count = () => store.list('cases', 'sandbox', scope, parsed.query).totalCount;
    expect(count()).toBe(0);
    const base = { contract: null, shortDescription: 'x', description: null, priority: 3, contact: null, watchList: [], incident: null, createdAt: INSTANTS[0], created: INSTANTS[0], updatedAt: INSTANTS[0] };
    store.insert('cases', 'sandbox', { ...base, id: 'CS9000001', status: 10 }, { customerOrg: 'ORG2' });
    store.insert('cases', 'sandbox', { ...base, id: 'CS9000002', status: 10 }, { customerOrg: 'ORG2' });
    expect(count()).toBe(2);
    store.update('cases', 'sandbox', 'CS9000001', { status: 3 });
    expect(count()).toBe(1);
    store.remove('cases', 'sandbox', 'CS9000002');
    expect(count()).toBe(0);
  });
});
