// The in-memory column engine of the case lists (decision D-84) answers like the grammar's evaluator and comparator
// (D-22, D-28) on a table large enough for its dense-column form (columns of nearly distinct values keep no lookup),
// and stays exact after every kind of write: inserts, updates of filtered and sorted fields, removals, a rolled-back
// transaction, a list inside an open transaction, a bulk write that refills it, and writes during a background fill.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantOf } from '../src/grammar/compare.ts';
import { compareBySort, matchesFilters } from '../src/grammar/evaluate.ts';
import { escapeListValue } from '../src/grammar/list-values.ts';
import { parseListQuery } from '../src/grammar/parse.ts';
import { codeOf, makeColumn, numberOf, valueAt } from '../src/sandbox/store/memory/columns.ts';
import { applyClause, nextUp, sameAsSlot } from '../src/sandbox/store/memory/filter.ts';
import { prng } from '../src/sandbox/seed.ts';
import { openSqliteStorage } from '../src/sandbox/store/sqlite.ts';
import { resourceColumns } from '../src/sandbox/store/columns.ts';
import { openCaseMemory } from '../src/sandbox/store/memory/engine.ts';
import { sqliteCaseRows } from '../src/sandbox/store/sqlite-case-rows.ts';
import { RESOURCE_SCHEMAS } from '../src/sandbox/store/types.ts';
import type { FilterClause } from '../src/grammar/types.ts';
import type { Scope, Storage } from '../src/sandbox/store/types.ts';
import { spec } from './helpers/sandbox.ts';

const list = spec.operation('listCases').list!;
const WORDS = ['Printer', 'printer', 'VPN', '', 'nul\u0000byte', 'a*b', 'x?y', 'Zürich', '𝔘nicode', '😀', 'e\u0301', 'comma,inside', 'back\\slash'];
const EMAILS = ['ana@customer.example', 'jonas@partner.example', 'li@customer.example'];
const CONTRACTS = ['CT0000101', 'CT0000102', 'CT0000103', null];

const random = prng(84);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
const iso = (ms: number) => new Date(ms).toISOString();
/** A sort key that is not `status` itself. */
const sort0 = (field: string) => (field === 'status' ? 'id' : field);

let serial = 0;
function newCase(): { record: Record<string, any>; customerOrg: string } {
  serial++;
  // most texts distinct (the dense-column form), some repeated, some awkward
  const text = () => (random() < 0.6 ? `${pick(WORDS)} ${serial} ${pick(WORDS)}` : pick(WORDS));
  const createdAt = iso(Date.UTC(2026, 0, 1) + Math.floor(random() * 5) * 86_400_000 + Math.floor(random() * 3) * 1000);
  const record = {
    id: `CS${String(100000 + serial).padStart(7, '0')}`,
    contract: pick(CONTRACTS),
    shortDescription: text(),
    description: random() < 0.3 ? null : text(),
    status: pick([1, 3, 6, 10, 18]),
    priority: pick([1, 2, 3, 4]),
    contact: random() < 0.2 ? null : pick(EMAILS),
    watchList: EMAILS.filter(() => random() < 0.3),
    incident: random() < 0.5 ? null : pick(['INC1', 'INC2', '', `INC${serial}`]),
    createdAt,
    created: createdAt,
    updatedAt: random() < 0.5 ? createdAt : iso(Date.UTC(2026, 0, 3) + Math.floor(random() * 3) * 1000),
  };
  return { record, customerOrg: random() < 0.7 ? 'ORG1' : 'ORG2' };
}

/** The model: what the database holds, as the evaluator sees it. */
const model = new Map<string, { record: Record<string, any>; customerOrg: string }>();
const dir = mkdtempSync(join(tmpdir(), 'care-memory-'));
const file = join(dir, 'cases.db');
let store: Storage;

function operand(field: string, operator: string): string | null {
  const f = list.filterFields[field];
  const rows = [...model.values()];
  const value = () => {
    const v = pick(rows).record[field];
    if (v === null) return f.type === 'integer' ? '3' : f.type === 'datetime' ? '2026-01-02' : 'VPN';
    return Array.isArray(v) ? (v[0] ?? EMAILS[0]) : String(v);
  };
  const arity = spec.operators[operator].arity;
  if (arity === 'none') return null;
  if (arity === 'field') return pick(Object.values(list.filterFields).filter((o) => o.type === f.type && o.name !== field)).name;
  if (arity === 'list') return [value(), value()].map(escapeListValue).join(',');
  if (arity === 'pair') {
    const [a, b] = [value(), value()];
    return [a, b].sort().map(escapeListValue).join(',');
  }
  if (operator === 'match' || operator === 'notMatch') return pick(['^P', 'e$', '[0-9]{2}', '\\p{L}{3}', '😀', '^$']);
  const v = value();
  if (operator === 'like' || operator === 'notLike') return pick([`*${v.slice(1, 4)}*`, `${v.slice(0, 3)}*`, `*${v.slice(-2)}`, `${v.slice(0, 1)}*${v.slice(-1)}`, `?${v.slice(1)}`, v]);
  if (f.type === 'string' && random() < 0.5) return pick([v.slice(0, 3), v.slice(-3), v.slice(1, 3)]);
  return v;
}

