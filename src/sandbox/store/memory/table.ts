// One environment's cases as the column engine holds them (decision D-84): dense slots, a column per field,
// a sorted permutation per sortable field, the kept scope masks with their counts, and the structures made on first
// use per permutation (counts and bounds per block). engine.ts fills and updates it; list.ts answers lists from it.
import type { ValueType } from '../../../spec/types.ts';
import type { Scope } from '../types.ts';
import { growColumn, makeColumn } from './columns.ts';
import type { DictColumn, MemoryColumn } from './columns.ts';
import { countMask } from './filter.ts';
import { SameCounts } from './same-counts.ts';
import { insertIntoPermutation, positionOf, removeFromPermutation } from './order.ts';
import type { OrderContext, Permutation } from './order.ts';
import type { PageWriter } from './record-json.ts';
import { ScopeCounts } from './scope-counts.ts';
import type { CountedClause } from './scope-counts.ts';
import { StretchCounts } from './stretch-counts.ts';
import { CodeBlockCounts, codeKey, integerKey, nullKey } from './code-block-counts.ts';
import { ZoneBounds } from './zone-bounds.ts';
import { INTEGER_KEYS, SCOPE_MASKS } from './tuning.ts';

/** The alive slots of one account scope (a scope column and its values), kept current by every write. */
export interface ScopeMask {
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

export interface FieldSource {
  field: string;
  type: ValueType | undefined;
}

/** The filter passes read a mask four slots per 32-bit word, slot s in byte s & 3 (filter.ts). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Counts per block asked for once more: have they now been asked for `after` times (1: on first use)? */
function askedEnough(scoped: ScopeMask, key: string, after: number): boolean {
  if (after <= 1) return true;
  const asks = (scoped.codeBlockAsks.get(key) ?? 0) + 1;
  scoped.codeBlockAsks.set(key, asks);
  return asks >= after;
}

export class Table {
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

/** mask[s] = alive and in scope. Small functions of typed arrays: the loops the engine runs most. */
function fillScopeMask(mask: Uint8Array, alive: Uint8Array, inScope: Uint8Array, codes: Uint32Array, size: number): void {
  for (let s = 0; s < size; s++) mask[s] = alive[s] & inScope[codes[s]];
}
