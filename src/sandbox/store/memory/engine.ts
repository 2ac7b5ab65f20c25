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
import { compareCodePoints } from '../../../grammar/compare.ts';
import type { FilterClause, ListQuery } from '../../../grammar/types.ts';
import type { CareSpec, ValueType } from '../../../spec/types.ts';
import type { Scope } from '../types.ts';
import { codeOf, growColumn, codeBytes, isNullAt, makeColumn, numberOf, suffixOrderOf, textIndexOf, wordIndexOf } from './columns.ts';
import type { DictColumn, MemoryColumn } from './columns.ts';
import { applyClause, countMask } from './filter.ts';
import { SameCounts, sameCounted } from './same-counts.ts';
import type { FilterContext } from './filter.ts';
import { compareOn, insertIntoPermutation, permComparator, positionOf, removeFromPermutation } from './order.ts';
import type { OrderContext, Permutation, Stretch } from './order.ts';
import { pageSlots } from './page.ts';
import type { ClauseWay, ListPlan } from './plan.ts';
import { pageWriter, writesBack } from './record-json.ts';
import type { PageWriter } from './record-json.ts';
import { NON_NULLS, NULLS, ScopeCounts } from './scope-counts.ts';
import type { CountedClause } from './scope-counts.ts';
import { sortNumbers, sortSlots } from './sort-slots.ts';
import type { CaseRowSource } from './source.ts';
import { countStretch, markStretches, stretchAnswer, stretchTest, visitable, visitedSide } from './stretch-answer.ts';
import type { CountedStretch, StretchAnswer } from './stretch-answer.ts';
import { StretchCounts } from './stretch-counts.ts';
import { CodeBlockCounts, codeKey, integerKey, nullKey } from './code-block-counts.ts';
import { IN, MIXED, OUT, ZoneBounds } from './zone-bounds.ts';
import { Footprint } from './footprint.ts';
import type { FootprintPart } from './footprint.ts';
import { COUNTED, NONE, SOME } from './zone-walk.ts';
import type { Zones } from './zone-walk.ts';
import { BLOCK, BUCKET_COUNTS_AFTER, CODE_BLOCK_CODES, COUNTED_WALK_SHARE, INTEGER_KEYS, REFILL_AT, LOAD_CHUNK, SCOPE_MASKS, SKIP_WALK_COST, SLICE_MS, SYNC_LOAD_MAX, ZONED_WALK_BLOCKS } from './tuning.ts';

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

/** The alive slots of one account scope (a scope column and its values), kept current by every write. */
interface ScopeMask {
  column: DictColumn;
  values: ReadonlySet<string>;
  /** 1 for an alive slot whose scope value is one of `values`. */
  bits: Uint8Array;
  /** How many 1s `bits` holds: the totalCount of a list without filters. */
  count: number;
  /** Its slots per value of the few-valued columns: a list with one clause there is counted from them. */
  counts: ScopeCounts;
  /** Its slots per block of a permutation's positions (made on first use): a long stretch is counted from them. */
  stretchCounts: Map<Permutation, StretchCounts>;
  /** Its slots where two columns are the same, per pair a `sameas` list compared (made on first use). */
  sames: SameCounts;
  /**
   * Its slots per code of a few-valued column, per small integer, or per null and not, per block of a permutation's
   * positions (made on first use).
   */
  codeBlocks: Map<Permutation, Map<string, CodeBlockCounts>>;
  /** How often counts per block were asked for and not made yet (codeBlocksOf `after`). */
  codeBlockAsks: Map<string, number>;
}

interface FieldSource {
  field: string;
  type: ValueType | undefined;
}

