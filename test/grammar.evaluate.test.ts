// Evaluation semantics (decision D-22) and sort order (D-28): literal queries against hand-made items.
import { describe, expect, it } from 'vitest';
import { compareBySort, compareCodePoints, matchesFilters, parseListQuery } from '../src/grammar/index.ts';
import type { FilterClause } from '../src/grammar/index.ts';
import { loadSpec } from '../src/spec/index.ts';

const spec = loadSpec();
const casesList = spec.operation('listCases').list!;
const commentsList = spec.operation('listCaseComments').list!;

type Item = Record<string, unknown>;
const cases: Item[] = [
  {
    id: 'C1', contract: 'CT1', shortDescription: 'Printer jams', description: '', status: 10, priority: 1, contact: 'ana@c.example',
    watchList: ['ana@c.example', 'jo@p.example'], incident: 'INC1', createdAt: '2026-01-01T00:00:00.000Z', created: '2026-01-01T00:00:00.000Z',
  },
  {
    id: 'C2', contract: null, shortDescription: 'printer offline', description: null, status: 1, priority: 2, contact: null,
    watchList: [], incident: null, createdAt: '2026-01-15T12:00:00.000Z', created: '2026-01-15T12:00:00.000Z',
  },
  {
    id: 'C3', contract: 'CT2', shortDescription: '😀 Ünïcode case', description: 'a,b\\c', status: 3, priority: 3, contact: 'jo@p.example',
    watchList: ['jo@p.example'], incident: 'INC3', createdAt: '2026-02-01T00:00:00.000Z', created: '2026-01-31T00:00:00.000Z',
  },
  {
    // no `contract` and no `watchList` keys; createdAt written with an offset: the same instant as C1
    id: 'C4', shortDescription: '\uFFFF high BMP', description: 'x', status: 10, priority: 4, contact: 'ana@c.example',
    incident: '', createdAt: '2026-01-01T01:00:00.000+01:00', created: '2026-01-01T00:00:00.000Z',
  },
  { id: 'C5', shortDescription: null, status: null, priority: null, contact: null, watchList: null, createdAt: null, created: null },
];

function clauses(query: string, list = casesList): FilterClause[] {
  const parsed = parseListQuery(query, list, spec.operators);
  expect(parsed.errors, query).toEqual([]);
  return parsed.query.filters;
}
const ids = (query: string, items = cases, list = casesList) =>
  items.filter((item) => matchesFilters(item, clauses(query, list), spec.operators)).map((item) => item.id);

