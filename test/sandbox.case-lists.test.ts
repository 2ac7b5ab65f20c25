// `--case-lists sql` (D-84): the SQL path alone answers exactly what the column engine answers, over HTTP, on the
// same seeded data (both seeds draw the same cases), for a spread of filters, sorts and pages.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';

let engine: Harness;
let sqlOnly: Harness;
beforeAll(async () => {
  [engine, sqlOnly] = await Promise.all([startHarness({ seedCases: 120 }), startHarness({ seedCases: 120, caseLists: 'sql' })]);
  await Promise.all([engine.sandbox.svc.store.whenListsReady(), sqlOnly.sandbox.svc.store.whenListsReady()]);
});
afterAll(() => Promise.all([engine?.close(), sqlOnly?.close()]));

const queries = [
  'page[size]=7&page[number]=3&sort=-createdAt',
  'filter[status][in]=1,2&sort=priority,-createdAt&page[size]=10',
  'filter[shortDescription][contains]=a&sort=shortDescription&page[size]=5&page[number]=2',
  'filter[priority][ge]=2&filter[incident][null]&sort=-priority,id',
  'filter[shortDescription][like]=*e*&filter[status][ne]=10&page[size]=200',
];

it.each(queries)('answers the same items and totalCount with --case-lists sql: %s', async (query) => {
  for (const who of ['customer', 'partner'] as const) {
    const [a, b] = await Promise.all([engine.call('sandbox', who, 'GET', `/cases?${query}`), sqlOnly.call('sandbox', who, 'GET', `/cases?${query}`)]);
    expect(a.status, a.text).toBe(200);
    expect(b.json.meta.page).toEqual(a.json.meta.page);
    // the ids in order: the two seeds share data but not the clock their timestamps were written with
    expect(b.json.data.map((c: { id: string }) => c.id)).toEqual(a.json.data.map((c: { id: string }) => c.id));
    expect(a.json.data.length).toBeGreaterThan(0);
  }
});