function randomQuery(): string {
  const parts: string[] = [];
  const fields = Object.values(list.filterFields);
  for (let i = Math.floor(random() * 3); i > 0; i--) {
    const f = pick(fields);
    const op = pick(f.operators);
    const v = operand(f.name, op);
    if (v !== null && /\p{Surrogate}/u.test(v)) continue; // a slice through a surrogate pair: not a query anyone can send (D-82)
    parts.push(v === null ? `filter[${f.name}][${op}]` : `filter[${f.name}][${op}]=${encodeURIComponent(v)}`);
  }
  const keys = fc.sample(fc.uniqueArray(fc.constantFrom(...list.sortFields), { maxLength: 3 }), { numRuns: 1, seed: Math.floor(random() * 2 ** 31) })[0];
  if (keys.length > 0) parts.push(`sort=${keys.map((k) => (random() < 0.5 ? '-' : '') + k).join(',')}`);
  const size = pick([1, 7, 50, 200]);
  parts.push(`page[size]=${size}`, `page[number]=${pick([1, 1, 2, 3, 10, 40])}`);
  return parts.join('&');
}

/** Random queries in both kinds of scope: the storage's answer equals the evaluator's on the model. */
function agree(runs: number, s: Storage = store): number {
  let checked = 0;
  for (let i = 0; i < runs; i++) if (agreesOn(randomQuery(), s)) checked++;
  return checked;
}

/** One query in a random scope: the storage's answer equals the evaluator's on `cases` (false: the query does not parse). */
function agreesOn(q: string, s: Storage = store, given?: Scope, cases: typeof model = model): boolean {
  {
    const parsed = parseListQuery(q, list, spec.operators);
    if (parsed.errors.length > 0) return false;
    const scope: Scope = given ?? (random() < 0.5 ? { by: 'customerOrg', values: ['ORG1'] } : { by: 'contract', values: ['CT0000101', 'CT0000103'] });
    const inScope = (m: { record: Record<string, any>; customerOrg: string }) =>
      scope.by === 'customerOrg' ? scope.values.includes(m.customerOrg) : m.record.contract !== null && scope.values.includes(m.record.contract);
    const expected = [...cases.values()]
      .filter((m) => inScope(m) && matchesFilters(m.record, parsed.query.filters, spec.operators))
      .map((m) => m.record)
      .sort((a, b) => compareBySort(a, b, parsed.query.sort));
    const { number, size } = parsed.query.page;
    const got = s.list('cases', 'sandbox', scope, parsed.query);
    expect(got.totalCount, `${q} ${scope.by} totalCount`).toBe(expected.length);
    // whole records: the page's text is written from the columns (record-json.ts), after every kind of write
    expect(got.items, `${q} ${scope.by}`).toEqual(expected.slice((number - 1) * size, number * size));
  }
  return true;
}

function insert(s: Storage = store) {
  const c = newCase();
  // now and then a copy of an existing case's texts: one value under two codes in a column without a lookup
  if (random() < 0.3) {
    const other = pick([...model.values()]).record;
    c.record.shortDescription = other.shortDescription;
    c.record.description = other.description;
  }
  // and now and then an id below the existing ones: its place in id order is between them
  if (random() < 0.3) c.record.id = `CS0${String(serial).padStart(6, '0')}`;
  s.insert('cases', 'sandbox', c.record, { customerOrg: c.customerOrg });
  model.set(c.record.id, c);
}

function update(s: Storage = store) {
  const m = pick([...model.values()]);
  const donor = newCase().record;
  const changes: Record<string, unknown> = {};
  for (const field of ['status', 'priority', 'contract', 'shortDescription', 'description', 'incident', 'createdAt', 'watchList']) {
    if (random() < 0.4) changes[field] = random() < 0.2 ? pick([...model.values()]).record[field] : donor[field];
  }
  s.update('cases', 'sandbox', m.record.id, changes);
  Object.assign(m.record, changes);
}

function removeAny(s: Storage = store) {
  const victim = pick([...model.keys()]);
  s.remove('cases', 'sandbox', victim);
  model.delete(victim);
}