/** The filter passes read a mask four slots per 32-bit word, slot s in byte s & 3 (filter.ts). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

class Table {
  size = 0;
  capacity = 0;
  alive = new Uint8Array(0);
  aliveCount = 0;
  idRank = new Float64Array(0);
  /** The row's rowid in the store (source.ts): the store reads a page's records by it when the columns cannot. */
  rowid = new Float64Array(0);
  columns = new Map<string, MemoryColumn>();
  customer: DictColumn;
  id: DictColumn;
  permutations = new Map<string, Permutation>();
  /** A value the engine cannot hold exactly was met: SQL answers this environment's lists. */
  broken = false;
  mask = new Uint8Array(0);
  matched = new Uint32Array(0);
  order: OrderContext;
  /** Scope masks by scope, least recently used first: a list starts from a copy instead of a pass over the slots. */
  scopes = new Map<string, ScopeMask>();
  /** Every datetime held writes back as its stored text: the records can be written from the columns. */
  recordsExact = true;
  /** Writes a page's records, when the columns hold every field (made on first use). */
  writer: PageWriter | null | undefined;
  /** The alive slots where two columns are the same, per pair a `sameas` list compared. */
  sames = new SameCounts();
  /** Per permutation, the bounds of other columns' values in its blocks (made on first use). */
  zoneBounds = new Map<Permutation, Map<MemoryColumn, ZoneBounds>>();

  constructor(
    fields: FieldSource[],
    sorted: string[],
    readonly block: number,
    private readonly countedCodes: number | undefined,
  ) {
    for (const f of fields) this.columns.set(f.field, makeColumn(f.field, f.type, 0));
    this.customer = makeColumn('customerOrg', 'string', 0) as DictColumn;
    this.id = this.columns.get('id') as DictColumn;
    for (const field of sorted) this.permutations.set(field, { field, type: fields.find((f) => f.field === field)!.type, slots: new Uint32Array(0), length: 0 });
    const table = this;
    this.order = {
      column: (field) => table.columns.get(field)!,
      get idRank() {
        return table.idRank;
      },
      id: this.id,
    };
  }

  ensureCapacity(needed: number): void {
    if (needed <= this.capacity) return;
    // a multiple of 4: masks are also read as 32-bit words (countMask)
    const capacity = Math.ceil(Math.max(1024, needed, this.capacity * 2) / 4) * 4;
    for (const c of [...this.columns.values(), this.customer]) growColumn(c, capacity);
    const grow = <T extends Uint8Array | Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a as any);
      return b;
    };
    this.alive = grow(this.alive, (n) => new Uint8Array(n));
    this.idRank = grow(this.idRank, (n) => new Float64Array(n));
    this.rowid = grow(this.rowid, (n) => new Float64Array(n));
    this.mask = new Uint8Array(capacity);
    this.matched = new Uint32Array(capacity);
    for (const scoped of this.scopes.values()) scoped.bits = grow(scoped.bits, (n) => new Uint8Array(n));
    this.capacity = capacity;
  }

  /** The mask of the scope `values` of `column`, made on first use and then kept current by `rescope`. */
  scopeMask(column: DictColumn, values: readonly string[]): ScopeMask {
    const key = `${column.field}\u0000${[...values].sort().join('\u0000')}`;
    let scoped = this.scopes.get(key);
    if (scoped) this.scopes.delete(key); // re-inserted below: most recently used last
    else {
      const inScope = new Uint8Array(column.dict.length);
      for (const v of values) {
        const code = column.index!.get(v);
        if (code !== undefined) inScope[code] = 1;
      }
      const bits = new Uint8Array(this.capacity);
      fillScopeMask(bits, this.alive, inScope, column.codes, this.size);
      scoped = { column, values: new Set(values), bits, count: countMask(bits, this.size), counts: new ScopeCounts(this.columns.values(), this.id, bits, this.size, this.countedCodes), stretchCounts: new Map(), sames: new SameCounts(), codeBlocks: new Map(), codeBlockAsks: new Map() };
      if (this.scopes.size >= SCOPE_MASKS) this.scopes.delete(this.scopes.keys().next().value!);
    }
    this.scopes.set(key, scoped);
    return scoped;
  }

  /**
   * A slot is about to be written (values, alive): its values leave the table's counts and those of its scopes.
   * `moved`: as for rescope; `at`: the slot's positions (one `positions` for the write's three calls).
   */
  unscope(slot: number, moved: readonly Permutation[] | null, at = this.positions(slot)): void {
    if (this.alive[slot] === 1) this.sames.leave(slot);
    for (const scoped of this.scopes.values()) {
      if (scoped.bits[slot] === 0) continue;
      scoped.counts.leave(slot);
      scoped.sames.leave(slot);
      for (const [p, byColumn] of scoped.codeBlocks) if (moved && !moved.includes(p)) for (const counts of byColumn.values()) counts.changed(at(p), slot, -1);
    }
  }

  /** The slot's position in a permutation it was not taken out of (found once per write and permutation). */
  positions(slot: number): (p: Permutation) => number {
    const found = new Map<Permutation, number>();
    return (p) => {
      let at = found.get(p);
      if (at === undefined) found.set(p, (at = positionOf(this.order, p, slot)));
      return at;
    };
  }

  /**
   * A slot was written (values, alive): every kept scope mask learns whether it is in its scope now, and counts it.
   * `moved`: the permutations the slot was taken out of for the write (put back after it); null: it is in none
   * (inserted or removed).
   */
  rescope(slot: number, moved: readonly Permutation[] | null, at = this.positions(slot)): void {
    if (this.alive[slot] === 1) this.sames.enter(slot);
    for (const scoped of this.scopes.values()) {
      const { column, values, bits } = scoped;
      const value = column.dict[column.codes[slot]];
      const bit = this.alive[slot] === 1 && typeof value === 'string' && values.has(value) ? 1 : 0;
      const delta = bit - bits[slot];
      scoped.count += delta;
      bits[slot] = bit;
      if (bit === 1) {
        scoped.counts.enter(slot);
        scoped.sames.enter(slot);
        for (const [p, byColumn] of scoped.codeBlocks) if (moved && !moved.includes(p)) for (const counts of byColumn.values()) counts.changed(at(p), slot, 1);
      }
      if (delta !== 0 && moved) for (const [p, counts] of scoped.stretchCounts) if (!moved.includes(p)) counts.changed(at(p), delta);
    }
  }

  /** Take a slot out of a permutation, before its values change (the scopes' block counts follow). */
  takeOut(p: Permutation, slot: number): void {
    const at = removeFromPermutation(this.order, p, slot);
    for (const scoped of this.scopes.values()) {
      scoped.stretchCounts.get(p)?.removed(at, scoped.bits[slot]);
      for (const counts of scoped.codeBlocks.get(p)?.values() ?? []) counts.removed(at, slot, scoped.bits[slot]);
    }
    for (const bounds of this.zoneBounds.get(p)?.values() ?? []) bounds.removed(at);
  }

  /** Put a slot into a permutation, after its values and scopes are written. */
  putIn(p: Permutation, slot: number): void {
    const at = insertIntoPermutation(this.order, p, slot);
    for (const scoped of this.scopes.values()) {
      scoped.stretchCounts.get(p)?.inserted(at, scoped.bits[slot]);
      for (const counts of scoped.codeBlocks.get(p)?.values() ?? []) counts.inserted(at, slot);
    }
    for (const bounds of this.zoneBounds.get(p)?.values() ?? []) bounds.inserted(at);
  }

  /** A slot's values were written in place, in the permutations it was not taken out of: their bounds hold them. */
  rebound(slot: number, moved: readonly Permutation[], at = this.positions(slot)): void {
    for (const [p, byColumn] of this.zoneBounds) {
      if (moved.includes(p)) continue;
      for (const bounds of byColumn.values()) bounds.changed(at(p), slot);
    }
  }

  /**
   * The scope's counts per key of a column (null or not; the codes of a dictionary column; the small integers of an
   * integer column) per block of a permutation, made on first use (or once asked for `after` times); undefined until
   * then, and once broken.
   */
  codeBlocksOf(scoped: ScopeMask, p: Permutation, column: MemoryColumn, keys: 'nulls' | 'codes' | 'integers', after = 1): CodeBlockCounts | undefined {
    const byKey = this.blockCountsAlong(scoped, p);
    const key = `${column.field}\u0000${keys}`;
    let counts = byKey.get(key);
    if (!counts && !askedEnough(scoped, `${p.field}\u0000${key}`, after)) return undefined;
    if (!counts) {
      const [keyOf, width] =
        keys === 'codes' && column.kind === 'dict' ? [codeKey(column), column.dict.length]
        : keys === 'integers' && column.kind === 'number' ? [integerKey(column), INTEGER_KEYS + 2]
        : [nullKey(column), 2];
      byKey.set(key, (counts = new CodeBlockCounts(p, keyOf, width, () => scoped.bits, this.block)));
    }
    if (!counts.broken) return counts;
    byKey.delete(key);
    return undefined;
  }

  /**
   * The scope's counts per block of a permutation of the slots where a pair of columns is the same (1) and not (0),
   * made on first use.
   */
  sameBlocksOf(scoped: ScopeMask, p: Permutation, same: NonNullable<CountedClause['same']>): CodeBlockCounts {
    const byKey = this.blockCountsAlong(scoped, p);
    const key = `${same.key}\u0000same`;
    let counts = byKey.get(key);
    if (!counts) byKey.set(key, (counts = new CodeBlockCounts(p, (slot) => same.bits()[slot], 2, () => scoped.bits, this.block)));
    return counts;
  }

  /** The scope's counts per key and block along a permutation, by what they count (every write keeps them). */
  private blockCountsAlong(scoped: ScopeMask, p: Permutation): Map<string, CodeBlockCounts> {
    let byKey = scoped.codeBlocks.get(p);
    if (!byKey) scoped.codeBlocks.set(p, (byKey = new Map()));
    return byKey;
  }

  /** The bounds of `column` along a permutation, made on first use. */
  zoneBoundsOf(p: Permutation, column: MemoryColumn): ZoneBounds {
    let byColumn = this.zoneBounds.get(p);
    if (!byColumn) this.zoneBounds.set(p, (byColumn = new Map()));
    let bounds = byColumn.get(column);
    if (!bounds) byColumn.set(column, (bounds = new ZoneBounds(p, column, this.block)));
    return bounds;
  }

  /** The scope's block counts along a permutation, made on first use. */
  stretchCountsOf(scoped: ScopeMask, p: Permutation): StretchCounts {
    let counts = scoped.stretchCounts.get(p);
    if (!counts) scoped.stretchCounts.set(p, (counts = new StretchCounts(p, () => scoped.bits, this.block)));
    return counts;
  }

  /** As stretchCountsOf, made once asked for `after` times; undefined until then. */
  stretchCountsAfter(scoped: ScopeMask, p: Permutation, after: number): StretchCounts | undefined {
    if (!scoped.stretchCounts.has(p) && !askedEnough(scoped, `${p.field}\u0000scope`, after)) return undefined;
    return this.stretchCountsOf(scoped, p);
  }
}

