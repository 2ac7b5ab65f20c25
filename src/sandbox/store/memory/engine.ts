// In-memory column engine of the case lists (decision D-84). The store stays the store of record; this holds, per
// environment, the filterable and sortable fields of every case (read from the bundle: the cases list operation's
// filter and sort fields) in columns, with one sorted permutation per sortable field, and answers a list with the
// exact totalCount and the ids of its page, and the page's records as JSON text written from its columns (they hold
// every field; else the store reads the records by rowid).
//
// It never disagrees with the database: a write to cases is applied after it is committed, by reading the row back
// (writes inside a transaction are applied when the outermost one ends, committed or rolled back; until then lists
// are answered by SQL). It is filled at open: synchronously for a small table, else in slices between requests,
// with SQL answering until it is complete. It reads the cases through its port (source.ts), never the database itself.
// A table's structures are in table.ts; a list is planned and run from one in list.ts.
import { compareCodePoints } from '../../../grammar/compare.ts';
import type { ListQuery } from '../../../grammar/types.ts';
import type { CareSpec, ValueType } from '../../../spec/types.ts';
import type { Scope } from '../types.ts';
import { codeOf, codeBytes, numberOf, suffixOrderOf, textIndexOf, wordIndexOf } from './columns.ts';
import type { DictColumn } from './columns.ts';
import { compareOn, permComparator } from './order.ts';
import type { Permutation } from './order.ts';
import type { ListPlan, PlanOutcome } from './plan.ts';
import { pageWriter, writesBack } from './record-json.ts';
import { sortNumbers, sortSlots } from './sort-slots.ts';
import type { CaseRowSource } from './source.ts';
import { Footprint } from './footprint.ts';
import type { FootprintPart } from './footprint.ts';
import { BLOCK, REFILL_AT, LOAD_CHUNK, SLICE_MS, SYNC_LOAD_MAX } from './tuning.ts';
import { LITTLE_ENDIAN, Table } from './table.ts';
import type { FieldSource } from './table.ts';
import { planList, runPlan } from './list.ts';

/** Slots a fill-time permutation key can tell apart (rank x SLOT_SPAN + slot stays an exact double). */
const SLOT_SPAN = 2 ** 21;

export interface CaseMemoryOptions {
  /** `auto` (default): synchronously up to SYNC_LOAD_MAX cases, else in the background. */
  load?: 'auto' | 'sync' | 'background';
  /** Positions per block of the counts and bounds along a permutation (BLOCK; tests take small ones). */
  block?: number;
  /** The largest dictionary a scope counts per code (scope-counts.ts COUNTED_CODES; tests take small ones). */
  countedCodes?: number;
}

export interface EngineAnswer {
  totalCount: number;
  ids: string[];
  rowids: number[];
  json?: Buffer;
  plan: ListPlan;
  outcome: PlanOutcome;
}

export interface CaseMemory {
  /**
   * The exact count, the page's ids with their rowids, the plan it followed and, when the columns hold every field
   * exactly, its records as the UTF-8 bytes of a JSON array (else they are read by rowid, one lookup each); or why SQL
   * must answer (not filled yet, an open transaction...).
   */
  list(env: string, scope: Scope, query: ListQuery): EngineAnswer | { refused: string };
  /** A statement wrote the case `id` (insert, update, remove). */
  touched(env: string, id: string): void;
  /** The outermost transaction ended (committed or rolled back): apply what it touched as the database now has it. */
  settle(): void;
  /** Filled and current. */
  ready(): boolean;
  /** Resolves when filled. */
  whenReady(): Promise<void>;
  /** What its structures hold, per part (footprint.ts; bench/sandbox-memory.ts prints it). */
  footprint(): FootprintPart[];
  close(): void;
}


function probeOf(probe: DictColumn, a: number, b: number): DictColumn {
  probe.codes[0] = a;
  probe.codes[1] = b;
  return probe;
}