describe('filters', () => {
  it.each([
    // eq / ne by type; ne is the complement, so null satisfies it
    ['filter[status]=10', ['C1', 'C4']],
    ['filter[status][ne]=10', ['C2', 'C3', 'C5']],
    ['filter[contract]=CT1', ['C1']],
    ['filter[contract][ne]=CT1', ['C2', 'C3', 'C4', 'C5']],
    ['filter[createdAt]=2026-01-01T00:00:00Z', ['C1', 'C4']], // datetimes by instant
    ['filter[createdAt][eq]=2026-01-01T01:00:00%2B01:00', ['C1', 'C4']],
    ['filter[createdAt][ne]=2026-01-01', ['C2', 'C3', 'C5']],
    // lt le gt ge: false on null; strings by code point (U+1F600 sorts after U+FFFF, unlike UTF-16 units)
    ['filter[priority][lt]=3', ['C1', 'C2']],
    ['filter[priority][le]=3', ['C1', 'C2', 'C3']],
    ['filter[priority][gt]=3', ['C4']],
    ['filter[priority][ge]=3', ['C3', 'C4']],
    ['filter[shortDescription][gt]=%EF%BF%BF', ['C3', 'C4']],
    ['filter[shortDescription][lt]=%EF%BF%BF', ['C1', 'C2']],
    ['filter[shortDescription][ge]=printer', ['C2', 'C3', 'C4']],
    ['filter[shortDescription][le]=Printer+jams', ['C1']],
    ['filter[createdAt][lt]=2026-01-15T12:00:00Z', ['C1', 'C4']],
    ['filter[createdAt][ge]=2026-01-15T13:00:00%2B01:00', ['C2', 'C3']],
    // contains: substring, case-sensitive; an element equal to the value for arrays
    ['filter[shortDescription][contains]=rinter', ['C1', 'C2']],
    ['filter[shortDescription][contains]=Printer', ['C1']],
    ['filter[shortDescription][notContains]=Printer', ['C2', 'C3', 'C4', 'C5']],
    ['filter[shortDescription][contains]=', ['C1', 'C2', 'C3', 'C4']],
    ['filter[watchList][contains]=jo@p.example', ['C1', 'C3']],
    ['filter[watchList][contains]=jo@p', []],
    ['filter[watchList][notContains]=jo@p.example', ['C2', 'C4', 'C5']],
    // like: whole value, * any run (also empty), ? exactly one code point, the rest literal
    ['filter[shortDescription][like]=Printer*', ['C1']],
    ['filter[shortDescription][like]=*rinter*', ['C1', 'C2']],
    ['filter[shortDescription][like]=printer+???????', ['C2']],
    ['filter[shortDescription][like]=printer+??????', []],
    ['filter[shortDescription][like]=%3F%3F%C3%9Cn%C3%AFcode+case', ['C3']],
    ['filter[shortDescription][like]=Printer+jams*', ['C1']],
    ['filter[shortDescription][like]=printer', []],
    ['filter[shortDescription][like]=*', ['C1', 'C2', 'C3', 'C4']],
    ['filter[description][like]=a,b%5Cc', ['C3']],
    ['filter[description][like]=.', []],
    ['filter[shortDescription][notLike]=*rinter*', ['C3', 'C4', 'C5']],
    // match: RE2 syntax (D-68), unanchored, on code points
    ['filter[shortDescription][match]=%5E%5BPp%5Drinter', ['C1', 'C2']],
    ['filter[shortDescription][match]=jams', ['C1']],
    ['filter[shortDescription][match]=%5Cp%7BEmoji_Presentation%7D', ['C3']],
    ['filter[shortDescription][match]=%5E.+%C3%9C', ['C3']], // . is one code point in Unicode mode
    ['filter[shortDescription][notMatch]=%5E%5BPp%5D', ['C3', 'C4', 'C5']],
    // startswith / endswith, case-sensitive
    ['filter[shortDescription][startswith]=print', ['C2']],
    ['filter[shortDescription][notStartswith]=print', ['C1', 'C3', 'C4', 'C5']],
    ['filter[shortDescription][endswith]=case', ['C3']],
    ['filter[shortDescription][notEndswith]=case', ['C1', 'C2', 'C4', 'C5']],
    // sameas: equal to another field's value (datetimes by instant), null equals null
    ['filter[createdAt][sameas]=created', ['C1', 'C2', 'C4', 'C5']],
    ['filter[createdAt][notSameas]=created', ['C3']],
    ['filter[contract][sameas]=incident', ['C2', 'C5']],
    ['filter[contact][sameas]=contact', ['C1', 'C2', 'C3', 'C4', 'C5']],
    // in / notIn
    ['filter[priority][in]=1,3', ['C1', 'C3']],
    ['filter[priority][notIn]=1,3', ['C2', 'C4', 'C5']],
    ['filter[contract][in]=CT2,CT9', ['C3']],
    ['filter[createdAt][in]=2026-02-01,2026-01-01', ['C1', 'C3', 'C4']],
    // between / notBetween: inclusive; lo > hi matches nothing
    ['filter[priority][between]=2,3', ['C2', 'C3']],
    ['filter[priority][notBetween]=2,3', ['C1', 'C4', 'C5']],
    ['filter[priority][between]=3,1', []],
    ['filter[priority][notBetween]=3,1', ['C1', 'C2', 'C3', 'C4', 'C5']],
    ['filter[createdAt][between]=2026-01-01,2026-01-15T12:00:00Z', ['C1', 'C2', 'C4']],
    ['filter[shortDescription][between]=a,q', ['C2']],
    // empty: null, absent, "" or []; null: null or absent; exists: the key is present
    ['filter[watchList][empty]', ['C2', 'C4', 'C5']],
    ['filter[watchList][notEmpty]', ['C1', 'C3']],
    ['filter[incident][empty]', ['C2', 'C4', 'C5']],
    ['filter[incident][notEmpty]', ['C1', 'C3']],
    ['filter[incident][null]', ['C2', 'C5']],
    ['filter[incident][notNull]', ['C1', 'C3', 'C4']],
    ['filter[contract][exists]', ['C1', 'C2', 'C3']],
    ['filter[contract][notExists]', ['C4', 'C5']],
    ['filter[contract][null]', ['C2', 'C4', 'C5']],
    // several filters all apply
    ['filter[status]=10&filter[priority][gt]=1', ['C4']],
    ['filter[priority][ge]=1&filter[priority][le]=3&filter[watchList][notEmpty]', ['C1', 'C3']],
    ['', ['C1', 'C2', 'C3', 'C4', 'C5']],
  ] as Array<[string, string[]]>)('%s', (query, expected) => {
    expect(ids(query)).toEqual(expected);
  });

  it('booleans', () => {
    const comments: Item[] = [
      { id: 'K1', partnerComment: true, text: 'a' },
      { id: 'K2', partnerComment: false, text: 'b' },
      { id: 'K3', partnerComment: null, text: 'c' },
    ];
    expect(ids('filter[partnerComment]=true', comments, commentsList)).toEqual(['K1']);
    expect(ids('filter[partnerComment][eq]=no', comments, commentsList)).toEqual(['K2']);
    expect(ids('filter[partnerComment][ne]=true', comments, commentsList)).toEqual(['K2', 'K3']);
    expect(ids('filter[partnerComment][null]', comments, commentsList)).toEqual(['K3']);
    expect(ids('filter[partnerComment][sameas]=partnerComment', comments, commentsList)).toEqual(['K1', 'K2', 'K3']);
  });

  it('a value of the wrong type satisfies no positive operator (so a wrong server answer is caught)', () => {
    const wrong: Item[] = [{ id: 'W1', status: '10', createdAt: 'soon', priority: 1.5 }];
    expect(ids('filter[status]=10', wrong)).toEqual([]);
    expect(ids('filter[status][ne]=10', wrong)).toEqual(['W1']);
    expect(ids('filter[createdAt][ge]=2020-01-01', wrong)).toEqual([]);
    expect(ids('filter[priority][between]=1,2', wrong)).toEqual(['W1']); // still a number in range
  });

  it('works without the description too (negations by name)', () => {
    const [clause] = clauses('filter[incident][notNull]');
    expect(cases.filter((item) => matchesFilters(item, [clause])).map((item) => item.id)).toEqual(['C1', 'C3', 'C4']);
    expect(() => matchesFilters(cases[0], [{ field: 'status', operator: 'approx', type: 'integer', values: [1] }])).toThrow(/approx/);
  });
});

