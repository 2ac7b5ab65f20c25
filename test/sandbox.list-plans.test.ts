// The plan of representative case lists (issue 39, D-84): who answers (the page cache, the column engine, SQL and
// why) and, for the engine, how the clauses are answered, where the count comes from and how the page is made
// (src/sandbox/store/memory/plan.ts). The answers themselves are checked by the differential tests
// (test/sandbox.memory.test.ts and the others); these pin the paths, so a change that moves a class of queries to
// another path (a slower one, or SQL) fails a test that names the class. A deliberate move updates the table here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseListQuery } from '../src/grammar/parse.ts';
import { prng } from '../src/sandbox/seed.ts';
import { describePlan } from '../src/sandbox/store/memory/plan.ts';
import type { ListPlan } from '../src/sandbox/store/memory/plan.ts';
import type { PageWay } from '../src/sandbox/store/memory/page.ts';
import { openSqliteStorage } from '../src/sandbox/store/sqlite.ts';
import type { ListAnswer, Scope, Storage } from '../src/sandbox/store/types.ts';
import { spec, startHarness } from './helpers/sandbox.ts';

const list = spec.operation('listCases').list!;
const dir = mkdtempSync(join(tmpdir(), 'care-plans-'));
const file = join(dir, 'cases.db');
const CONTRACTS = ['CT0000101', 'CT0000102', 'CT0000103', null];
const customer: Scope = { by: 'customerOrg', values: ['ORG1'] };
const partner: Scope = { by: 'contract', values: ['CT0000101', 'CT0000103'] };

/** 8,000 cases, one a minute (ids, createdAt and updatedAt in the same order); ORG3's lie together. */
function seed(store: Storage): void {
  const random = prng(39);
  store.transaction(() => {
    for (let n = 0; n < 8000; n++) {
      const createdAt = new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
      const record = {
        id: `CS${String(1_000_000 + n).padStart(7, '0')}`,
        contract: CONTRACTS[n % 4],
        shortDescription: `Printer ${n % 97} on floor ${n % 13}`,
        description: n % 3 === 0 ? null : `desc ${n}`,
        status: [1, 3, 6, 10, 18][Math.floor(random() * 5)],
        priority: 1 + Math.floor(random() * 4),
        contact: null,
        watchList: [],
        incident: n % 2 ? null : `INC${n}`,
        createdAt,
        created: createdAt,
        updatedAt: createdAt,
      };
      store.insert('cases', 'sandbox', record, { customerOrg: n >= 2000 && n < 2600 ? 'ORG3' : random() < 0.6 ? 'ORG1' : 'ORG2' });
    }
  });
}

let store: Storage;
const answers: ListAnswer[] = [];
beforeAll(() => {
  const writer = openSqliteStorage(spec, { file, caseLists: 'sql' });
  seed(writer);
  writer.close();
  // small blocks and few counted codes: 8,000 cases take the paths a million take with the defaults (as in
  // test/sandbox.memory.test.ts)
  store = openSqliteStorage(spec, { file, caseMemoryLoad: 'sync', caseMemorySizes: { block: 32, countedCodes: 64 }, onListPlan: (answer) => answers.push(answer) });
});
afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Who answered the list, and how. */
function answerOf(query: string, scope: Scope = customer, s: Storage = store): ListAnswer {
  const parsed = parseListQuery(query, list, spec.operators);
  if (!parsed.query) throw new Error(`${query}: ${JSON.stringify(parsed)}`);
  answers.length = 0;
  s.list('cases', 'sandbox', scope, parsed.query);
  expect(answers).toHaveLength(1);
  return answers[0];
}

function planOf(query: string, scope: Scope = customer): ListPlan {
  // a write first, so no page is served from the cache
  store.update('cases', 'sandbox', 'CS1000000', { priority: 4 });
  const answer = answerOf(query, scope);
  if (answer.by !== 'engine') throw new Error(`${query} was answered by ${answer.by}: ${JSON.stringify(answer)}`);
  return answer.plan;
}