export function openCaseMemory(spec: CareSpec, source: CaseRowSource, options: CaseMemoryOptions = {}): CaseMemory {
  const recordFields = source.recordFields;
  // the fields of the cases list operations, as the bundle declares them
  const types = new Map<string, ValueType | undefined>([['id', 'string']]);
  // permutations: every sortable field, and every string filter field (its ranges are stretches of it)
  const sortedFields = new Set<string>(['id']);
  for (const op of spec.operations) {
    if (op.list?.itemSchema !== 'Case') continue;
    for (const f of Object.values(op.list.filterFields)) {
      types.set(f.name, f.type);
      if (f.type === 'string') sortedFields.add(f.name);
    }
    for (const f of op.list.sortFields) {
      sortedFields.add(f);
      if (!types.has(f)) types.set(f, undefined);
    }
  }
  const inRecord = new Set(recordFields);
  const fields: FieldSource[] = [...types].filter(([field]) => inRecord.has(field)).map(([field, type]) => ({ field, type }));
  const sorted = [...sortedFields].filter((f) => inRecord.has(f));
  // rows: [env, ...fields' values, customer organisation, rowid] (source.ts)
  const rows = source.reader(fields.map((f) => f.field));
  const operators = spec.operators;

  const tables = new Map<string, Table>();
  const tableOf = (env: string) => {
    let t = tables.get(env);
    if (!t) tables.set(env, (t = new Table(fields, sorted, options.block ?? BLOCK, options.countedCodes)));
    return t;
  };
  let filled = false;
  let closed = false;
  const pending: Array<[string, string]> = [];
  const waiters: Array<() => void> = [];

  /**
   * A row's values as the columns hold them (numbers; dictionary codes, adding new values; the id's text), or
   * undefined when one cannot be held exactly.
   */
  function encode(t: Table, row: unknown[]): Array<number | string> | undefined {
    const out: Array<number | string> = [];
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      const column = t.columns.get(f.field)!;
      const value = row[i + 1];
      if (column === t.id) {
        if (typeof value !== 'string') return undefined;
        out.push(value);
      } else if (column.kind === 'number') {
        const x = numberOf(f.type, value);
        if (x === undefined) return undefined;
        if (f.type === 'datetime' && typeof value === 'string' && !writesBack(value, x)) t.recordsExact = false;
        out.push(x);
      } else out.push(codeOf(column, value));
    }
    out.push(codeOf(t.customer, row[fields.length + 1]));
    out.push(Number(row[fields.length + 2]));
    return out;
  }

  function store(t: Table, slot: number, encoded: Array<number | string>): void {
    for (let i = 0; i < fields.length; i++) {
      const column = t.columns.get(fields[i].field)!;
      if (column === t.id) {
        const code = slot + 1; // ids are unique: slot + 1 is the id's own code
        t.id.dict[code] = encoded[i];
        t.id.index!.set(encoded[i] as string, code);
        t.id.codes[slot] = code;
      } else if (column.kind === 'number') column.values[slot] = encoded[i] as number;
      else column.codes[slot] = encoded[i] as number;
    }
    t.customer.codes[slot] = encoded[fields.length] as number;
    t.rowid[slot] = encoded[fields.length + 1] as number;
  }

  /** The permutations whose field's value differs between the slot and `encoded`. */
  function changedPermutations(t: Table, slot: number, encoded: Array<number | string>): Permutation[] {
    const out: Permutation[] = [];
    for (let i = 0; i < fields.length; i++) {
      const p = t.permutations.get(fields[i].field);
      if (!p) continue;
      const column = t.columns.get(fields[i].field)!;
      const now = column.kind === 'number' ? column.values[slot] : column === t.id ? t.id.dict[slot + 1] : column.codes[slot];
      const next = encoded[i];
      if (!(now === next || (now !== now && next !== next))) out.push(p);
    }
    return out;
  }

  /** Append a row during the fill (rows arrive in id order: slot order is id order, and the rank is the slot). */
  function append(t: Table, row: unknown[]): void {
    const slot = t.size;
    t.ensureCapacity(slot + 1);
    const encoded = encode(t, row);
    if (!encoded) {
      t.broken = true;
      return;
    }
    store(t, slot, encoded);
    const id = t.id.dict[slot + 1] as string;
    if (slot > 0 && compareCodePoints(t.id.dict[slot] as string, id) >= 0) t.broken = true; // the store's order is not code point order
    t.idRank[slot] = slot;
    t.alive[slot] = 1;
    t.aliveCount++;
    t.size++;
  }

  function* fill(): Generator<void, void> {
    // each table sized once for the cases it will hold (the triggers' counts, exact): grown by doubling, the buffers
    // it outgrows stay with the allocator (RSS)
    for (const [env, n] of source.countsByEnv()) tableOf(env).ensureCapacity(n + (n >>> 5));
    const scan = rows.scan(LOAD_CHUNK);
    try {
      for (let step = scan.next(); !step.done; step = scan.next()) {
        for (const row of step.value) append(tableOf(row[0] as string), row);
        yield;
      }
    } finally {
      scan.return?.(); // a fill abandoned mid-scan (a refill, close) ends its scan
    }
    for (const t of tables.values()) {
      for (const p of t.permutations.values()) {
        // as long as the table's columns (the fill's room for new cases): grown by doubling at the first insert, the
        // permutations would take twice the room
        const sorted = yield* sortedAtFill(t, p);
        p.slots = new Uint32Array(t.capacity);
        p.slots.set(sorted);
        p.length = t.size;
        yield;
      }
      // a column of nearly all distinct values keeps no lookup (its memory), except the scope columns
      for (const column of t.columns.values()) {
        if (column.kind === 'dict' && column !== t.id && column.field !== 'contract' && t.size >= 10_000 && column.dict.length > t.size / 2) column.index = null;
        if (column.kind === 'dict' && column.type === 'string') {
          yield* textIndexOf(column).build();
          yield* wordIndexOf(column).build();
          yield* suffixOrderOf(column).build();
          codeBytes(column, 'lengths'); // measured here rather than by the first `sameas`
          codeBytes(column, 'plain'); // and here rather than by the first page
          yield;
        }
      }
    }
  }

  /**
   * A permutation at fill time. Slot order is id order then, so "by value, then slot" is the list order: each slot
   * gets its value's rank among the distinct values, rank x 2^21 + slot is sorted as plain numbers (native, no
   * comparator). Tables of 2^21 slots or more use the comparator.
   */
  function* sortedAtFill(t: Table, p: Permutation): Generator<void, Uint32Array> {
    const n = t.size;
    const slots = new Uint32Array(n);
    for (let s = 0; s < n; s++) slots[s] = s;
    const column = t.columns.get(p.field)!;
    if (column === t.id) return slots;
    if (n >= SLOT_SPAN) return yield* sortSlots(slots, permComparator(t.order, p));
    const rank = new Float64Array(n);
    if (column.kind === 'number') {
      // the values, sorted by the yielding merge sort (a Set of every datetime is one long step, which every
      // request arriving meanwhile would wait for); repeats stay: the lower bound below gives equal values
      // one rank, and ranks below n keep rank x SLOT_SPAN + slot exact
      const present = new Float64Array(n);
      let count = 0;
      for (let s = 0; s < n; s++) {
        if ((s & 0xffff) === 0) yield;
        const x = column.values[s];
        if (x === x) present[count++] = x;
      }
      const sorted = yield* sortNumbers(present.subarray(0, count));
      for (let s = 0; s < n; s++) {
        if ((s & 0xffff) === 0) yield;
        const x = column.values[s];
        if (x !== x) continue; // null first: rank 0
        let lo = 0;
        let hi = sorted.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (sorted[mid] < x) lo = mid + 1;
          else hi = mid;
        }
        rank[s] = lo + 1;
      }
    } else {
      let order: Uint32Array = new Uint32Array(column.dict.length - 1);
      for (let c = 1; c < column.dict.length; c++) order[c - 1] = c;
      yield;
      // the dictionary's values in the key's order (compareOn on two slots holding them)
      const type = p.type;
      const probe = { ...column, codes: new Uint32Array(2) };
      const dict = column.dict;
      order = yield* sortSlots(
        order,
        column.allStrings && (type === 'string' || type === undefined)
          ? (x, y) => compareCodePoints(dict[x] as string, dict[y] as string) // compareOn of two strings
          : (x, y) => compareOn(probeOf(probe, x, y), type, 0, 1),
      );
      yield;
      const rankOfCode = new Float64Array(column.dict.length);
      let r = 0;
      for (let i = 0; i < order.length; i++) {
        if ((i & 0xffff) === 0) yield;
        if (i === 0 || (dict[order[i - 1]] !== dict[order[i]] && compareOn(probeOf(probe, order[i - 1], order[i]), type, 0, 1) !== 0)) r++;
        rankOfCode[order[i]] = r;
      }
      for (let s = 0; s < n; s++) rank[s] = rankOfCode[column.codes[s]];
    }
    yield;
    let keys: Float64Array = new Float64Array(n);
    for (let s = 0; s < n; s++) keys[s] = rank[s] * SLOT_SPAN + s;
    keys = yield* sortNumbers(keys);
    for (let i = 0; i < n; i++) slots[i] = keys[i] % SLOT_SPAN;
    return slots;
  }

  function finish(): void {
    filled = true;
    settle();
    for (const w of waiters.splice(0)) w();
  }

  /** Apply the database's current row of `id` (none: the case is gone). */
  function refresh(env: string, id: string): void {
    const t = tableOf(env);
    if (t.broken) return;
    const row = rows.row(env, id);
    const code = t.id.index!.get(id);
    const slot = code === undefined ? undefined : code - 1;
    if (!row) {
      if (slot === undefined) return;
      for (const p of t.permutations.values()) t.takeOut(p, slot);
      t.unscope(slot, null);
      t.alive[slot] = 0;
      t.aliveCount--;
      t.rescope(slot, null);
      t.id.index!.delete(id);
      return;
    }
    if (slot !== undefined) {
      const encoded = encode(t, row);
      if (!encoded) {
        t.broken = true;
        return;
      }
      // out of a permutation while the old value is still there, back in with the new one
      const changed = changedPermutations(t, slot, encoded);
      for (const p of changed) t.takeOut(p, slot);
      // the slot stays where it is in the other permutations: its positions there are found once for the three
      const at = t.positions(slot);
      t.unscope(slot, changed, at);
      store(t, slot, encoded);
      t.rescope(slot, changed, at);
      t.rebound(slot, changed, at);
      for (const p of changed) t.putIn(p, slot);
      return;
    }
    const encoded = encode(t, row);
    if (!encoded) {
      t.broken = true;
      return;
    }
    const fresh = t.size;
    t.ensureCapacity(fresh + 1);
    store(t, fresh, encoded);
    t.size++;
    t.alive[fresh] = 1;
    t.aliveCount++;
    t.rescope(fresh, null);
    // rank between the neighbours in id order (equal ranks fall back to comparing the ids)
    const byId = t.permutations.get('id')!;
    let lo = 0;
    let hi = byId.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareCodePoints(t.id.dict[byId.slots[mid] + 1] as string, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    const before = lo > 0 ? t.idRank[byId.slots[lo - 1]] : undefined;
    const after = lo < byId.length ? t.idRank[byId.slots[lo]] : undefined;
    t.idRank[fresh] = before === undefined ? (after === undefined ? 0 : after - 1) : after === undefined ? before + 1 : before + (after - before) / 2;
    for (const p of t.permutations.values()) t.putIn(p, fresh);
  }

  function settle(): void {
    if (!filled || source.writing()) return;
    let alive = 0;
    for (const t of tables.values()) alive += t.aliveCount;
    // a bulk write (seeding): filling again is cheaper than placing each row in every permutation
    if (pending.length > Math.max(REFILL_AT, alive / 20)) return start();
    while (pending.length > 0) {
      const [env, id] = pending.shift()!;
      refresh(env, id);
    }
  }

  const mode = options.load ?? 'auto';
  /** Moves with every (re)start of the fill: a slice of an abandoned fill stops. */
  let generation = 0;
  /** The fill running, until it is done. */
  let filling: Generator<void, void> | undefined;
  function start(): void {
    const mine = ++generation;
    filling?.return();
    tables.clear();
    filled = false;
    pending.length = 0;
    const count = mode === 'auto' ? source.maxCases() : 0;
    const run = (filling = fill());
    if (mode === 'sync' || (mode === 'auto' && count <= SYNC_LOAD_MAX)) {
      while (!run.next().done);
      return finish();
    }
    const slice = () => {
      if (closed || generation !== mine) return;
      const started = performance.now();
      while (performance.now() - started < SLICE_MS) {
        if (run.next().done) return finish();
      }
      setImmediate(slice);
    };
    setImmediate(slice);
  }
  start();

  return {
    list(env, scope, query) {
      if (!LITTLE_ENDIAN) return { refused: 'a big-endian machine (the passes read masks as little-endian words)' };
      if (!filled) return { refused: 'still filling' };
      if (pending.length > 0 || source.writing()) return { refused: 'inside a transaction' };
      const t = tableOf(env);
      if (t.broken) return { refused: 'a case it cannot hold exactly (an id out of code point order, a value of another type)' };
      const scopeColumn = scope.by === 'customerOrg' ? t.customer : scope.by === 'contract' ? t.columns.get('contract') : undefined;
      if (!scopeColumn || scopeColumn.kind !== 'dict' || !scopeColumn.index) return { refused: `a scope by ${scope.by}` };
      for (const f of query.filters) if (!t.columns.has(f.field)) return { refused: `a filter on ${f.field}, which it does not hold` };
      for (const k of query.sort) if (!t.columns.has(k.field)) return { refused: `a sort by ${k.field}, which it does not hold` };
      const planned = planList(t, scopeColumn, scope, query, operators);
      const { slots, outcome } = runPlan(t, planned);
      const { plan } = planned;
      if (t.writer === undefined) t.writer = pageWriter(recordFields, (field) => t.columns.get(field)) ?? null;
      const json = t.recordsExact && t.writer ? t.writer(slots) : undefined;
      return { totalCount: plan.totalCount, ids: slots.map((s) => t.id.dict[t.id.codes[s]] as string), rowids: slots.map((s) => t.rowid[s]), json, plan, outcome };
    },
    touched(env, id) {
      pending.push([env, id]);
      settle();
    },
    settle,
    ready: () => filled && pending.length === 0,
    whenReady: () => (filled ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
    footprint() {
      // owners first: a column's dictionary before the text indexes that read it, the columns before the scopes,
      // bounds and counts that hold them as keys
      const f = new Footprint();
      for (const t of tables.values()) {
        f.add('per slot: alive, id rank, rowid', [t.alive, t.idRank, t.rowid]);
        f.add('per slot: the mask and matches of a list', [t.mask, t.matched]);
        const columns = [...t.columns.values(), t.customer];
        for (const c of columns) f.add(`column ${c.field}`, c.kind === 'number' ? c.values : c.codes);
        for (const p of t.permutations.values()) f.add(`permutation ${p.field}`, p.slots);
        for (const c of columns) {
          if (c.kind !== 'dict') continue;
          f.add(`dictionary ${c.field}`, c.dict);
          f.add(`dictionary lookup ${c.field}`, c.index);
          f.add(`text index ${c.field}`, c.text);
          f.add(`word index ${c.field}`, c.words);
          f.add(`backwards order ${c.field}`, c.suffixes);
          f.add(`bytes per code ${c.field}`, [c.lengths, c.plain]);
        }
        f.add('scope masks and their counts', [...t.scopes.values()]);
        f.add('sameas pairs of the table', t.sames);
        f.add('zone bounds', t.zoneBounds);
        f.add('page writer', t.writer);
      }
      return f.parts();
    },
    close() {
      closed = true;
      filling?.return();
    },
  };
}
