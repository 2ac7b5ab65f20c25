// The least and greatest value of one column in each block of another field's permutation (decision D-84), as a
// column store's zone maps keep them: a range on a field that grows with time (a description starting with its date,
// an incident number) matches cases that lie together along the id or date order a page walks. The walk then skips
// the blocks where no value can match, and counts those where every value does from the scope's block counts
// (stretch-counts.ts, the same blocks) or a scan of their nulls, instead of testing a run of slots of up to most of
// the table.
//
// The bounds are kept wide enough by every write, never narrowed: a slot moved into a block (a write shifts one slot
// across each later block boundary) or written in place widens its block. A block that only lost slots keeps bounds
// that still hold its values. Wider bounds only send more blocks to the walk.
import { compareCodePoints } from '../../../grammar/compare.ts';
import type { MemoryColumn } from './columns.ts';
import type { Permutation } from './order.ts';

/** Where a block's non-null values lie, for a stretch of the column's own permutation. */
export const OUT = 0;
export const IN = 1;
export const MIXED = 2;

export class ZoneBounds {
  /** Numbers: the least and greatest value (NaN: none yet); strings: their codes (0: none yet). */
  private lo: Float64Array;
  private hi: Float64Array;
  /** 1: the block may hold a null. */
  private nulls: Uint8Array;
  /** A value that is neither a number nor a string was met: every block is SOME. */
  private mixed = false;

  /** Bounds of `column` per block of `p`'s positions as the permutation is now. */
  constructor(
    private readonly p: Permutation,
    private readonly column: MemoryColumn,
    readonly block: number,
  ) {
    const blocks = Math.ceil((p.slots.length + 1) / block);
    this.lo = new Float64Array(blocks).fill(NaN);
    this.hi = new Float64Array(blocks).fill(NaN);
    this.nulls = new Uint8Array(blocks);
    const { slots, length } = p;
    for (let i = 0; i < length; i++) this.widen(Math.floor(i / block), slots[i]);
  }

  /** Block k holds the slot's current value. */
  private widen(k: number, slot: number): void {
    if (k >= this.nulls.length) this.grow(k + 1);
    const c = this.column;
    if (c.kind === 'number') {
      const x = c.values[slot];
      if (x !== x) this.nulls[k] = 1;
      else {
        if (!(x >= this.lo[k])) this.lo[k] = x; // NaN (none yet) compares false
        if (!(x <= this.hi[k])) this.hi[k] = x;
      }
      return;
    }
    const code = c.codes[slot];
    if (code === 0) this.nulls[k] = 1;
    else if (typeof c.dict[code] !== 'string') this.mixed = true;
    else {
      if (this.lo[k] !== this.lo[k] || this.compare(code, this.lo[k]) < 0) this.lo[k] = code;
      if (this.hi[k] !== this.hi[k] || this.compare(code, this.hi[k]) > 0) this.hi[k] = code;
    }
  }

  private grow(blocks: number): void {
    const n = Math.max(blocks, this.nulls.length * 2);
    const lo = new Float64Array(n).fill(NaN);
    const hi = new Float64Array(n).fill(NaN);
    const nulls = new Uint8Array(n);
    lo.set(this.lo);
    hi.set(this.hi);
    nulls.set(this.nulls);
    [this.lo, this.hi, this.nulls] = [lo, hi, nulls];
  }

  /** Order of two non-null values as held (numbers, or string codes by code point). */
  private compare(a: number, b: number): number {
    if (this.column.kind === 'number') return a < b ? -1 : a > b ? 1 : 0;
    return compareCodePoints(this.column.dict[a] as string, this.column.dict[b] as string);
  }

  /** The held form of a slot's value (a number or a code), or NaN for null. */
  private held(slot: number): number {
    const c = this.column;
    if (c.kind === 'number') return c.values[slot];
    return c.codes[slot] === 0 ? NaN : c.codes[slot];
  }

  /** A slot was taken out at position `at` (the permutation has shifted). */
  removed(at: number): void {
    const { block } = this;
    const { slots, length } = this.p;
    // the slot that stood at each later boundary k x block now stands at k x block - 1, in block k - 1
    for (let k = Math.floor(at / block) + 1; k * block <= length; k++) this.widen(k - 1, slots[k * block - 1]);
  }

  /** A slot was put in at position `at` (the permutation has shifted). */
  inserted(at: number): void {
    const { block } = this;
    const { slots, length } = this.p;
    this.widen(Math.floor(at / block), slots[at]);
    // the slot that stood at each later boundary k x block - 1 now stands at k x block, in block k
    for (let k = Math.floor(at / block) + 1; k * block < length; k++) this.widen(k, slots[k * block]);
  }

  /** The slot at position `at` has a new value. */
  changed(at: number, slot: number): void {
    this.widen(Math.floor(at / this.block), slot);
  }

  /**
   * Where each block's non-null values lie (OUT, IN or MIXED) for the values from `first`'s to `last`'s (two slots of
   * a stretch of the column's own permutation holding whole runs of equal values, so a value between theirs is in
   * it). Undefined when a stretch end is null.
   */
  kinds(first: number, last: number, blocks: number): Uint8Array | undefined {
    const a = this.held(first);
    const b = this.held(last);
    if (a !== a || b !== b) return undefined;
    const out = new Uint8Array(blocks).fill(MIXED);
    if (this.mixed) return out;
    for (let k = 0; k < blocks && k < this.nulls.length; k++) {
      const lo = this.lo[k];
      const hi = this.hi[k];
      if (lo !== lo || this.compare(hi, a) < 0 || this.compare(lo, b) > 0) out[k] = OUT;
      else if (this.compare(lo, a) >= 0 && this.compare(hi, b) <= 0) out[k] = IN;
    }
    return out;
  }

  /** Block k may hold a null (nulls are in no stretch these bounds are asked about). */
  mayHoldNull(k: number): boolean {
    return k >= this.nulls.length || this.nulls[k] === 1;
  }
}