/**
 * One clause of one stretch counted from the scope's block counts along its permutation, with its page walked testing
 * each slot, or undefined when that walk is expected to be long (then the passes). The walk is estimated from the
 * stretch's length and the scope's share of the slots before the counts are made (on a scope's first such list), so a
 * list that will not use them does not make them. With `zoned` (a page sorted by another field), the walk skips
 * blocks and is bounded by the blocks it may test, and is taken up to the larger zoned share.
 */
function blockCounted(t: Table, scoped: ScopeMask, answer: StretchAnswer, one: FilterClause, query: ListQuery, zoned?: ZonedWalk): (CountedStretch & { budget: number; zoned?: ZonedWalk }) | undefined {
  if (answer.stretches.length !== 1) return undefined;
  const column = t.columns.get(one.field)!;
  const { from, to } = answer.stretches[0];
  const bySelf = !answer.negated && query.sort.length === 1 && query.sort[0].field === one.field;
  const walked = (total: number) => Math.min(expectedWalk(query, total, bySelf ? to - from : t.aliveCount), zoned?.walk() ?? Infinity);
  const test = stretchTest(answer.permutation, column, from, to, permComparator(t.order, answer.permutation));
  const zonedLimit = t.size * COUNTED_WALK_SHARE.zoned;
  const limit = test.byValue && zoned && zoned.walk() <= zonedLimit ? zonedLimit : t.size * COUNTED_WALK_SHARE[test.byValue ? 'byValue' : 'byComparator'];
  if (walked(expectedTotal(answer, scoped, t)) > limit) return undefined;
  const counted = countStretch(answer, test, t.stretchCountsOf(scoped, answer.permutation), scoped.bits);
  return walked(counted.total) > limit ? undefined : { ...counted, budget: limit, zoned };
}