beforeAll(() => {
  const writer = openSqliteStorage(spec, { file, caseLists: 'sql' });
  writer.transaction(() => {
    for (let i = 0; i < 10_500; i++) {
      const c = newCase();
      writer.insert('cases', 'sandbox', c.record, { customerOrg: c.customerOrg });
      model.set(c.record.id, c);
    }
  });
  writer.close();
  // filled at open from the database (the path a restart takes), and strict: a list it does not answer throws
  store = openSqliteStorage(spec, { file, caseLists: 'memory-only', caseMemoryLoad: 'sync' });
});
afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('memory column engine on 10k cases (D-84)', () => {
  it('answers random filters, sorts and pages like the evaluator, in customer and partner scopes', () => {
    expect(agree(400)).toBeGreaterThan(250);
  });

  it('walks a page sorted by a field with a range on it within the range\'s stretch, ascending and descending', () => {
    const rows = [...model.values()].map((m) => m.record);
    let checked = 0;
    // the sortable string fields, as the bundle declares them
    const fields = list.sortFields.filter((f) => list.filterFields[f]?.type === 'string');
    for (const field of fields) {
      const values = rows.map((r) => r[field]).filter((v): v is string => typeof v === 'string' && v !== '' && !/\p{Surrogate}/u.test(v)).sort();
      const value = (q: number) => values[Math.floor(q * (values.length - 1))];
      const one = (q: number) => encodeURIComponent(value(q));
      const listed = (q: number) => encodeURIComponent(escapeListValue(value(q)));
      const filters = [`[ge]=${one(0.3)}`, `[gt]=${one(0.5)}`, `[le]=${one(0.7)}`, `[lt]=${one(0.9)}`, `[between]=${listed(0.2)},${listed(0.8)}`, `[startswith]=${encodeURIComponent(value(0.5).slice(0, 2))}`, `[gt]=${one(0.97)}`, `[lt]=${one(0.03)}`];
      for (const filter of filters) {
        for (const sort of [field, `-${field}`]) {
          for (const page of ['page[size]=50&page[number]=1', 'page[size]=7&page[number]=3', 'page[size]=200&page[number]=5', 'page[size]=50&page[number]=3']) {
            if (agreesOn(`filter[${field}]${filter}&sort=${sort}&${page}`)) checked++;
          }
        }
      }
    }
    expect(fields).toEqual(expect.arrayContaining(['id', 'shortDescription']));
    expect(checked).toBe(fields.length * 8 * 2 * 4);
  });

  it('answers one clause from stretches of its field\'s permutation: the matches visited, the rest visited, or a pass', () => {
    const rows = [...model.values()].map((m) => m.record);
    let checked = 0;
    // fields with a permutation, as the bundle declares them (strings; datetimes that sort); integers are counted per value
    const fields = Object.values(list.filterFields).filter((f) => f.type === 'string' || (f.type === 'datetime' && list.sortFields.includes(f.name)));
    const operators = ['eq', 'ne', 'in', 'notIn', 'null', 'notNull', 'empty', 'notEmpty', 'lt', 'le', 'gt', 'ge', 'between', 'notBetween', 'startswith', 'notStartswith'];
    for (const f of fields) {
      const values = [...new Set(rows.map((r) => r[f.name]).filter((v): v is string => typeof v === 'string' && !/\p{Surrogate}/u.test(v)))].sort(
        f.type === 'datetime' ? (a, b) => instantOf(a)! - instantOf(b)! : undefined,
      );
      const at = (q: number) => values[Math.floor(q * (values.length - 1))];
      // a few matches (visited), most (the rest visited), about half (a pass), none below or above every value
      const outside = f.type === 'datetime' ? ['2020-01-01T00:00:00Z', '2030-01-01T00:00:00Z'] : ['', '\u{10FFFF}'];
      const singles = [at(0.02), at(0.1), at(0.5), at(0.9), at(0.98), ...outside];
      const pairs: Array<[string, string]> = [[at(0.02), at(0.1)], [at(0.05), at(0.95)], [at(0.4), at(0.6)], [at(0.1), at(0.98)], [outside[1], outside[0]]];
      for (const operator of operators.filter((o) => f.operators.includes(o))) {
        const arity = spec.operators[operator].arity;
        const operands =
          arity === 'none' ? [null]
          : arity === 'list' ? [[at(0.3), at(0.7)], [at(0.8), at(0.2)], [at(0.5)], [outside[0], at(0.1), at(0.2), at(0.1)]].map((l) => l.map(escapeListValue).join(','))
          : arity === 'pair' ? pairs.map((p) => p.map(escapeListValue).join(','))
          : operator.endsWith('tartswith') ? [at(0.5).slice(0, 1), at(0.5).slice(0, 3), at(0.98)]
          : singles;
        for (const operand of operands) {
          const filter = operand === null ? `filter[${f.name}][${operator}]` : `filter[${f.name}][${operator}]=${encodeURIComponent(operand)}`;
          for (const rest of [`sort=-${f.name}&page[size]=7&page[number]=3`, 'page[size]=50&page[number]=2']) {
            if (agreesOn(`${filter}&${rest}`)) checked++;
          }
        }
      }
    }
    expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining(['id', 'description', 'incident', 'createdAt', 'updatedAt']));
    expect(checked).toBeGreaterThan(fields.length * 70);
  });

  it('gives way to the passes when the matches of a range counted from blocks lie together far along the walk', () => {
    // `id ge` the median id sorted by id then status: the estimate (matches spread along the walk) says a short walk,
    // but the walk of id order meets no match before the median; past its budget it is walked through the mask. So
    // with `notBetween` sorted by the field alone: after the first few matches, a gap of more than half the slots.
    const rows = [...model.values()].map((m) => m.record);
    let checked = 0;
    for (const field of ['id', 'createdAt']) {
      const values = rows.map((r) => r[field] as string).sort();
      const at = (q: number) => encodeURIComponent(values[Math.floor(q * (values.length - 1))]);
      const median = at(0.5);
      const sorts = [[`[ge]=${median}`, `${field},status`], [`[lt]=${median}`, `-${field},status`], [`[gt]=${median}`, `${field},-priority`], [`[notBetween]=${at(0.03)},${at(0.6)}`, field]];
      for (const [filter, sort] of sorts) {
        for (const page of ['page[size]=50&page[number]=1', 'page[size]=7&page[number]=4', 'page[size]=200&page[number]=2']) {
          for (const scope of [{ by: 'customerOrg', values: ['ORG1'] }, { by: 'contract', values: ['CT0000101', 'CT0000103'] }] as Scope[]) {
            if (agreesOn(`filter[${field}]${filter}&sort=${sort}&${page}`, store, scope)) checked++;
          }
        }
      }
    }
    expect(checked).toBe(2 * 4 * 3 * 2);
  });

  it('takes a page nearer the end of its list walking back from the end: the last pages of every sort, ascending and descending', () => {
    const scope: Scope = { by: 'customerOrg', values: ['ORG1'] };
    let checked = 0;
    for (const field of list.sortFields) {
      for (const sort of [field, `-${field}`, `status,${sort0(field)}`, `-priority,-${field}`]) {
        for (const filter of ['', 'filter[priority][in]=1,2&', 'filter[contract]=CT0000101&']) {
          const total = store.list('cases', 'sandbox', scope, parseListQuery(`${filter}page[size]=1`, list, spec.operators).query).totalCount;
          // the last page, one that ends one short of the end, and one just past the middle, of sizes 7 and 50
          for (const size of [7, 50]) {
            const pages = [Math.ceil(total / size), Math.floor((total - 1) / size), Math.floor(total / 2 / size) + 1];
            for (const number of pages) if (number >= 1 && agreesOn(`${filter}sort=${sort}&page[size]=${size}&page[number]=${number}`, store, scope)) checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(list.sortFields.length * 4 * 3 * 5);
  });

  it('stays exact after inserts, updates of filtered and sorted fields, and removals', () => {
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 15; i++) insert();
      for (let i = 0; i < 25; i++) update();
      for (let i = 0; i < 3; i++) removeAny();
      agree(40);
    }
  });

  it('answers null and its negation on a column of many values from the scope\'s count of nulls, kept by every write', () => {
    // `shortDescription` keeps no lookup here (mostly distinct): its nulls are counted per scope, and a one-clause list is
    // counted from them and walked (sort=id), or bucketed by status and narrowed from the mask (sort=status,...)
    // scopes used by the tests before (their counts were made with no null) and scopes first used after nulls were
    // written (their counts are made from the slots, out-of-scope nulls left out)
    const scopes: Scope[] = [{ by: 'customerOrg', values: ['ORG1'] }, { by: 'contract', values: ['CT0000101', 'CT0000103'] }];
    const later: Scope[] = [{ by: 'customerOrg', values: ['ORG2'] }, { by: 'contract', values: ['CT0000102'] }];
    const check = () => {
      for (const scope of scopes) {
        for (const op of ['null', 'notNull']) {
          for (const rest of ['sort=id&page[size]=50&page[number]=3', 'sort=status,-createdAt&page[size]=7&page[number]=2', 'sort=-updatedAt&page[size]=200']) {
            expect(agreesOn(`filter[shortDescription][${op}]&${rest}`, store, scope)).toBe(true);
          }
        }
      }
    };
    for (let round = 0; round < 3; round++) {
      const nulls = [...model.values()].filter((m) => m.record.shortDescription === null);
      for (let i = 0; i < 20; i++) {
        // from the second round on, half the writes give a null one its text back (a slot leaves the nulls)
        const m = i % 2 === 1 && nulls.length > 0 ? nulls.splice(Math.floor(random() * nulls.length), 1)[0] : pick([...model.values()]);
        const shortDescription = m.record.shortDescription === null ? `now ${serial++}` : null;
        store.update('cases', 'sandbox', m.record.id, { shortDescription });
        m.record.shortDescription = shortDescription;
      }
      insert();
      removeAny();
      if (round === 0) scopes.push(...later);
      check();
    }
  });

  it('answers sameas and its negation from counts of the same slots, kept by every write, in scopes made before and after', () => {
    // pairs never the same (id, contract), always (a column and itself), and some of the time; named in both orders. A
    // short page is walked testing each slot, a deep one is taken from the pass's mask; scopes made after a pair was
    // counted take the table's count (never, always) or count it themselves
    // every case's updatedAt set to its createdAt (one transaction: the engine fills again), so that pair starts always
    // the same and the writes below part some; and shortDescription never holds an id until they give some one
    store.transaction(() => {
      for (const m of model.values()) {
        store.update('cases', 'sandbox', m.record.id, { updatedAt: m.record.createdAt });
        m.record.updatedAt = m.record.createdAt;
      }
    });
    const pairs = [['id', 'shortDescription'], ['id', 'contract'], ['created', 'created'], ['contact', 'contract'], ['createdAt', 'created'], ['updatedAt', 'createdAt'], ['createdAt', 'updatedAt'], ['status', 'priority'], ['priority', 'status'], ['shortDescription', 'description'], ['incident', 'contract'], ['contract', 'incident']];
    const scopes: Scope[] = [{ by: 'customerOrg', values: ['ORG1'] }, { by: 'contract', values: ['CT0000101', 'CT0000103'] }];
    const later: Scope[] = [{ by: 'customerOrg', values: ['ORG1', 'ORG2'] }, { by: 'contract', values: ['CT0000102', 'CT0000103'] }];
    const check = () => {
      for (const scope of scopes) {
        for (const [a, b] of pairs) {
          for (const op of ['sameas', 'notSameas']) {
            for (const rest of ['sort=id&page[size]=7&page[number]=2', 'sort=-createdAt&page[size]=200&page[number]=3', 'sort=status,-updatedAt&page[size]=50&page[number]=2', 'page[size]=50&page[number]=170']) {
              expect(agreesOn(`filter[${a}][${op}]=${b}&${rest}`, store, scope)).toBe(true);
            }
          }
        }
      }
    };
    check();
    // one write parts the pair that was always the same: a scope made now must not take "always" from the table
    const parted = pick([...model.values()]).record;
    store.update('cases', 'sandbox', parted.id, { updatedAt: iso(Date.UTC(2026, 1, 1)) });
    parted.updatedAt = iso(Date.UTC(2026, 1, 1));
    scopes.push(later.shift()!);
    check();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 30; i++) {
        // writes that make pairs the same and others that part them
        const m = pick([...model.values()]);
        const r = m.record;
        const changes: Record<string, unknown> = pick([
          { priority: pick([1, 3]), status: pick([1, 3]) },
          { updatedAt: r.createdAt },
          { updatedAt: iso(Date.UTC(2026, 1, 1) + i * 1000) },
          { description: r.shortDescription },
          { incident: null, contract: pick([null, 'CT0000102']) },
          { createdAt: iso(Date.UTC(2026, 2, 1) + i * 1000) },
          { created: r.createdAt },
          { shortDescription: r.id },
        ]);
        store.update('cases', 'sandbox', r.id, changes);
        Object.assign(r, changes);
      }
      insert();
      insert();
      removeAny();
      if (round === 0) scopes.push(...later);
      check();
    }
  });

  it('keeps an account scope current as cases join a contract it had none of, and as the table outgrows its arrays', () => {
    const scope: Scope = { by: 'contract', values: ['CT0000101', 'CT0000777'] };
    const count = () => store.list('cases', 'sandbox', scope, parseListQuery('page[size]=1', list, spec.operators).query).totalCount;
    const expected = () => [...model.values()].filter((m) => scope.values.includes(m.record.contract)).length;
    expect(count()).toBe(expected()); // the scope's mask is made here, then kept current by every write
    const moved = pick([...model.values()].filter((m) => m.record.contract !== 'CT0000101'));
    store.update('cases', 'sandbox', moved.record.id, { contract: 'CT0000777' });
    moved.record.contract = 'CT0000777';
    expect(count()).toBe(expected());
    // one by one (each applied before the next) past 16,384 slots, the arrays' capacity after the fill
    const target = 16_500 - model.size;
    for (let i = 0; i < target; i++) insert();
    expect(count()).toBe(expected());
    expect(agree(20)).toBeGreaterThan(5);
  });

  it('does not keep the writes of a rolled-back transaction', () => {
    const before = store.list('cases', 'sandbox', { by: 'customerOrg', values: ['ORG1'] }, parseListQuery('page[size]=1', list, spec.operators).query).totalCount;
    const victim = pick([...model.values()]).record;
    expect(() =>
      store.transaction(() => {
        store.insert('cases', 'sandbox', newCase().record, { customerOrg: 'ORG1' });
        store.update('cases', 'sandbox', victim.id, { status: 999, shortDescription: 'rolled back' });
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    const after = store.list('cases', 'sandbox', { by: 'customerOrg', values: ['ORG1'] }, parseListQuery('page[size]=1', list, spec.operators).query).totalCount;
    expect(after).toBe(before);
    const q = parseListQuery(`filter[shortDescription]=${encodeURIComponent('rolled back')}`, list, spec.operators).query;
    expect(store.list('cases', 'sandbox', { by: 'customerOrg', values: ['ORG1', 'ORG2'] }, q).totalCount).toBe(0);
    agree(40);
  });

  it('answers a list inside a transaction with its own writes, and after commit from memory', () => {
    // the strict store would throw inside a transaction with pending writes: it is SQL's turn there (D-84)
    expect(() =>
      store.transaction(() => {
        insert();
        store.list('cases', 'sandbox', { by: 'customerOrg', values: ['ORG1'] }, parseListQuery('page[size]=1', list, spec.operators).query);
      }),
    ).toThrow('the case column engine did not answer');
    // that throw rolled the transaction back: take the insert out of the model again
    const last = [...model.keys()].at(-1)!;
    model.delete(last);
    store.transaction(() => {
      for (let i = 0; i < 5; i++) insert();
      for (let i = 0; i < 5; i++) update();
    });
    agree(40);
  });

  it('fills again after a bulk write (more than the refill threshold in one transaction)', () => {
    store.transaction(() => {
      for (let i = 0; i < 2100; i++) update();
      for (let i = 0; i < 50; i++) insert();
    });
    agree(60);
  });
});

describe('memory column engine: pages walked skipping blocks, by the bounds of a field that grows with the walked one or by counts per code (D-84)', () => {
  // cases made in id order over time: the description starts with its date, the incident number grows, createdAt has
  // ties (runs of equal values across block boundaries); contacts, contracts and watch lists of a few values; blocks
  // of 32 positions, so 8k cases make 250 of them
  const cases: typeof model = new Map();
  const zoneFile = join(dir, 'zones.db');
  let zoneStore: Storage;
  let made = 0;
  const day = 86_400_000;
  const caseAt = (n: number, id: string) => {
    const createdMs = Date.UTC(2026, 0, 1) + Math.floor(n / 3) * 3_600_000;
    const createdAt = iso(createdMs);
    const record = {
      id,
      contract: pick(CONTRACTS),
      shortDescription: pick(WORDS),
      // dated to ten days: about 160 values, more than the scopes count per code (64) and few enough that text
      // operators count them (one per 8 cases)
      description: random() < 0.3 ? null : random() < 0.05 ? '' : `Reported ${createdAt.slice(0, 9)}. ${pick(WORDS)}`,
      status: pick([1, 3, 6, 10, 18]),
      priority: pick([1, 2, 3, 4]),
      contact: random() < 0.1 ? null : pick(EMAILS),
      watchList: EMAILS.filter(() => random() < 0.3),
      incident: random() < 0.6 ? null : `INC${String(n).padStart(7, '0')}`,
      createdAt,
      created: createdAt,
      updatedAt: iso(createdMs + Math.floor(random() * 2 * day)),
    };
    // ORG3's cases were all made within one stretch of time: they lie together along the id and date orders
    return { record, customerOrg: n >= 2000 && n < 2600 ? 'ORG3' : random() < 0.6 ? 'ORG1' : 'ORG2' };
  };
  const add = (n: number, id = `CS${String(1_000_000 + n).padStart(7, '0')}`) => {
    const c = caseAt(n, id);
    zoneStore.insert('cases', 'sandbox', c.record, { customerOrg: c.customerOrg });
    cases.set(id, c);
  };
  const scopes: Scope[] = [{ by: 'customerOrg', values: ['ORG1'] }, { by: 'contract', values: ['CT0000101', 'CT0000103'] }];

  beforeAll(() => {
    const writer = openSqliteStorage(spec, { file: zoneFile, caseLists: 'sql' });
    zoneStore = writer;
    writer.transaction(() => {
      for (; made < 8000; made++) add(made);
    });
    writer.close();
    zoneStore = openSqliteStorage(spec, { file: zoneFile, caseLists: 'memory-only', caseMemoryLoad: 'sync', caseMemorySizes: { block: 32, countedCodes: 64 } });
  });
  afterAll(() => zoneStore?.close());

  /**
   * Ranges and null tests on the growing fields, and clauses counted per value of the few-valued ones (their pages
   * skip blocks by counts per code), sorted by id and createdAt both ways, at pages from the start to the end; and
   * lists without filters sorted by a status or a priority, then a field.
   */
  function check(): number {
    let checked = 0;
    const rows = [...cases.values()].map((m) => m.record);
    for (const field of ['description', 'incident', 'createdAt', 'updatedAt']) {
      const values = rows.map((r) => r[field]).filter((v): v is string => typeof v === 'string').sort();
      const at = (q: number) => encodeURIComponent(escapeListValue(values[Math.floor(q * (values.length - 1))]));
      const filters = [`[ge]=${at(0.6)}`, `[gt]=${at(0.9)}`, `[le]=${at(0.3)}`, `[lt]=${at(0.7)}`, `[between]=${at(0.2)},${at(0.5)}`, `[notBetween]=${at(0.1)},${at(0.8)}`];
      if (field === 'incident') filters.push(`[startswith]=${encodeURIComponent(values[values.length >> 1].slice(0, 7))}`);
      // null tests on the fields that hold nulls: counted per scope, or a stretch that starts with the nulls
      if (field === 'description' || field === 'incident') filters.push('[null]', '[notNull]', '[empty]', '[notEmpty]');
      // text operators on a column of more codes than the scopes count at first: counted per code on first use, pages
      // walked within a budget
      if (field === 'description') filters.push('[contains]=VPN', '[notContains]=rinter', '[like]=*01-1*', '[endswith]=%F0%9F%98%80', '[notLike]=*2026-02*');
      for (const filter of filters) {
        for (const sort of ['id', '-id', 'createdAt', '-createdAt']) {
          for (const page of ['page[size]=50&page[number]=1', 'page[size]=7&page[number]=30', 'page[size]=50&page[number]=20', 'page[size]=200&page[number]=9']) {
            if (agreesOn(`filter[${field}]${filter}&sort=${sort}&${page}`, zoneStore, pick(scopes), cases)) checked++;
          }
        }
      }
    }
    const few = [
      `filter[contact][eq]=${EMAILS[1]}`,
      `filter[contact][ne]=${EMAILS[0]}`,
      'filter[contact][null]',
      `filter[contact][lt]=${EMAILS[2]}`,
      'filter[contract][in]=CT0000101,CT0000102',
      'filter[contract][notBetween]=CT0000101,CT0000101',
      `filter[watchList][contains]=${EMAILS[2]}`,
      // a pair the same at some slots only (kept as a mask): blocks counted by sameness
      'filter[status][sameas]=priority',
      'filter[priority][notSameas]=status',
    ];
    for (const filter of few) {
      for (const sort of ['id', '-id', 'createdAt', '-createdAt']) {
        for (const page of ['page[size]=50&page[number]=1', 'page[size]=7&page[number]=40', 'page[size]=50&page[number]=12', 'page[size]=200&page[number]=4']) {
          if (agreesOn(`${filter}&sort=${sort}&${page}`, zoneStore, pick(scopes), cases)) checked++;
        }
      }
    }
    // no filter, sorted by a small integer and then a field: each bucket's blocks counted per integer
    for (const sort of ['status,createdAt', '-status,-id', 'priority,-createdAt', '-priority,updatedAt']) {
      for (const page of ['page[size]=50&page[number]=1', 'page[size]=7&page[number]=60', 'page[size]=50&page[number]=40', 'page[size]=200&page[number]=14']) {
        if (agreesOn(`sort=${sort}&${page}`, zoneStore, pick(scopes), cases)) checked++;
      }
    }
    // no filter, sorted by one field, in a scope spread over the table or one lying together: the scope's slots
    // counted per block of the field's permutation (made on a scope and field's fourth list), so the walk skips the
    // blocks holding none; sorted descending by a field of a few values, run by run, each counted
    for (const sort of ['id', '-createdAt', '-updatedAt', 'shortDescription', 'contract', '-contract', '-priority']) {
      for (const scope of [...scopes, { by: 'customerOrg', values: ['ORG3'] } as Scope]) {
        // the last page deep enough in the larger scopes to pass whole runs of a contract or a priority
        for (const page of ['page[size]=50&page[number]=1', 'page[size]=7&page[number]=60', 'page[size]=50&page[number]=10', 'page[size]=200&page[number]=3', 'page[size]=200&page[number]=9']) {
          if (agreesOn(`sort=${sort}&${page}`, zoneStore, scope, cases)) checked++;
        }
      }
    }
    return checked;
  }
  const CHECKS = (4 * 6 + 1 + 2 * 4 + 5 + 9) * 4 * 4 + 4 * 4 + 7 * 3 * 5;

  it('answers ranges and clauses on few-valued fields like the evaluator', () => {
    expect(check()).toBe(CHECKS);
  });

  it('stays exact after writes that move slots across blocks, widen them in place, and remove them', () => {
    const ids = () => [...cases.keys()];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 20; i++) {
        // a case made now (at the end), and one given an id between others (its place in id order is inside a block)
        add(made++);
        let between: string;
        do between = `CS${String(1_000_000 + Math.floor(random() * 8000)).padStart(7, '0')}x`;
        while (cases.has(between));
        add(made++, between);
      }
      for (let i = 0; i < 40; i++) {
        const m = cases.get(pick(ids()))!;
        const far = caseAt(Math.floor(random() * made), m.record.id).record;
        // a value from far along the walk written in place (its block widens), the case moved in createdAt order, or
        // its few-valued fields changed (a contract: it may leave or join the partner's scope; a status and a
        // priority: it may become the same or not)
        const r = random();
        const changes: Record<string, unknown> =
          r < 0.4 ? { description: far.description, incident: far.incident, updatedAt: far.updatedAt }
          : r < 0.7 ? { createdAt: far.createdAt }
          : { contact: far.contact, contract: far.contract, watchList: far.watchList, status: far.status, priority: far.priority, ...(random() < 0.3 ? { createdAt: far.createdAt } : {}) };
        zoneStore.update('cases', 'sandbox', m.record.id, changes);
        Object.assign(m.record, changes);
      }
      for (let i = 0; i < 10; i++) {
        const victim = pick(ids());
        zoneStore.remove('cases', 'sandbox', victim);
        cases.delete(victim);
      }
      expect(check()).toBe(CHECKS);
    }
  });
});

