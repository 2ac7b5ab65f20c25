// Filling the engine's tables from its port (decision D-84): at open, synchronously for a small table, else in slices
// between requests, and again after a bulk write. The fill's state is a value (Fill): whether the tables are filled,
// who waits for it, the run in progress; the tables themselves are one Tables value per engine.
import { compareCodePoints } from '../../../grammar/compare.ts';
import { codeBytes, suffixOrderOf, textIndexOf, wordIndexOf } from './columns.ts';
import type { DictColumn } from './columns.ts';
import { compareOn, permComparator } from './order.ts';
import type { Permutation } from './order.ts';
import { encodeRow, storeRow } from './rows.ts';
import { sortNumbers, sortSlots } from './sort-slots.ts';
import type { CaseRow, CaseRowReader, CaseRowSource } from './source.ts';
import { LOAD_CHUNK, SLICE_MS, SYNC_LOAD_MAX } from './tuning.ts';
import { Table } from './table.ts';
import type { FieldSource } from './table.ts';

/** Slots a fill-time permutation key can tell apart (rank x SLOT_SPAN + slot stays an exact double). */
const SLOT_SPAN = 2 ** 21;

/** The engine's tables, one per environment, all of one layout: the fields held, those with a permutation, the sizes. */
export class Tables {
  private readonly byEnv = new Map<string, Table>();
  constructor(
    readonly fields: readonly FieldSource[],
    private readonly sorted: readonly string[],
    private readonly block: number,
    private readonly countedCodes: number | undefined,
  ) {}

  /** The table of an environment, made empty on first ask. */
  of(env: string): Table {
    let t = this.byEnv.get(env);
    if (!t) this.byEnv.set(env, (t = new Table([...this.fields], [...this.sorted], this.block, this.countedCodes)));
    return t;
  }

  values(): IterableIterator<Table> {
    return this.byEnv.values();
  }

  clear(): void {
    this.byEnv.clear();
  }
}

/** How the fill runs: `auto`, synchronously up to SYNC_LOAD_MAX cases, else in the background. */
export type LoadMode = 'auto' | 'sync' | 'background';

/**
 * The fill's state: whether the tables are filled, the run in progress (a restart abandons it) and who waits for the
 * end. `filled` is called when a run ends (the writes made meanwhile are then applied: update.ts).
 */
export class Fill {
  filled = false;
  private closed = false;
  /** Moves with every (re)start: a slice of an abandoned run stops. */
  private generation = 0;
  private running: Generator<void, void> | undefined;
  private readonly waiters: Array<() => void> = [];

  constructor(
    private readonly tables: Tables,
    private readonly source: CaseRowSource,
    private readonly rows: CaseRowReader,
    private readonly mode: LoadMode,
    private readonly onFilled: () => void,
  ) {}

  /** Empty the tables and fill them again (at open; after a bulk write). */
  start(): void {
    const mine = ++this.generation;
    this.running?.return();
    this.tables.clear();
    this.filled = false;
    const count = this.mode === 'auto' ? this.source.maxCases() : 0;
    const run = (this.running = fillTables(this.tables, this.source, this.rows));
    if (this.mode === 'sync' || (this.mode === 'auto' && count <= SYNC_LOAD_MAX)) {
      while (!run.next().done);
      return this.finish();
    }
    const slice = () => {
      if (this.closed || this.generation !== mine) return;
      const started = performance.now();
      while (performance.now() - started < SLICE_MS) {
        if (run.next().done) return this.finish();
      }
      setImmediate(slice);
    };
    setImmediate(slice);
  }

  whenReady(): Promise<void> {
    return this.filled ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.running?.return();
  }

  private finish(): void {
    this.filled = true;
    this.onFilled();
    for (const w of this.waiters.splice(0)) w();
  }
}

/**
 * Fill the tables from the row source's scan: each table sized once, rows appended in id order, then each permutation
 * sorted and each text index built, yielding between steps (a fill in slices lets requests in between).
 */
export function* fillTables(tables: Tables, source: CaseRowSource, rows: CaseRowReader): Generator<void, void> {
  // each table sized once for the cases it will hold (the triggers' counts, exact): grown by doubling, the buffers
  // it outgrows stay with the allocator (RSS)
  for (const [env, n] of source.countsByEnv()) tables.of(env).ensureCapacity(n + (n >>> 5));
  const scan = rows.scan(LOAD_CHUNK);
  try {
    for (let step = scan.next(); !step.done; step = scan.next()) {
      for (const row of step.value) append(tables.of(row[0] as string), tables.fields, row);
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

/** Append a row during the fill (rows arrive in id order: slot order is id order, and the rank is the slot). */
function append(t: Table, fields: readonly FieldSource[], row: CaseRow): void {
  const slot = t.size;
  t.ensureCapacity(slot + 1);
  const encoded = encodeRow(t, fields, row);
  if (!encoded) {
    t.broken = true;
    return;
  }
  storeRow(t, fields, slot, encoded);
  const id = t.id.dict[slot + 1] as string;
  if (slot > 0 && compareCodePoints(t.id.dict[slot] as string, id) >= 0) t.broken = true; // the store's order is not code point order
  t.idRank[slot] = slot;
  t.alive[slot] = 1;
  t.aliveCount++;
  t.size++;
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

function probeOf(probe: DictColumn, a: number, b: number): DictColumn {
  probe.codes[0] = a;
  probe.codes[1] = b;
  return probe;
}