/** Counts per block asked for once more: have they now been asked for `after` times (1: on first use)? */
function askedEnough(scoped: ScopeMask, key: string, after: number): boolean {
  if (after <= 1) return true;
  const asks = (scoped.codeBlockAsks.get(key) ?? 0) + 1;
  scoped.codeBlockAsks.set(key, asks);
  return asks >= after;
}

/** A page's walk along the sort key's permutation skipping blocks (zone-walk.ts), and the slots it tests at most. */
interface ZonedWalk {
  /** Slots the walk tests at most. */
  walk(): number;
  /** The blocks, their matches counted from the scope's counts along that permutation. */
  zones(): Zones;
  /**
   * The blocks where no slot matches, for a walk that tests the other slots in the mask of the matches (after the
   * stretch was marked, or the pass made): needs no counts. Undefined when the walk is not expected to pass three
   * times more slots than it tests (SKIP_WALK_COST), the matches spread evenly over the blocks that may hold some.
   */
  skips(total: number): Zones | undefined;
}

/**
 * One clause of one stretch, a page sorted by another field: the blocks of that field's permutation where no value,
 * or every non-null value, is in the stretch, from the bounds of the clause's column there (zone-bounds.ts). Such a
 * block's matches are its in-scope slots (the scope's block counts), or its in-scope nulls or non-nulls from the
 * scope's counts of nulls per block (code-block-counts.ts) when it may hold a null. A stretch that starts with the
 * nulls (`empty`, `null` among others) has its non-null part bounded, and its nulls counted alike. The walk tests
 * the blocks of some matches at most, and the part of a block the page takes.
 */
function zonedWalk(t: Table, scoped: ScopeMask, answer: StretchAnswer, one: FilterClause, query: ListQuery): ZonedWalk | undefined {
  if (answer.stretches.length !== 1 || query.sort.length !== 1) return undefined;
  const along = t.permutations.get(query.sort[0].field);
  const column = t.columns.get(one.field)!;
  if (!along || along === answer.permutation || (column.kind === 'dict' && !(column.type === 'string' && column.allStrings))) return undefined;
  const { from, to } = answer.stretches[0];
  if (to <= from) return undefined;
  const { slots } = answer.permutation;
  // the nulls lead the permutation: the stretch's non-null part starts after those it holds
  const nonNull = firstNonNull(column, slots, from, to);
  const nullsIn = nonNull > from;
  const bounds = t.zoneBoundsOf(along, column);
  const { block } = t;
  const blocks = Math.ceil(along.length / block);
  const raw = nonNull < to ? bounds.kinds(slots[nonNull], slots[to - 1], blocks) : new Uint8Array(blocks).fill(OUT);
  if (!raw) return undefined;
  const { negated } = answer;
  const kinds = new Uint8Array(blocks);
  const which = new Uint8Array(blocks);
  let some = 0;
  let nulls = false;
  for (let k = 0; k < blocks; k++) {
    [kinds[k], which[k]] = raw[k] === MIXED ? [SOME, ALL] : blockMatches((raw[k] === IN) !== negated, nullsIn !== negated, bounds.mayHoldNull(k));
    some += kinds[k] === SOME ? 1 : 0;
    nulls ||= kinds[k] === COUNTED && which[k] !== ALL;
  }
  const walk = () => (some + 2) * block + (query.page.size * t.aliveCount) / Math.max(scoped.count, 1);
  return {
    walk,
    zones: () => {
      const counts = t.stretchCountsOf(scoped, along);
      // counts of nulls are never broken (two keys)
      const nullCounts = nulls ? t.codeBlocksOf(scoped, along, column, 'nulls') : undefined;
      const matches = (k: number) => {
        if (which[k] === ALL) return counts.count(k * block, Math.min((k + 1) * block, along.length));
        return nullCounts!.matches(k, which[k] === ONLY_NULLS ? NULLS : NON_NULLS);
      };
      return { block, kinds, matches, cost: walk() };
    },
    skips: (total) => {
      // the blocks the walk is expected to pass (from the end page.ts walks from), the matches spread evenly over the
      // blocks that may hold some
      const { needed: matches, ascending } = pageWalk(query, total);
      let open = 0;
      for (let k = 0; k < blocks; k++) open += kinds[k] === NONE ? 0 : 1;
      const needed = (open * matches) / Math.max(total, 1);
      let passed = 0;
      let tested = 0;
      for (let i = 0; i < blocks && tested < needed; i++, passed++) tested += kinds[ascending ? i : blocks - 1 - i] === NONE ? 0 : 1;
      if (tested * SKIP_WALK_COST >= passed) return undefined;
      const skipping = kinds.map((kind) => (kind === NONE ? NONE : SOME));
      return { block, kinds: skipping, matches: () => 0, cost: (tested + 2) * block };
    },
  };
}

