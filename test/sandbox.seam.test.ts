// The seam between the case-list engine and the store (issue 39 item 3): the engine fills and stays current from a
// row source that is not SQLite and answers as the grammar's evaluator; a list the engine answers builds no SQL. The
// dependency rule that keeps the engine off SQLite is checked with the other walls in test/architecture.test.ts.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { compareCodePoints } from '../src/grammar/compare.ts';
import { compareBySort, matchesFilters } from '../src/grammar/evaluate.ts';
import { escapeListValue } from '../src/grammar/list-values.ts';
import { parseListQuery } from '../src/grammar/parse.ts';
import { prng } from '../src/sandbox/seed.ts';
import { openCaseMemory } from '../src/sandbox/store/memory/engine.ts';
import type { CaseRow, CaseRowSource } from '../src/sandbox/store/memory/source.ts';
import { orderSql, whereSql } from '../src/sandbox/store/list-sql.ts';
import { openSqliteStorage } from '../src/sandbox/store/sqlite.ts';
import type { Scope } from '../src/sandbox/store/types.ts';
import { spec } from './helpers/sandbox.ts';

vi.mock('../src/sandbox/store/list-sql.ts', async (original) => {
  const actual = await original<typeof import('../src/sandbox/store/list-sql.ts')>();
  return { ...actual, whereSql: vi.fn(actual.whereSql), orderSql: vi.fn(actual.orderSql) };
});

const list = spec.operation('listCases').list!;
const RECORD_FIELDS = ['id', 'contract', 'shortDescription', 'description', 'status', 'priority', 'contact', 'watchList', 'incident', 'createdAt', 'created', 'updatedAt'];
const WORDS = ['Printer', 'printer', 'VPN', '', 'nul\u0000byte', 'a*b', 'Zürich', '😀', 'comma,inside'];
const EMAILS = ['ana@customer.example', 'li@customer.example'];
const random = prng(39);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];

interface Held {
  env: string;
  record: Record<string, any>;
  customerOrg: string;
  rowid: number;
}

/** Cases kept in a Map: the engine's port without a database. */
function mapSource(cases: Map<string, Held>): CaseRowSource & { open: boolean } {
  const rowOf = (c: Held, fields: readonly string[]): CaseRow => [c.env, ...fields.map((f) => c.record[f]), c.customerOrg, c.rowid];
  const source = {
    open: false,
    recordFields: RECORD_FIELDS,
    countsByEnv() {
      const n = new Map<string, number>();
      for (const c of cases.values()) n.set(c.env, (n.get(c.env) ?? 0) + 1);
      return n;
    },
    maxCases: () => cases.size,
    writing: () => source.open,
    reader: (fields: readonly string[]) => ({
      *scan(chunk: number) {
        const sorted = [...cases.values()].sort((a, b) => compareCodePoints(a.env, b.env) || compareCodePoints(a.record.id, b.record.id));
        for (let i = 0; i < sorted.length; i += chunk) yield sorted.slice(i, i + chunk).map((c) => rowOf(c, fields));
      },
      row(env: string, id: string) {
        const c = cases.get(`${env}\u0000${id}`);
        return c && rowOf(c, fields);
      },
    }),
  };
  return source;
}

let serial = 0;
function newCase(env: string): Held {
  serial++;
  const text = () => (random() < 0.5 ? `${pick(WORDS)} ${serial}` : pick(WORDS));
  const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 5) * 86_400_000).toISOString();
  const record = {
    id: `CS${String(200000 + serial).padStart(7, '0')}`,
    contract: pick(['CT0000101', 'CT0000102', null]),
    shortDescription: text(),
    description: random() < 0.3 ? null : text(),
    status: pick([1, 3, 6, 10]),
    priority: pick([1, 2, 3, 4]),
    contact: random() < 0.2 ? null : pick(EMAILS),
    watchList: EMAILS.filter(() => random() < 0.3),
    incident: random() < 0.5 ? null : pick(['INC1', '', `INC${serial}`]),
    createdAt: at,
    created: at,
    updatedAt: at,
  };
  return { env, record, customerOrg: random() < 0.7 ? 'ORG1' : 'ORG2', rowid: serial };
}

function randomQuery(rows: Held[]): string {
  const parts: string[] = [];
  const fields = Object.values(list.filterFields);
  for (let i = Math.floor(random() * 3); i > 0; i--) {
    const f = pick(fields);
    const op = pick(f.operators);
    const arity = spec.operators[op].arity;
    const value = () => {
      const v = pick(rows).record[f.name];
      return v === null ? (f.type === 'integer' ? '3' : f.type === 'datetime' ? '2026-01-02' : 'VPN') : Array.isArray(v) ? (v[0] ?? EMAILS[0]) : String(v);
    };
    if (arity === 'none') parts.push(`filter[${f.name}][${op}]`);
    else if (arity === 'field') parts.push(`filter[${f.name}][${op}]=${pick(fields.filter((o) => o.type === f.type && o.name !== f.name)).name}`);
    else if (op === 'match' || op === 'notMatch') parts.push(`filter[${f.name}][${op}]=${encodeURIComponent(pick(['^P', 'e$', '[0-9]']))}`);
    else {
      const values = arity === 'list' || arity === 'pair' ? [value(), value()].sort() : [value()];
      parts.push(`filter[${f.name}][${op}]=${encodeURIComponent(values.map(escapeListValue).join(','))}`);
    }
  }
  const keys = [...list.sortFields].sort(() => random() - 0.5).slice(0, Math.floor(random() * 3));
  if (keys.length > 0) parts.push(`sort=${keys.map((k) => (random() < 0.5 ? '-' : '') + k).join(',')}`);
  parts.push(`page[size]=${pick([1, 7, 50])}`, `page[number]=${pick([1, 2, 5])}`);
  return parts.join('&');
}