describe('sort', () => {
  const sorted = (sortParam: string, items = cases) => {
    const parsed = parseListQuery(`sort=${sortParam}`, casesList, spec.operators);
    expect(parsed.errors).toEqual([]);
    return [...items].sort((a, b) => compareBySort(a, b, parsed.query.sort)).map((item) => item.id);
  };

  it('null first ascending, last descending; ties broken by id ascending', () => {
    expect(sorted('status')).toEqual(['C5', 'C2', 'C3', 'C1', 'C4']);
    expect(sorted('-status')).toEqual(['C1', 'C4', 'C3', 'C2', 'C5']);
    expect(sorted('-id')).toEqual(['C5', 'C4', 'C3', 'C2', 'C1']);
  });

  it('datetimes by instant, strings by code point', () => {
    expect(sorted('createdAt')).toEqual(['C5', 'C1', 'C4', 'C2', 'C3']);
    expect(sorted('-createdAt')).toEqual(['C3', 'C2', 'C1', 'C4', 'C5']);
    expect(sorted('shortDescription')).toEqual(['C5', 'C1', 'C2', 'C4', 'C3']);
  });

  it('keys apply in the order listed', () => {
    expect(sorted('contact,-priority')).toEqual(['C2', 'C5', 'C4', 'C1', 'C3']);
    expect(sorted('-contact,priority')).toEqual(['C3', 'C1', 'C4', 'C5', 'C2']);
  });

  it('without keys the order is by id', () => {
    expect([...cases].reverse().sort((a, b) => compareBySort(a, b, [])).map((item) => item.id)).toEqual(['C1', 'C2', 'C3', 'C4', 'C5']);
  });

  it('compares strings by code point, not UTF-16 unit', () => {
    expect('\uFFFF' < '😀').toBe(false); // what JavaScript does
    expect(compareCodePoints('\uFFFF', '😀')).toBe(-1);
    expect(compareCodePoints('😀', '😁')).toBe(-1);
    expect(compareCodePoints('a😀', 'a😀b')).toBe(-1);
    expect(compareCodePoints('b', 'a😀')).toBe(1);
    expect(compareCodePoints('', '')).toBe(0);
  });
});