/** Which in-scope slots of a block match, when they are counted (zonedWalk). */
const ALL = 0;
const ONLY_NULLS = 1;
const ONLY_NON_NULLS = 2;

/**
 * A block's kind and which of its slots match, for a block whose non-null values are all matches (`valuesMatch`) or
 * none, with its nulls matches or not (`nullsMatch`).
 */
function blockMatches(valuesMatch: boolean, nullsMatch: boolean, mayHoldNull: boolean): [number, number] {
  if (!mayHoldNull || valuesMatch === nullsMatch) return valuesMatch ? [COUNTED, ALL] : [NONE, ALL];
  return [COUNTED, valuesMatch ? ONLY_NON_NULLS : ONLY_NULLS];
}

/** The first position in [from, to) of a permutation (nulls first) whose slot's value is not null; `to` if none. */
function firstNonNull(column: MemoryColumn, slots: Uint32Array, from: number, to: number): number {
  let [lo, hi] = [from, to];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isNullAt(column, slots[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One clause counted per value of a few-valued dictionary column, a `null` test counted per scope (scope-counts.ts),
 * or `sameas` on a pair kept as a mask (same-counts.ts), a page sorted by one field: each block of that field's
 * permutation counted from the scope's counts per code (of nulls, of same slots) there, so the walk skips the blocks
 * before the page and tests the slots of about one block and the page's own; a page whose plain walk is short walks
 * it (ZONED_WALK_BLOCKS).
 */
function codeZones(t: Table, scoped: ScopeMask, counted: CountedClause, query: ListQuery): Zones | undefined {
  const along = query.sort.length === 1 ? t.permutations.get(query.sort[0].field) : undefined;
  const { codes, same } = counted;
  if (!along || !(codes || same) || tooManyCodesForBlocks(counted)) return undefined;
  if (expectedWalk(query, counted.total, t.aliveCount) < ZONED_WALK_BLOCKS * t.block) return undefined;
  if (codes) {
    const counts = t.codeBlocksOf(scoped, along, codes.column, codes.nulls ? 'nulls' : 'codes');
    return counts && countedZones(t, along, (k) => counts.matches(k, codes.ok), query.page.size);
  }
  // `sameas`: a deep page of `priority sameas status` walked a large part of the table before these counts
  const ok = new Uint8Array(2);
  ok[same!.wanted] = 1;
  const counts = t.sameBlocksOf(scoped, along, same!);
  return countedZones(t, along, (k) => counts.matches(k, ok), query.page.size);
}

/**
 * Is the clause on a dictionary column of too many codes to count per block (codeZones)? Its page is then walked
 * within a budget of slots, past which a pass over the codes and a walk through the mask are cheaper.
 */
function tooManyCodesForBlocks(counted: CountedClause): boolean {
  const codes = counted.codes;
  return codes !== undefined && !codes.nulls && codes.column.kind === 'dict' && codes.column.dict.length > CODE_BLOCK_CODES;
}

/**
 * A list without filters sorted by a small integer (a status, a priority), then by one field: the bucket of one value
 * walked along that field's permutation, each block counted from the scope's counts per integer there, so a deep page
 * skips the blocks before it. The counts are made on the BUCKET_COUNTS_AFTER-th such list of the scope and field: making them is a
 * pass over the permutation reading two columns at random, several times the walk they save, worth it for a sort
 * that recurs (BUCKET_COUNTS_AFTER).
 */
function bucketZones(t: Table, scoped: ScopeMask, lead: string, value: number, last: string, size: number, walk: number): Zones | undefined {
  const along = t.permutations.get(last);
  const column = t.columns.get(lead);
  if (!along || column?.kind !== 'number' || !(value >= 0 && value < INTEGER_KEYS) || walk < ZONED_WALK_BLOCKS * t.block) return undefined;
  const counts = t.codeBlocksOf(scoped, along, column, 'integers', BUCKET_COUNTS_AFTER);
  const ok = new Uint8Array(INTEGER_KEYS + 2);
  ok[value] = 1;
  return counts && countedZones(t, along, (k) => counts.matches(k, ok), size);
}

/**
 * A list without filters sorted by one field: each block of that field's permutation counted from the scope's block
 * counts there (stretch-counts.ts), so the walk skips the blocks holding none of the scope's cases and passes over
 * those before the page by their counts. A scope whose cases lie together at the far end of the sort (a customer whose
 * cases are all old, newest first; an account's contracts, sorted by contract descending) is otherwise walked past
 * the rest of the table. The counts are made on the BUCKET_COUNTS_AFTER-th such list of the scope and field, as bucketZones' are,
 * and used when a plain walk would pass more than ZONED_WALK_BLOCKS blocks (passedBlocks).
 */
function scopeZones(t: Table, scoped: ScopeMask, query: ListQuery): Zones | undefined {
  const along = query.filters.length === 0 && query.sort.length === 1 ? t.permutations.get(query.sort[0].field) : undefined;
  if (!along || along.length < ZONED_WALK_BLOCKS * t.block) return undefined;
  const counts = t.stretchCountsAfter(scoped, along, BUCKET_COUNTS_AFTER);
  if (!counts || passedBlocks(t, along, counts, scoped.count, query) <= ZONED_WALK_BLOCKS) return undefined;
  const zones = countedZones(t, along, (k) => counts.inBlock(k), query.page.size);
  // descending on a field of a few values (a contract, a status), the walk goes run by run, each counted: joined into
  // segments at block boundaries, the runs would make one segment walked whole
  const column = t.columns.get(along.field)!;
  const few = column.kind === 'dict' ? column.dict.length <= CODE_BLOCK_CODES : scoped.counts.integerCounts(column) !== undefined;
  if (query.sort[0].descending && few) zones.inRange = (from, to) => counts.count(from, to);
  return zones;
}

/**
 * The blocks a plain walk of the scope's `total` slots passes, from the end it starts at, to the page's last slot:
 * a walk of a few blocks is cheaper than skipping by counts (its loop reads the mask; a walk that skips calls a test).
 */
function passedBlocks(t: Table, along: Permutation, counts: StretchCounts, total: number, query: ListQuery): number {
  const { needed, ascending } = pageWalk(query, total);
  const blocks = Math.ceil(along.length / t.block);
  let seen = 0;
  let passed = 0;
  while (seen < needed && passed < blocks) seen += counts.inBlock(ascending ? passed++ : blocks - 1 - passed++);
  return passed;
}

/** Every block of a permutation counted: `inBlock(k)` matches in block k. */
function countedZones(t: Table, along: Permutation, inBlock: (k: number) => number, size: number): Zones {
  const blocks = Math.ceil(along.length / t.block);
  const matches = new Int32Array(blocks);
  const kinds = new Uint8Array(blocks);
  let total = 0;
  for (let k = 0; k < blocks; k++) {
    matches[k] = inBlock(k);
    kinds[k] = matches[k] > 0 ? COUNTED : NONE;
    total += matches[k];
  }
  return { block: t.block, kinds, matches: (k) => matches[k], cost: 2 * t.block + (size * t.aliveCount) / Math.max(total, 1) };
}

/** The matches of a one-stretch answer if the scope's slots spread evenly along its permutation. */
function expectedTotal(answer: StretchAnswer, scoped: ScopeMask, t: Table): number {
  const { from, to } = answer.stretches[0];
  const selected = answer.negated ? answer.permutation.length - (to - from) : to - from;
  return (selected * scoped.count) / Math.max(t.aliveCount, 1);
}

/**
 * Slots a page's walk is expected to visit when the list's `total` matches spread evenly along the `along` positions
 * it walks (from the nearer end, as page.ts does).
 */
function expectedWalk(query: ListQuery, total: number, along: number): number {
  const offset = (query.page.number - 1) * query.page.size;
  return (Math.max(0, Math.min(offset + query.page.size, total - offset)) * along) / Math.max(total, 1);
}

/**
 * A one-key page's walk as page.ts takes it among `total` matches: the matches it visits, from the nearer end of the
 * list, and whether that goes up the sort key's permutation.
 */
function pageWalk(query: ListQuery, total: number): { needed: number; ascending: boolean } {
  const offset = (query.page.number - 1) * query.page.size;
  const end = Math.min(total, offset + query.page.size);
  const back = total - offset < end;
  return { needed: back ? total - offset : end, ascending: query.sort[0].descending === back };
}

/** Thrown by a walk that spent its budget of slots (blockCounted): the list is then walked through the mask. */
const WALK_SPENT = Symbol('walk spent');

/** How a list's clauses will be answered, with what the chosen way needs (planClauses; the plan's first part). */
interface Clauses {
  way: ClauseWay;
  /** The list's one clause, for the ways that answer one. */
  one?: FilterClause;
  /** `scope counts`, `same counts`: the clause's total and its per-slot test. */
  counted?: CountedClause;
  /** The stretch ways (and `passes` of a clause that has stretches): the clause's stretches. */
  answer?: StretchAnswer;
  /** One stretch, a page sorted by another field: a walk of that field skipping blocks by the clause's bounds. */
  zoned?: ZonedWalk;
  /** `stretch block counts`: the total from the blocks, a per-slot test and the budget of its walk. */
  spanned?: CountedStretch & { budget: number; zoned?: ZonedWalk };
}

/**
 * The first way that applies: one clause counted (same counts, scope counts); one clause of stretches visited, unless
 * a zoned walk along the sort is shorter than the visit; one stretch counted from blocks when its page's walk is
 * short; else one pass per clause. Only counts are read here (no pass over the slots).
 */
function planClauses(t: Table, scoped: ScopeMask, query: ListQuery, ctx: FilterContext): Clauses {
  if (query.filters.length === 0) return { way: 'none' };
  if (query.filters.length > 1) return { way: 'passes' };
  const one = query.filters[0];
  const same = sameCounted(one, ctx, { alive: { bits: t.alive, count: t.aliveCount, sames: t.sames }, scope: scoped, scopes: t.scopes.values() }, t.mask);
  if (same) return { way: 'same counts', one, counted: same };
  const counted = scoped.counts.answer(one, ctx, scoped.bits, scoped.count);
  if (counted) return { way: 'scope counts', one, counted };
  const answer = stretchAnswer(one, ctx);
  if (!answer) return { way: 'passes', one };
  // one stretch, a page sorted by another field along which the matches lie together: walked skipping blocks, rather
  // than the stretch visited when that is longer
  const zoned = zonedWalk(t, scoped, answer, one, query);
  const zonedFirst = zoned && zoned.walk() < visitedSide(answer) && zoned.walk() <= t.size * COUNTED_WALK_SHARE.zoned;
  if (!zonedFirst && visitable(answer, t.size)) return { way: 'stretch visit', one, answer, zoned };
  // one stretch, both sides too long to visit: counted from the scope's blocks of the permutation when the page's
  // walk is short
  const spanned = blockCounted(t, scoped, answer, one, query, zoned);
  if (spanned) return { way: 'stretch block counts', one, answer, zoned, spanned };
  return { way: 'passes', one, answer, zoned };
}

/**
 * Answer the clauses as planned, then plan the page with the count and make it: the page's slots, and the plan as it
 * ran (a walk whose budget ran out says so).
 */
function runPlan(t: Table, scoped: ScopeMask, query: ListQuery, ctx: FilterContext & { stretches: Map<string, Stretch> }, c: Clauses, scope: ListPlan['scope']): { slots: number[]; plan: ListPlan } {
  const { mask, size } = t;
  const marked = c.answer && c.way === 'stretch visit' ? markStretches(c.answer, scoped.bits, scoped.count, mask, size, t.matched) : undefined;
  if (c.way === 'stretch visit' && !marked) throw new Error('a stretch planned to be visited was not');
  const within = marked?.within ?? c.spanned?.within;
  if (within) ctx.stretches.set(c.one!.field, within);
  /** The mask of the matches: the scope's, then one pass per clause. */
  const filterAll = () => {
    mask.set(scoped.bits.subarray(0, size));
    if (c.counted) c.counted.narrow(mask, size);
    else for (const clause of query.filters) applyClause(mask, clause, ctx);
  };
  // one clause on a counted column (or counted from blocks): its total from the counts, its page walked reading the
  // slots' values
  const unmasked = c.counted ?? c.spanned;
  let masked = !unmasked;
  if (!unmasked && !marked) filterAll();
  const total = unmasked ? unmasked.total : marked ? marked.total : query.filters.length === 0 ? scoped.count : countMask(mask, size);
  const count: ListPlan['count'] = c.way === 'none' ? 'scope' : c.way === 'passes' ? 'mask' : c.way;
  const plan: ListPlan = { scope, clauses: c.way, count, totalCount: total, test: 'mask', zones: 'none', page: { how: 'past the end' } };
  if (c.answer && c.way !== 'passes') plan.stretchOf = c.answer.permutation.field;
  const maskKeep = (s: number) => mask[s] === 1;
  let gathered: Uint32Array | undefined = marked?.matched;
  const matched = () => {
    if (!masked) {
      filterAll();
      masked = true;
    }
    return (gathered ??= t.matched.subarray(0, collect(mask, t.matched, size)));
  };
  const page = (keep: (s: number) => boolean, byMask: boolean, zones?: Zones) => {
    const made = pageSlots({
      ctx: t.order,
      permutation: (field) => t.permutations.get(field),
      keep,
      mask: byMask ? mask : undefined,
      slots: size,
      stretch: (field) => ctx.stretches.get(field),
      zones: (field) => (field === query.sort[0]?.field ? zones : undefined),
      integerCounts: query.filters.length === 0 ? (field) => scoped.counts.integerCounts(t.columns.get(field)) : undefined,
      bucketZones: query.filters.length === 0 ? (lead, value, last, walk) => bucketZones(t, scoped, lead, value, last, query.page.size, walk) : undefined,
      matched,
      total,
      alive: t.aliveCount,
      keys: query.sort,
      offset: (query.page.number - 1) * query.page.size,
      size: query.page.size,
    });
    plan.page = made.way;
    return made.slots;
  };
  // the mask of every match walked; one stretch's page sorted by another field skips the blocks holding no match
  const byMask = () => {
    if (!masked) filterAll();
    masked = true;
    const skips = c.zoned?.skips(total);
    const zones = skips ?? scopeZones(t, scoped, query);
    plan.test = 'mask';
    plan.zones = skips ? 'zone skips' : zones ? 'scope blocks' : 'none';
    return page(maskKeep, true, zones);
  };
  // a page walked skipping blocks by counts (per code, of nulls, of a `sameas` pair's same slots) needs no budget;
  // else a test per slot that reads more than a code, or a code of a many-valued column, is walked within a
  // budget of slots (one stretch counted from blocks, `sameas` counted per scope, tooManyCodesForBlocks)
  const zones = c.counted && codeZones(t, scoped, c.counted, query);
  const walkShare = c.counted && !zones ? (c.counted.walkShare ?? (tooManyCodesForBlocks(c.counted) ? COUNTED_WALK_SHARE.byValue : undefined)) : undefined;
  const budgeted = c.spanned ?? (walkShare !== undefined ? { keep: c.counted!.keep, budget: t.size * walkShare } : undefined);
  let slots: number[];
  if (!budgeted) {
    if (unmasked) {
      plan.test = 'values';
      plan.zones = zones ? 'code blocks' : 'none';
      slots = page(unmasked.keep, false, zones);
    } else slots = byMask();
  } else if (!c.spanned && expectedWalk(query, total, t.aliveCount) > budgeted.budget) slots = byMask();
  else {
    // the walk was estimated from the matches' share of the slots, but they may lie together in the walk's order
    // (a range of dates along ids given in date order): past its budget, the walk gives way to the passes and a
    // walk through the mask (a few times cheaper per slot)
    let { budget } = budgeted;
    const { keep } = budgeted;
    const bounded = c.spanned?.zoned?.zones();
    plan.test = 'values within a budget';
    plan.zones = bounded ? 'zone bounds' : 'none';
    try {
      slots = page(
        (s) => {
          if (--budget < 0) throw WALK_SPENT;
          return keep(s);
        },
        false,
        bounded,
      );
    } catch (error) {
      if (error !== WALK_SPENT) throw error;
      plan.fallback = 'budget spent: mask walk';
      slots = byMask();
    }
  }
  // zones offered to a page that was sorted, or walked within a stretch, were not used
  if (!(plan.page.how === 'walk' && plan.page.zones)) plan.zones = 'none';
  return { slots, plan };
}

/** mask[s] = alive and in scope. Small functions of typed arrays: the loops the engine runs most. */
function fillScopeMask(mask: Uint8Array, alive: Uint8Array, inScope: Uint8Array, codes: Uint32Array, size: number): void {
  for (let s = 0; s < size; s++) mask[s] = alive[s] & inScope[codes[s]];
}

/** The matching slots into `matched` (4 slots per 32-bit word: a word of 0s is skipped at once); their number. */
function collect(mask: Uint8Array, matched: Uint32Array, size: number): number {
  const words = new Uint32Array(mask.buffer, mask.byteOffset, mask.length >>> 2);
  let total = 0;
  const end = size >>> 2;
  for (let w = 0; w < end; w++) {
    if (words[w] === 0) continue;
    const s = w << 2;
    if (mask[s] === 1) matched[total++] = s;
    if (mask[s + 1] === 1) matched[total++] = s + 1;
    if (mask[s + 2] === 1) matched[total++] = s + 2;
    if (mask[s + 3] === 1) matched[total++] = s + 3;
  }
  for (let s = end << 2; s < size; s++) if (mask[s] === 1) matched[total++] = s;
  return total;
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
      const scoped = t.scopeMask(scopeColumn, scope.values);
      const stretches = new Map<string, Stretch>();
      const ctx: FilterContext & { stretches: Map<string, Stretch> } = { column: (field) => t.columns.get(field), permutation: (field) => t.permutations.get(field), operators, size: t.size, stretches, judged: new Map() };
      const clauses = planClauses(t, scoped, query, ctx);
      const { slots, plan } = runPlan(t, scoped, query, ctx, clauses, { by: scope.by, values: scope.values.length, cases: scoped.count });
      if (t.writer === undefined) t.writer = pageWriter(recordFields, (field) => t.columns.get(field)) ?? null;
      const json = t.recordsExact && t.writer ? t.writer(slots) : undefined;
      return { totalCount: plan.totalCount, ids: slots.map((s) => t.id.dict[t.id.codes[s]] as string), rowids: slots.map((s) => t.rowid[s]), json, plan };
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