const walk = (along: string, descending: boolean, more: { back?: boolean; within?: boolean; zones?: boolean } = {}): PageWay => ({ how: 'walk', along, descending, back: false, within: false, zones: false, ...more });

// [class, query, scope, the plan's parts]
const classes: Array<[string, string, Scope, Partial<ListPlan>]> = [
  ['no filter, newest first', 'sort=-createdAt&page[size]=50', customer, { clauses: 'none', count: 'scope', test: 'mask', zones: 'none', page: walk('createdAt', true) }],
  ['no filter, the partner\'s contracts', 'sort=-createdAt&page[size]=50', partner, { clauses: 'none', count: 'scope', test: 'mask', page: walk('createdAt', true) }],
  ['a status (few values, counted per scope)', 'filter[status][eq]=3&sort=-createdAt&page[size]=50', customer, { clauses: 'scope counts', count: 'scope counts', test: 'values', page: walk('createdAt', true) }],
  ['null on a text field: counted, the page skips blocks by its counts per block', 'filter[description][null]&sort=-createdAt', customer, { clauses: 'scope counts', count: 'scope counts', test: 'values', zones: 'code blocks', page: walk('createdAt', true, { zones: true }) }],
  ['a page past the end is not walked', 'filter[status][eq]=3&page[size]=200&page[number]=100', customer, { clauses: 'scope counts', count: 'scope counts', page: { how: 'past the end' } }],
  ['sameas: counted per scope', 'filter[status][sameas]=priority', customer, { clauses: 'same counts', count: 'same counts', page: walk('id', false) }],
  ['a prefix: its stretch visited, the page skips blocks by the bounds', 'filter[incident][startswith]=INC12&sort=-createdAt', customer, { clauses: 'stretch visit', stretchOf: 'incident', count: 'stretch visit', test: 'mask', zones: 'zone skips', page: walk('createdAt', true, { zones: true }) }],
  ['a text test of few values: their stretches visited', 'filter[shortDescription][contains]=Printer 5&sort=-createdAt', customer, { clauses: 'stretch visit', stretchOf: 'shortDescription', count: 'stretch visit', test: 'mask', page: walk('createdAt', true) }],
  ['few matches sorted by another field: sorted, not walked', 'filter[incident][startswith]=INC12&sort=shortDescription', customer, { clauses: 'stretch visit', stretchOf: 'incident', count: 'stretch visit', page: { how: 'sort', keys: ['shortDescription'] } }],
  ['a date range sorted by itself: walked within its stretch', 'filter[createdAt][ge]=2026-01-05T00:00:00Z&sort=createdAt&page[size]=50', customer, { clauses: 'stretch block counts', stretchOf: 'createdAt', count: 'stretch block counts', test: 'values within a budget', page: walk('createdAt', false, { within: true }) }],
  ['a date range sorted by id: counted from blocks, walked skipping blocks by bounds', 'filter[createdAt][ge]=2026-01-04T00:00:00Z&sort=-id&page[size]=50&page[number]=3', customer, { clauses: 'stretch block counts', stretchOf: 'createdAt', count: 'stretch block counts', test: 'values within a budget', zones: 'zone bounds', page: walk('id', true, { zones: true }) }],
  ['a pattern of many values: a pass', 'filter[description][contains]=desc 7&sort=-createdAt&page[size]=50', customer, { clauses: 'passes', count: 'mask', test: 'mask', page: walk('createdAt', true) }],
  ['two clauses: one pass each', 'filter[status][eq]=3&filter[priority][ge]=2&sort=-createdAt', customer, { clauses: 'passes', count: 'mask', test: 'mask', page: walk('createdAt', true) }],
  ['sorted by a status, then a date: counted buckets', 'sort=status,-createdAt&page[size]=50&page[number]=3', customer, { clauses: 'none', count: 'scope', page: { how: 'counted buckets', lead: 'status', along: 'createdAt' } }],
  ['a filter, sorted by a status then a date: buckets of the matches', 'filter[priority][eq]=2&sort=-status,createdAt', customer, { clauses: 'scope counts', count: 'scope counts', page: { how: 'buckets', lead: ['status'], along: 'createdAt' } }],
];