describe('the engine over a row source that is not SQLite', () => {
  const cases = new Map<string, Held>();
  const put = (c: Held) => cases.set(`${c.env}\u0000${c.record.id}`, c);
  for (let i = 0; i < 400; i++) put(newCase(i % 5 === 0 ? 'production' : 'sandbox'));
  const source = mapSource(cases);
  const memory = openCaseMemory(spec, source, { load: 'sync', block: 16, countedCodes: 8 });
  afterAll(() => memory.close());

  /** The engine's answer to one query equals the evaluator's on the cases held, records included. */
  function agrees(q: string, env = 'sandbox'): boolean {
    const parsed = parseListQuery(q, list, spec.operators);
    if (parsed.errors.length > 0) return false;
    const scope: Scope = random() < 0.5 ? { by: 'customerOrg', values: ['ORG1'] } : { by: 'contract', values: ['CT0000101', 'CT0000102'] };
    const inScope = (c: Held) => c.env === env && (scope.by === 'customerOrg' ? scope.values.includes(c.customerOrg) : scope.values.includes(c.record.contract));
    const expected = [...cases.values()].filter((c) => inScope(c) && matchesFilters(c.record, parsed.query.filters, spec.operators));
    expected.sort((a, b) => compareBySort(a.record, b.record, parsed.query.sort));
    const { number, size } = parsed.query.page;
    const page = expected.slice((number - 1) * size, number * size);
    const answer = memory.list(env, scope, parsed.query);
    if ('refused' in answer) throw new Error(`${q}: the engine refused: ${answer.refused}`);
    const got = answer;
    expect(got.totalCount, `${q} totalCount`).toBe(expected.length);
    expect(got.ids, q).toEqual(page.map((c) => c.record.id));
    expect(got.rowids, q).toEqual(page.map((c) => c.rowid));
    expect(JSON.parse(got.json!.toString('utf8')), q).toEqual(page.map((c) => c.record));
    return true;
  }

  it('fills from the source and answers as the grammar', () => {
    expect(memory.ready()).toBe(true);
    const rows = [...cases.values()];
    let checked = 0;
    for (let i = 0; i < 150; i++) if (agrees(randomQuery(rows), i % 4 === 0 ? 'production' : 'sandbox')) checked++;
    expect(checked).toBeGreaterThan(100);
  });

  it('waits while the source has a write open, then applies the rows it was told of', () => {
    const query = parseListQuery('page[size]=5', list, spec.operators).query;
    source.open = true;
    const changed = [...cases.values()].filter((c) => c.env === 'sandbox').slice(0, 30);
    for (const [i, c] of changed.entries()) {
      if (i % 3 === 0) cases.delete(`${c.env}\u0000${c.record.id}`);
      else c.record = { ...c.record, status: 18, shortDescription: `changed ${i}`, updatedAt: '2026-02-01T00:00:00.000Z' };
      memory.touched(c.env, c.record.id);
    }
    const fresh = Array.from({ length: 10 }, () => newCase('sandbox'));
    for (const c of fresh) {
      put(c);
      memory.touched(c.env, c.record.id);
    }
    expect(memory.list('sandbox', { by: 'customerOrg', values: ['ORG1'] }, query)).toEqual({ refused: 'inside a transaction' });
    source.open = false;
    memory.settle();
    const rows = [...cases.values()];
    for (const q of ['filter[status]=18&sort=-updatedAt&page[size]=50', 'filter[shortDescription][startswith]=changed&sort=shortDescription', 'sort=-id&page[size]=20']) expect(agrees(q)).toBe(true);
    for (let i = 0; i < 60; i++) agrees(randomQuery(rows));
  });
});

describe('a cases list the engine answers', () => {
  it('builds no SQL: its caches are keyed by the query itself', () => {
    const store = openSqliteStorage(spec, { file: ':memory:', caseLists: 'memory-only', caseMemoryLoad: 'sync' });
    try {
      for (let i = 0; i < 20; i++) {
        const c = newCase('sandbox');
        store.insert('cases', 'sandbox', c.record, { customerOrg: 'ORG1' });
      }
      vi.mocked(whereSql).mockClear();
      vi.mocked(orderSql).mockClear();
      const scope: Scope = { by: 'customerOrg', values: ['ORG1'] };
      for (const q of ['filter[status][in]=1,3&sort=-createdAt&page[size]=5', 'filter[shortDescription][contains]=a&page[number]=2&page[size]=3', 'filter[status][in]=1,3&sort=-createdAt&page[size]=5']) {
        const answered = store.list('cases', 'sandbox', scope, parseListQuery(q, list, spec.operators).query);
        expect(answered.json, q).toBeDefined();
        expect(answered.count).toBe(answered.items.length);
      }
      expect(vi.mocked(whereSql)).not.toHaveBeenCalled();
      expect(vi.mocked(orderSql)).not.toHaveBeenCalled();
      // the SQL path still writes its SQL (the spies see it)
      store.list('comments', 'sandbox', { by: 'case', values: ['CS0000001'] }, parseListQuery('page[size]=5', spec.operation('listCaseComments').list!, spec.operators).query);
      expect(vi.mocked(whereSql)).toHaveBeenCalled();
    } finally {
      store.close();
    }
  });
});