describe('memory column engine filled in the background (D-84)', () => {
  it('applies writes made while it fills, once filled', async () => {
    const background = openSqliteStorage(spec, { file, caseLists: 'memory-only', caseMemoryLoad: 'background' });
    try {
      for (let i = 0; i < 20; i++) insert(background);
      for (let i = 0; i < 40; i++) update(background);
      await background.whenListsReady();
      agree(60, background);
    } finally {
      background.close();
    }
  });
});

describe('the page cache during the fill (D-84)', () => {
  it('gives the connection back its own page cache size once the fill has scanned the table', () => {
    const db = new Database(file);
    db.pragma('cache_size = -12345');
    const memory = openCaseMemory(spec, sqliteCaseRows(db, resourceColumns(spec, RESOURCE_SCHEMAS.cases)), { load: 'sync' });
    try {
      expect(memory.ready()).toBe(true);
      expect(db.pragma('cache_size', { simple: true })).toBe(-12345);
    } finally {
      memory.close();
      db.close();
    }
  });
});

describe('stored datetimes in the columns (D-84)', () => {
  it('have the instant the grammar gives them, canonical or not', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), (ms) => {
        const text = new Date(ms).toISOString();
        expect(numberOf('datetime', text)).toBe(instantOf(text));
      }),
      { numRuns: 2000, seed: 84 },
    );
    for (const text of ['2026-01-01T00:00:00Z', '2026-02-30T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-01-01T00:00:00.000+01:00', '1767225600']) {
      expect(numberOf('datetime', text), text).toBe(instantOf(text));
    }
  });
});

