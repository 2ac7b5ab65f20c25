// `sameas` between two columns counted without a pass per list (decision D-84). The table counts, per pair of columns
// a list has compared, its alive slots where both hold the same value; each kept scope counts its own. Every write
// keeps them exact (the engine calls leave before it changes a slot and enter after, as for ScopeCounts). A pair made
// on first use costs one pass; a pair that the table never or always finds the same needs none per scope. A pair the
// table finds the same at some slots only also keeps those slots as a mask (1 byte a slot), which a list's page reads.
import { semanticsOf } from '../../../grammar/operators.ts';
import type { FilterClause } from '../../../grammar/types.ts';
import type { MemoryColumn } from './columns.ts';
import { applyClause, countMask, keepHits, sameAsSlot, sameKinds } from './filter.ts';
import type { FilterContext } from './filter.ts';
import type { CountedClause } from './scope-counts.ts';
import { SAME_WALK_SHARE } from './tuning.ts';


interface SamePair {
  same(slot: number): boolean;
  count: number;
  /**
   * 1 for each slot of the set that is the same, kept for a pair the set finds the same at some slots only (a slot that
   * left the set keeps its last bit: a pass starts from the scope's mask, which holds none of those).
   */
  bits?: Uint8Array;
}

/** How many slots of a set (alive, or in a scope) hold the same value in two columns, per pair used so far. */
export class SameCounts {
  private readonly pairs = new Map<string, SamePair>();

  /** A slot of the set is about to change or leave it. */
  leave(slot: number): void {
    for (const p of this.pairs.values()) if (p.same(slot)) p.count--;
  }

  /** A slot is in the set with its current values. */
  enter(slot: number): void {
    for (const p of this.pairs.values()) {
      const same = p.same(slot);
      if (same) p.count++;
      if (!p.bits) continue;
      if (slot >= p.bits.length) {
        const grown = new Uint8Array(Math.max(slot + 1, p.bits.length * 2));
        grown.set(p.bits);
        p.bits = grown;
      }
      p.bits[slot] = +same;
    }
  }

  /** The pair's count, if kept. */
  count(key: string): number | undefined {
    return this.pairs.get(key)?.count;
  }

  /** The pair's kept slots, if kept. */
  bitsOf(key: string): Uint8Array | undefined {
    return this.pairs.get(key)?.bits;
  }

  /**
   * Keep a pair, counted now; `same` tells a slot's sameness from the columns as they are at each call; `bits`, the
   * slots of the set that are the same now, to be kept with the count.
   */
  keep(key: string, same: (slot: number) => boolean, count: number, bits?: Uint8Array): void {
    this.pairs.set(key, { same, count, bits });
  }
}

/** A set of slots a list reads: the table's alive slots, or a scope's. */
export interface SlotSet {
  bits: Uint8Array;
  count: number;
  sames: SameCounts;
}

export interface SameSets {
  alive: SlotSet;
  /** The list's scope. */
  scope: SlotSet;
  /** Every kept scope (the list's among them): a pair counted for the table is counted for each of them too. */
  scopes: Iterable<SlotSet>;
}

/** The 1s that two 0/1 masks share among their first `size` bytes (four at a time, as countMask). */
function countBoth(a: Uint8Array, b: Uint8Array, size: number): number {
  const x = new Uint32Array(a.buffer, a.byteOffset, size >>> 2);
  const y = new Uint32Array(b.buffer, b.byteOffset, size >>> 2);
  let total = 0;
  for (let w = 0; w < x.length; w++) total += Math.imul(x[w] & y[w], 0x01010101) >>> 24;
  for (let s = x.length << 2; s < size; s++) total += a[s] & b[s];
  return total;
}

/**
 * A one-clause list of `sameas` or its negation answered from the counts. On the table's first list of a pair, one
 * pass marks the alive slots where it is the same, and every kept scope counts its share of them. A scope made later
 * takes the table's count when the pair is never (0) or always the same, else makes its own pass. Undefined: not
 * such a clause.
 */
export function sameCounted(clause: FilterClause, ctx: FilterContext, sets: SameSets, scratch: Uint8Array): CountedClause | undefined {
  const { positive, semantics, negated } = semanticsOf(clause.operator, ctx.operators);
  if (semantics.kind !== 'same') return undefined;
  const column = ctx.column(clause.field);
  const other = ctx.column(String(clause.values[0]));
  if (!column || !other) return undefined;
  const same = sameAsSlot(clause, column, other, ctx.operators);
  // one count serves `a sameas b` and `b sameas a` where both read equality
  const names = [column.field, other.field];
  const key = (sameKinds(column, other) ? names.sort() : names).join('\u0000');
  const { alive, scope } = sets;
  const { size } = ctx;
  const markSame = (bits: Uint8Array) => {
    scratch.set(bits.subarray(0, size));
    applyClause(scratch, { ...clause, operator: positive }, ctx);
  };
  if (alive.sames.count(key) === undefined) {
    markSame(alive.bits);
    // a pair the same at some slots only (status and priority) is kept as a mask too, which a list's pass then reads
    // instead of both columns (the mask costs 1 byte a slot)
    const count = countMask(scratch, size);
    alive.sames.keep(key, same, count, count > 0 && count < alive.count ? scratch.slice() : undefined);
    for (const s of sets.scopes) s.sames.keep(key, same, countBoth(scratch, s.bits, size));
  }
  const everywhere = alive.sames.count(key)!;
  if (scope.sames.count(key) === undefined) {
    if (everywhere === 0 || everywhere === alive.count) scope.sames.keep(key, same, everywhere === 0 ? 0 : scope.count);
    else {
      markSame(scope.bits);
      scope.sames.keep(key, same, countMask(scratch, size));
    }
  }
  const count = scope.sames.count(key)!;
  const wanted = !negated;
  const { bits } = scope;
  // the pair's kept slots, as long as the table's slots (each new one is entered), or the columns read per slot
  const kept = alive.sames.bitsOf(key);
  const bit = wanted ? 1 : 0;
  return {
    total: wanted ? count : scope.count - count,
    keep: kept ? (s) => bits[s] === 1 && kept[s] === bit : (s) => bits[s] === 1 && same(s) === wanted,
    narrow: (mask) => (kept ? keepHits(mask, kept, size, 1 - bit) : applyClause(mask, clause, ctx)),
    walkShare: kept ? SAME_WALK_SHARE.kept : SAME_WALK_SHARE.read,
    // the mask is read from the table at each call: it is replaced as the table grows
    same: kept ? { key, bits: () => alive.sames.bitsOf(key)!, wanted: bit } : undefined,
  };
}