describe('the column engine\'s plan per class of list (D-84)', () => {
  it.each(classes)('%s: %s', (_name, query, scope, expected) => {
    const plan = planOf(query, scope);
    expect(plan).toMatchObject(expected);
    if (!('stretchOf' in expected)) expect(plan.stretchOf).toBeUndefined();
  });

  it('says the scope and the total it used', () => {
    const plan = planOf('filter[status][eq]=3&sort=-createdAt', partner);
    expect(plan.scope).toEqual({ by: 'contract', values: 2, cases: expect.any(Number) });
    expect(plan.scope.cases).toBeGreaterThan(plan.totalCount);
    const all = planOf('sort=-createdAt', partner);
    expect(all.totalCount).toBe(all.scope.cases);
  });

  it('prints a plan on one line', () => {
    expect(describePlan(planOf('filter[description][null]&sort=-createdAt'))).toMatch(
      /^scope: customerOrg mask \(1 value, [\d,]+ cases\); clauses: scope counts; count: scope counts = [\d,]+; page: walk createdAt desc from the start, skipping blocks by counts per code, test values$/,
    );
  });
});

describe('who answers a list', () => {
  it('the page cache answers the same list again until a write', () => {
    const query = 'filter[status][eq]=6&sort=id&page[size]=20';
    planOf(query);
    expect(answerOf(query)).toEqual({ by: 'page cache' });
    store.update('cases', 'sandbox', 'CS1000001', { priority: 3 });
    expect(answerOf(query).by).toBe('engine');
  });

  it('SQL answers inside a transaction, and says so', () => {
    const answer = store.transaction(() => {
      store.update('cases', 'sandbox', 'CS1000002', { status: 10 });
      return answerOf('filter[status][eq]=10&sort=id');
    });
    expect(answer).toEqual({ by: 'sql', why: 'the engine refused: inside a transaction' });
  });

  it('SQL answers with --case-lists sql, and says so', () => {
    const sqlAnswers: ListAnswer[] = [];
    const sqlOnly = openSqliteStorage(spec, { file, caseLists: 'sql', onListPlan: (a) => sqlAnswers.push(a) });
    try {
      sqlOnly.list('cases', 'sandbox', customer, parseListQuery('sort=id', list, spec.operators).query!);
      expect(sqlAnswers).toEqual([{ by: 'sql', why: '--case-lists sql' }]);
    } finally {
      sqlOnly.close();
    }
  });
});

it('care-sandbox --explain-lists prints one line per list of cases', async () => {
  const lines: string[] = [];
  const harness = await startHarness({ explainLists: true, log: (line) => lines.push(line) });
  try {
    await harness.sandbox.svc.store.whenListsReady();
    const first = await harness.call('sandbox', 'customer', 'GET', '/cases?filter[status][in]=1,3&sort=-createdAt&page[size]=5');
    expect(first.status).toBe(200);
    await harness.call('sandbox', 'customer', 'GET', '/cases?filter[status][in]=1,3&sort=-createdAt&page[size]=5');
    const plans = lines.filter((l) => l.startsWith('[plan] '));
    expect(plans).toHaveLength(2);
    expect(plans[0]).toMatch(/^\[plan\] sandbox cases customerOrg=\S+ \?filter\[status\]\[in\]=1,3&sort=-createdAt&page\[number\]=1&page\[size\]=5 → engine: scope: customerOrg mask .*; clauses: scope counts; count: scope counts = \d+; page: /);
    expect(plans[1]).toMatch(/→ page cache/);
  } finally {
    await harness.close();
  }
});
