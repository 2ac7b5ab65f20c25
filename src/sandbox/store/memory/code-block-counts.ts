// How many of one account scope's slots hold each key of a column in each block of another field's permutation
// (decision D-84), the key being a code of a few-valued dictionary column (a contact, a contract, a watch list), a
// small integer (a status, a priority), or whether a value is null. A list whose one clause is counted per value
// (scope-counts.ts) walks its page along the sort key's permutation testing each slot; a deep page of a value held by
// one case in eight walked most of the table. With these counts the walk skips the blocks before
// the page, summing the counts of the codes that pass (zone-walk.ts); a range's walk counts the non-nulls of a block
// whose values are all in it. Kept exact by every write as the scope's block counts are (stretch-counts.ts): a slot
// moved in the permutation shifts one slot across each later block boundary; a slot written in place, or joining or
// leaving the scope, changes its own block.
import type { DictColumn, MemoryColumn, NumberColumn } from './columns.ts';
import type { Permutation } from './order.ts';
import { CODE_BLOCK_MAX_CODES as MAX_CODES, INTEGER_KEYS } from './tuning.ts';

/** The key of a slot: its code in a dictionary column. */
export const codeKey = (column: DictColumn) => (slot: number) => column.codes[slot];

/** The key of a slot: 0 for a null value in the column, else 1. */
export const nullKey = (column: MemoryColumn) => (column.kind === 'number' ? (slot: number) => (column.values[slot] !== column.values[slot] ? 0 : 1) : (slot: number) => (column.codes[slot] === 0 ? 0 : 1));

/**
 * The key of a slot: its value in an integer column when that is in [0, INTEGER_KEYS), else INTEGER_KEYS (null) or
 * one more.
 */
export const integerKey = (column: NumberColumn) => (slot: number) => {
  const x = column.values[slot];
  return x >= 0 && x < INTEGER_KEYS && Math.floor(x) === x ? x : x !== x ? INTEGER_KEYS : INTEGER_KEYS + 1;
};

export class CodeBlockCounts {
  /** counts[k x width + key]: the in-scope slots of block k whose key it is. */
  private counts: Int32Array;
  private width: number;
  /** A code past MAX_CODES was met: the counts are no longer kept. */
  broken = false;

  /** Counts along the permutation as it is now (`bits()`: 1 for a slot in the scope; replaced as the table grows). */
  constructor(
    private readonly p: Permutation,
    private readonly keyOf: (slot: number) => number,
    keys: number,
    private readonly bits: () => Uint8Array,
    readonly block: number,
  ) {
    this.width = Math.max(2, keys);
    this.counts = new Int32Array(this.blocksFor(p.slots.length) * this.width);
    const { slots, length } = p;
    const b = bits();
    for (let i = 0; i < length; i++) if (b[slots[i]] === 1) this.add(Math.floor(i / block), slots[i], 1);
  }

  private blocksFor(positions: number): number {
    return Math.ceil((positions + 1) / this.block);
  }

  /** Block k gains (+1) or loses (-1) the slot's current key. */
  private add(k: number, slot: number, delta: number): void {
    const code = this.keyOf(slot);
    if (code >= this.width || (k + 1) * this.width > this.counts.length) this.grow(code, k);
    if (this.broken) return;
    this.counts[k * this.width + code] += delta;
  }

  private grow(code: number, k: number): void {
    if (code >= MAX_CODES) {
      this.broken = true;
      return;
    }
    const width = code >= this.width ? Math.min(MAX_CODES, Math.max(code + 1, this.width * 2)) : this.width;
    const blocks = Math.max(k + 1, this.blocksFor(this.p.slots.length), this.counts.length / this.width);
    const counts = new Int32Array(blocks * width);
    for (let b = 0; b < this.counts.length / this.width; b++) counts.set(this.counts.subarray(b * this.width, (b + 1) * this.width), b * width);
    this.counts = counts;
    this.width = width;
  }

  /** The matches of block k: its in-scope slots whose key `ok` holds (1). */
  matches(k: number, ok: Uint8Array): number {
    const base = k * this.width;
    if (base >= this.counts.length) return 0;
    const n = Math.min(ok.length, this.width);
    let total = 0;
    for (let c = 0; c < n; c++) total += ok[c] * this.counts[base + c];
    return total;
  }

  /** A slot (`bit`: in scope) was taken out at position `at`, before its values change (the permutation has shifted). */
  removed(at: number, slot: number, bit: number): void {
    const { block } = this;
    const { slots, length } = this.p;
    const b = this.bits();
    if (bit === 1) this.add(Math.floor(at / block), slot, -1);
    // the slot that stood at each later boundary k x block now stands at k x block - 1, in block k - 1
    for (let k = Math.floor(at / block) + 1; k * block <= length; k++) {
      const crossing = slots[k * block - 1];
      if (b[crossing] === 0) continue;
      this.add(k, crossing, -1);
      this.add(k - 1, crossing, 1);
    }
  }

  /** A slot was put in at position `at`, after its values and scope are written (the permutation has shifted). */
  inserted(at: number, slot: number): void {
    const { block } = this;
    const { slots, length } = this.p;
    const b = this.bits();
    // the slot that stood at each later boundary k x block - 1 now stands at k x block, in block k
    for (let k = Math.floor(at / block) + 1; k * block < length; k++) {
      const crossing = slots[k * block];
      if (b[crossing] === 0) continue;
      this.add(k - 1, crossing, -1);
      this.add(k, crossing, 1);
    }
    if (b[slot] === 1) this.add(Math.floor(at / block), slot, 1);
  }

  /** The in-scope slot at position `at` is about to change or leave the scope (-1), or has its new values (+1). */
  changed(at: number, slot: number, delta: number): void {
    this.add(Math.floor(at / this.block), slot, delta);
  }
}
