// A list's plan is complete before its page is made, and its run writes nothing to it (issue 49 item 1): runPlan is
// watched as the engine calls it; the plan it is given is frozen and compared with a copy taken before. A walk that
// spends its budget says so in its outcome (a value, not an exception), and its page is still SQL's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseListQuery } from '../src/grammar/parse.ts';
import type { ListPlan, PlanOutcome } from '../src/sandbox/store/list-plan.ts';
import type { Planned } from '../src/sandbox/store/memory/list.ts';
import { openSqliteStorage } from '../src/sandbox/store/sqlite.ts';
import type { ListAnswer, Scope, Storage } from '../src/sandbox/store/types.ts';
import { spec } from './helpers/sandbox.ts';

const runs = vi.hoisted(() => [] as Array<{ before: unknown; after: ListPlan; outcome: PlanOutcome }>);

vi.mock('../src/sandbox/store/memory/list.ts', async (original) => {
  const actual = await original<typeof import('../src/sandbox/store/memory/list.ts')>();
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
    Object.freeze(value);
    for (const v of Object.values(value)) freeze(v);
  };
  return {
    ...actual,
    runPlan: (t: Parameters<typeof actual.runPlan>[0], planned: Planned) => {
      const before = structuredClone(planned.plan);
      // a write to the plan, or to the page's way, throws (modules are strict)
      freeze(planned.plan);
      for (const step of [planned.page, planned.page.budget?.ifSpent]) if (step) Object.freeze(Object.freeze(step).way);
      const ran = actual.runPlan(t, planned);
      runs.push({ before, after: planned.plan, outcome: ran.outcome });
      return ran;
    },
  };
});

const list = spec.operation('listCases').list!;
const dir = mkdtempSync(join(tmpdir(), 'care-plan-run-'));
const file = join(dir, 'cases.db');
const customer: Scope = { by: 'customerOrg', values: ['ORG1'] };

/** 8,000 cases in id order; only the last 1,000 have a status equal to their priority. */
function seed(store: Storage): void {
  store.transaction(() => {
    for (let n = 0; n < 8000; n++) {
      const at = new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
      const status = [1, 3, 6, 10][n % 4];
      const record = {
        id: `CS${String(1_000_000 + n).padStart(7, '0')}`,
        contract: ['CT0000101', 'CT0000102', null][n % 3],
        shortDescription: `Printer ${n % 97} on floor ${n % 13}`,
        description: n % 3 === 0 ? null : `desc ${n}`,
        status,
        priority: n >= 7000 ? status : 2,
        contact: null,
        watchList: [],
        incident: n % 2 ? null : `INC${n}`,
        createdAt: at,
        created: at,
        updatedAt: at,
      };
      store.insert('cases', 'sandbox', record, { customerOrg: 'ORG1' });
    }
  });
}

let engine: Storage;
let sql: Storage;
const answers: ListAnswer[] = [];
beforeAll(() => {
  const writer = openSqliteStorage(spec, { file, caseLists: 'sql' });
  seed(writer);
  writer.close();
  // the default block: a page walk that no counts per block shorten is walked within a budget
  engine = openSqliteStorage(spec, { file, caseMemoryLoad: 'sync', onListPlan: (a) => answers.push(a) });
  sql = openSqliteStorage(spec, { file, caseLists: 'sql' });
});
afterAll(() => {
  engine?.close();
  sql?.close();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES = [
  'sort=-createdAt&page[size]=50',
  'filter[status][eq]=3&sort=-createdAt&page[size]=50',
  'filter[description][null]&sort=-createdAt',
  'filter[status][eq]=3&page[size]=200&page[number]=100',
  'filter[incident][startswith]=INC12&sort=-createdAt',
  'filter[incident][startswith]=INC12&sort=shortDescription',
  'filter[createdAt][ge]=2026-01-05T00:00:00Z&sort=createdAt&page[size]=50',
  'filter[createdAt][ge]=2026-01-04T00:00:00Z&sort=-id&page[size]=50&page[number]=3',
  'filter[description][contains]=desc 7&sort=-createdAt&page[size]=50',
  'filter[status][eq]=3&filter[priority][ge]=2&sort=-createdAt',
  'sort=status,-createdAt&page[size]=50&page[number]=3',
  'filter[priority][eq]=2&sort=-status,createdAt',
  // the matches lie together at the end of the id order: the walk, estimated short, spends its budget
  'filter[status][sameas]=priority&sort=id&page[size]=20',
];

describe('a plan through its run (issue 49)', () => {
  it.each(QUERIES)('%s: the plan is the same after its run, and the page is SQL\'s', (text) => {
    const query = parseListQuery(text, list, spec.operators).query!;
    // a write first, so no page is served from the cache
    engine.update('cases', 'sandbox', 'CS1000000', { contact: null });
    runs.length = 0;
    answers.length = 0;
    const page = engine.list('cases', 'sandbox', customer, query);
    expect(answers.map((a) => a.by)).toEqual(['engine']);
    expect(runs).toHaveLength(1);
    expect(runs[0].after).toEqual(runs[0].before);
    const expected = sql.list('cases', 'sandbox', customer, query);
    expect(page.totalCount).toBe(expected.totalCount);
    expect(page.items.map((c) => c.id)).toEqual(expected.items.map((c) => c.id));
  });

  it('a walk that spends its budget returns that as its outcome, the plan saying beforehand what follows', () => {
    engine.update('cases', 'sandbox', 'CS1000000', { contact: null });
    answers.length = 0;
    engine.list('cases', 'sandbox', customer, parseListQuery('filter[status][sameas]=priority&sort=id&page[size]=20', list, spec.operators).query!);
    const [answer] = answers;
    if (answer?.by !== 'engine') throw new Error(`answered by ${answer?.by}`);
    expect(answer.outcome).toBe('budget spent: mask walk');
    expect(answer.plan).toMatchObject({ clauses: 'same counts', test: 'values within a budget', ifSpent: { page: { how: 'walk', along: 'id' } } });
  });
});
