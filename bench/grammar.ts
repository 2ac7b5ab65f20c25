// Figures for the query grammar: how many list queries per second it parses, serializes and evaluates.
// Printed, never asserted (tests stay free of timing). Run: npm run bench:grammar
import { performance } from 'node:perf_hooks';
import { compareBySort, matchesFilters, parseListQuery, serializeListQuery } from '../src/grammar/index.ts';
import { loadSpec } from '../src/spec/index.ts';

const spec = loadSpec();
const list = spec.operation('listCases').list!;
const query =
  'page[number]=3&page[size]=50&sort=status,-createdAt&filter[status]=10&filter[priority][in]=1,2&filter[incident][notNull]' +
  '&filter[createdAt][between]=2026-01-01,2026-12-31T23:59:59Z&filter[shortDescription][like]=*rinter*&filter[contact][match]=%40customer%5C.example%24';
const parsed = parseListQuery(query, list, spec.operators);
if (parsed.errors.length) throw new Error(JSON.stringify(parsed.errors));

const items = Array.from({ length: 10_000 }, (_, i) => ({
  id: `CS${String(i).padStart(7, '0')}`,
  status: [1, 10, 18, 6, 3][i % 5],
  priority: (i % 4) + 1,
  incident: i % 3 ? `INC${i}` : null,
  shortDescription: i % 2 ? `Printer ${i} prints blank pages` : `VPN drops ${i}`,
  contact: i % 7 ? 'ana.silva@customer.example' : null,
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
}));

function measure(label: string, iterations: number, run: () => void): void {
  for (let i = 0; i < Math.min(iterations, 1000); i++) run(); // warm up
  const start = performance.now();
  for (let i = 0; i < iterations; i++) run();
  const ms = performance.now() - start;
  console.log(`${label.padEnd(48)} ${Math.round((iterations / ms) * 1000).toLocaleString('en').padStart(12)} /s  ${((ms * 1000) / iterations).toFixed(2).padStart(8)} µs each`);
}

console.log(`Node ${process.version}; query of ${query.length} characters with 6 filters and 2 sort keys`);
measure('parseListQuery', 20_000, () => parseListQuery(query, list, spec.operators));
measure('serializeListQuery', 50_000, () =>
  serializeListQuery({ page: { number: 3, size: 50 }, sort: ['status', '-createdAt'], filter: { status: 10, priority: { in: [1, 2] }, incident: { notNull: true }, createdAt: { between: ['2026-01-01', new Date(0)] } } }, spec.operators));
measure('matchesFilters (6 clauses), per item', 200_000, () => matchesFilters(items[Math.floor(Math.random() * items.length)], parsed.query.filters, spec.operators));
const sortStart = performance.now();
const sorted = [...items].sort((a, b) => compareBySort(a, b, parsed.query.sort));
console.log(`${'sort 10,000 items by status,-createdAt'.padEnd(48)} ${(performance.now() - sortStart).toFixed(1).padStart(12)} ms (first ${sorted[0].id})`);