describe('nextUp: strict comparisons as inclusive ones (D-84)', () => {
  it('is the next double: x < nextUp(x) with nothing between, at zero, signs and the ends of the range', () => {
    for (const x of [0, -0, 1, -1, 0.1, -0.1, 1767225600000, -Number.MIN_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE]) {
      const up = nextUp(x);
      expect(up > x, String(x)).toBe(true);
      const middle = x / 2 + up / 2; // halves first: no overflow at the ends
      expect(middle === x || middle === up, `nothing between ${x} and ${up}`).toBe(true);
    }
    expect(nextUp(0)).toBe(Number.MIN_VALUE);
    expect(nextUp(-Number.MIN_VALUE)).toBe(-0);
    expect(nextUp(Number.MAX_VALUE)).toBe(Infinity);
    expect(nextUp(Infinity)).toBe(Infinity);
    expect(nextUp(NaN)).toBeNaN();
  });
});

describe('filter passes over hand-made columns (D-84)', () => {
  it('numeric sameas (equal, or both null) and null, in every byte of a mask word and in the tail', () => {
    const size = 4 * 7 + 3; // whole words and a tail
    const a = makeColumn('priority', 'integer', size + 1) as any;
    const b = makeColumn('status', 'integer', size + 1) as any;
    // (a, b) pairs: equal, different, both null, one null: each in every position of a word
    const pairs: Array<[number | null, number | null]> = [[1, 1], [1, 2], [null, null], [null, 3], [4, null]];
    for (let s = 0; s < size; s++) {
      const [x, y] = pairs[((s % 4) + Math.floor(s / 4)) % pairs.length]; // word w, byte j: pair (j + w) mod 5
      a.values[s] = x ?? NaN;
      b.values[s] = y ?? NaN;
    }
    const columns = new Map([['priority', a], ['status', b]]);
    const ctx = { column: (f: string) => columns.get(f), permutation: () => undefined, operators: spec.operators, size };
    for (const operator of ['sameas', 'notSameas']) {
      const mask = new Uint8Array(size + 1).fill(1);
      const clause: FilterClause = { field: 'priority', operator, type: 'integer', values: ['status'] };
      applyClause(mask, clause, ctx);
      const expected = Array.from({ length: size }, (_, s) => (matchesFilters({ priority: valueAt(a, s), status: valueAt(b, s) }, [clause], spec.operators) ? 1 : 0));
      expect(Array.from(mask.subarray(0, size)), operator).toEqual(expected);
      expect(mask[size], 'the byte past the slots is left alone').toBe(1);
      // the test of one slot that the scopes' counts of sameas keep (same-counts.ts) agrees with the pass
      const same = sameAsSlot(clause, a, b, spec.operators);
      expect(Array.from({ length: size }, (_, s) => (same(s) === (operator === 'sameas') ? 1 : 0)), `${operator} per slot`).toEqual(expected);
    }
    for (const operator of ['null', 'notNull']) {
      const mask = new Uint8Array(size + 1).fill(1);
      const clause: FilterClause = { field: 'priority', operator, type: 'integer', values: [] };
      applyClause(mask, clause, ctx);
      const expected = Array.from({ length: size }, (_, s) => (matchesFilters({ priority: valueAt(a, s) }, [clause], spec.operators) ? 1 : 0));
      expect(Array.from(mask.subarray(0, size)), operator).toEqual(expected);
    }
  });

  it('string sameas over dictionaries without a lookup: lengths that agree in their low byte, equal lengths, nulls, values added later', () => {
    const a = makeColumn('shortDescription', 'string', 64) as any;
    const b = makeColumn('description', 'string', 64) as any;
    a.index = null; // nearly distinct values: one value may have two codes, as in a large table
    b.index = null;
    const long = 'x'.repeat(300);
    // (a, b) pairs: equal, same length but different, lengths 256 apart (same low byte), both null, one null, empty
    const pairs: Array<[string | null, string | null]> = [['VPN', 'VPN'], ['Printer', 'printer'], ['y'.repeat(44), 'y'.repeat(300)], [null, null], [null, 'a'], ['', null], ['', ''], [long, long.slice(0)], ['😀', '😀'], ['e\u0301', 'é']];
    const fill = (from: number, to: number) => {
      for (let s = from; s < to; s++) {
        const [x, y] = pairs[s % pairs.length];
        a.codes[s] = codeOf(a, x);
        b.codes[s] = codeOf(b, y);
      }
    };
    const check = (size: number) => {
      const columns = new Map([['shortDescription', a], ['description', b]]);
      const ctx = { column: (f: string) => columns.get(f), permutation: () => undefined, operators: spec.operators, size };
      for (const operator of ['sameas', 'notSameas']) {
        const mask = new Uint8Array(size).fill(1);
        const clause: FilterClause = { field: 'shortDescription', operator, type: 'string', values: ['description'] };
        applyClause(mask, clause, ctx);
        const expected = Array.from({ length: size }, (_, s) => (matchesFilters({ shortDescription: valueAt(a, s), description: valueAt(b, s) }, [clause], spec.operators) ? 1 : 0));
        expect(Array.from(mask), `${operator} over ${size} slots`).toEqual(expected);
        expect(expected.includes(0) && expected.includes(1)).toBe(true);
        const same = sameAsSlot(clause, a, b, spec.operators);
        expect(Array.from({ length: size }, (_, s) => (same(s) === (operator === 'sameas') ? 1 : 0)), `${operator} per slot over ${size} slots`).toEqual(expected);
      }
    };
    fill(0, 30);
    check(30);
    // values added after the lengths were first measured are measured on the next use
    pairs.push(['later', 'later'], ['later!', 'later?']);
    fill(30, 60);
    check(60);
  });
});