describe('sort of wrong data', () => {
  it('keeps a total order: typed values first by their order, then the others', () => {
    const items: Item[] = [
      { id: 'A', createdAt: 'soon' },
      { id: 'B', createdAt: '2026-01-02T00:00:00Z' },
      { id: 'C', createdAt: 5 },
      { id: 'D', createdAt: null },
      { id: 'E', createdAt: '2026-01-01T00:00:00Z' },
    ];
    const sort = [{ field: 'createdAt', descending: false, type: 'datetime' as const }];
    // 5 reads as Unix time (1970), a valid instant; 'soon' is not a datetime and sorts after all of them
    expect([...items].sort((a, b) => compareBySort(a, b, sort)).map((item) => item.id)).toEqual(['D', 'C', 'E', 'B', 'A']);
  });
});

describe('every operator on every value type (a value, a greater value, null, absent, and empty where it exists)', () => {
  type Matrix = { list: typeof casesList; field: string; items: Item[]; vectors: Record<string, [string, string[]]> };
  const matrices: Record<string, Matrix> = {
    string: {
      list: casesList, field: 'contact',
      items: [{ id: 'S1', contact: 'a', incident: 'a' }, { id: 'S2', contact: 'b', incident: 'x' }, { id: 'S3', contact: null, incident: null }, { id: 'S4' }, { id: 'S5', contact: '', incident: '' }],
      vectors: {
        empty: ['', ['S3', 'S4', 'S5']], notEmpty: ['', ['S1', 'S2']], null: ['', ['S3', 'S4']], notNull: ['', ['S1', 'S2', 'S5']],
        exists: ['', ['S1', 'S2', 'S3', 'S5']], notExists: ['', ['S4']], eq: ['a', ['S1']], ne: ['a', ['S2', 'S3', 'S4', 'S5']],
        lt: ['b', ['S1', 'S5']], le: ['b', ['S1', 'S2', 'S5']], gt: ['a', ['S2']], ge: ['a', ['S1', 'S2']],
        contains: ['a', ['S1']], notContains: ['a', ['S2', 'S3', 'S4', 'S5']], like: ['%3F', ['S1', 'S2']], notLike: ['%3F', ['S3', 'S4', 'S5']],
        match: ['%5E%24', ['S5']], notMatch: ['%5E%24', ['S1', 'S2', 'S3', 'S4']], startswith: ['b', ['S2']], notStartswith: ['b', ['S1', 'S3', 'S4', 'S5']],
        endswith: ['a', ['S1']], notEndswith: ['a', ['S2', 'S3', 'S4', 'S5']], sameas: ['incident', ['S1', 'S3', 'S4', 'S5']], notSameas: ['incident', ['S2']],
        in: ['a,b', ['S1', 'S2']], notIn: ['a,b', ['S3', 'S4', 'S5']], between: ['a,b', ['S1', 'S2']], notBetween: ['a,b', ['S3', 'S4', 'S5']],
      },
    },
    integer: {
      list: casesList, field: 'priority',
      items: [{ id: 'I1', priority: 1, status: 1 }, { id: 'I2', priority: 2, status: 3 }, { id: 'I3', priority: null, status: null }, { id: 'I4' }],
      vectors: {
        null: ['', ['I3', 'I4']], notNull: ['', ['I1', 'I2']], exists: ['', ['I1', 'I2', 'I3']], notExists: ['', ['I4']],
        eq: ['1', ['I1']], ne: ['1', ['I2', 'I3', 'I4']], lt: ['2', ['I1']], le: ['2', ['I1', 'I2']], gt: ['1', ['I2']], ge: ['2', ['I2']],
        sameas: ['status', ['I1', 'I3', 'I4']], notSameas: ['status', ['I2']], in: ['2,5', ['I2']], notIn: ['2,5', ['I1', 'I3', 'I4']],
        between: ['1,1', ['I1']], notBetween: ['1,1', ['I2', 'I3', 'I4']],
      },
    },
    datetime: {
      list: casesList, field: 'createdAt',
      items: [
        { id: 'D1', createdAt: '2026-01-01T00:00:00.000Z', created: '2026-01-01T01:00:00+01:00' },
        { id: 'D2', createdAt: '2026-06-01T00:00:00.000Z', created: '2026-01-01T00:00:00.000Z' },
        { id: 'D3', createdAt: null, created: null }, { id: 'D4' },
      ],
      vectors: {
        null: ['', ['D3', 'D4']], notNull: ['', ['D1', 'D2']], exists: ['', ['D1', 'D2', 'D3']], notExists: ['', ['D4']],
        eq: ['2026-01-01', ['D1']], ne: ['2026-01-01', ['D2', 'D3', 'D4']], lt: ['2026-06-01', ['D1']], le: ['2026-06-01', ['D1', 'D2']],
        gt: ['2026-01-01', ['D2']], ge: ['2026-06-01T02:00:00%2B02:00', ['D2']], sameas: ['created', ['D1', 'D3', 'D4']], notSameas: ['created', ['D2']],
        in: ['2026-06-01,2027-01-01', ['D2']], notIn: ['2026-06-01,2027-01-01', ['D1', 'D3', 'D4']],
        between: ['2025-12-31,2026-01-01', ['D1']], notBetween: ['2025-12-31,2026-01-01', ['D2', 'D3', 'D4']],
      },
    },
    stringArray: {
      list: casesList, field: 'watchList',
      items: [{ id: 'A1', watchList: ['a', 'b'] }, { id: 'A2', watchList: [] }, { id: 'A3', watchList: null }, { id: 'A4' }],
      vectors: {
        empty: ['', ['A2', 'A3', 'A4']], notEmpty: ['', ['A1']], null: ['', ['A3', 'A4']], notNull: ['', ['A1', 'A2']],
        exists: ['', ['A1', 'A2', 'A3']], notExists: ['', ['A4']], contains: ['a', ['A1']], notContains: ['a', ['A2', 'A3', 'A4']],
      },
    },
    boolean: {
      list: commentsList, field: 'partnerComment',
      items: [{ id: 'B1', partnerComment: true }, { id: 'B2', partnerComment: false }, { id: 'B3', partnerComment: null }, { id: 'B4' }],
      vectors: {
        null: ['', ['B3', 'B4']], notNull: ['', ['B1', 'B2']], exists: ['', ['B1', 'B2', 'B3']], notExists: ['', ['B4']],
        eq: ['t', ['B1']], ne: ['t', ['B2', 'B3', 'B4']], sameas: ['partnerComment', ['B1', 'B2', 'B3', 'B4']], notSameas: ['partnerComment', []],
      },
    },
  };

  it.each(Object.keys(matrices))('%s: a vector for every operator the declaration allows', (type) => {
    const { list, field, items, vectors } = matrices[type];
    expect(list.filterFields[field].type).toBe(type);
    expect(Object.keys(vectors).sort()).toEqual([...list.filterFields[field].operators].sort());
    for (const [operator, [raw, expected]] of Object.entries(vectors)) {
      const key = `filter[${field}][${operator}]`;
      expect(ids(spec.operators[operator].arity === 'none' ? key : `${key}=${raw}`, items, list), key).toEqual(expected);
    }
  });
});
