// Datetime filter bounds finer than a millisecond (decision D-71): stored datetimes are whole milliseconds (D-39), so a
// bound between two milliseconds is compared exactly, never truncated to the millisecond below it.
import { describe, expect, it } from 'vitest';
import { matchesFilters, parseListQuery } from '../src/grammar/index.ts';
import { loadSpec } from '../src/spec/index.ts';

const spec = loadSpec();
const casesList = spec.operation('listCases').list!;

const items = [
  { id: 'A', createdAt: '2026-01-01T00:00:00.000Z' },
  { id: 'B', createdAt: '2026-01-01T00:00:00.001Z' },
  { id: 'C', createdAt: '2026-01-01T00:00:00.002Z' },
];
const HALF = '2026-01-01T00:00:00.000500Z'; // between A and B
const ids = (query: string) => {
  const parsed = parseListQuery(query, casesList, spec.operators);
  expect(parsed.errors, query).toEqual([]);
  return items.filter((item) => matchesFilters(item, parsed.query.filters, spec.operators)).map((item) => item.id);
};

describe('a sub-millisecond bound is exact (D-71)', () => {
  it.each([
    [`lt]=${HALF}`, ['A']],
    [`le]=${HALF}`, ['A']],
    [`gt]=${HALF}`, ['B', 'C']],
    [`ge]=${HALF}`, ['B', 'C']],
    [`eq]=${HALF}`, []],
    [`ne]=${HALF}`, ['A', 'B', 'C']],
    [`in]=${HALF},2026-01-01T00:00:00.002Z`, ['C']],
    [`notIn]=${HALF},2026-01-01T00:00:00.002Z`, ['A', 'B']],
    [`between]=${HALF},2026-01-01T00:00:00.0015`, ['B']],
    [`notBetween]=${HALF},2026-01-01T00:00:00.0015`, ['A', 'C']],
    [`between]=2026-01-01T00:00:00.0011,2026-01-01T00:00:00.0019`, []],
    ['lt]=1767225600.0005', ['A']], // Unix seconds as text
    ['ge]=1767225600.0005', ['B', 'C']],
    ['le]=2026-01-01T00:00:00.000999', ['A']],
    ['gt]=2026-01-01T00:00:00.001000', ['C']], // zeros beyond the millisecond: an exact millisecond
    ['eq]=2026-01-01T00:00:00.001000', ['B']],
  ])('filter[createdAt][%s', (query, expected) => {
    expect(ids(`filter[createdAt][${query}`)).toEqual(expected);
  });
});
