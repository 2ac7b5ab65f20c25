// How many slots of one account scope lie in each block of a permutation's positions (decision D-84): a clause that
// selects a long stretch of its field's permutation (a range over half the cases) is then counted from the blocks it
// covers and a scan of its two ends, instead of a pass over every slot (BLOCK trades the end scans against the cost of every
// write). Kept exact by every write: a slot taken out of, or put into, the permutation shifts
// the positions after it by one, so one slot crosses each later block boundary; a slot that joins or leaves the
// scope changes its own block.
import type { Permutation } from './order.ts';
import { BLOCK } from './tuning.ts';


export class StretchCounts {
  /** blocks[k]: the in-scope slots at positions [k x block, (k + 1) x block). */
  private blocks: Uint32Array;

  /**
   * Count the scope's slots (`bits()`: 1 for a slot in scope; the scope's array is replaced when the table grows) along
   * the permutation as it is now.
   */
  constructor(
    private readonly p: Permutation,
    private readonly bits: () => Uint8Array,
    private readonly block = BLOCK,
  ) {
    this.blocks = new Uint32Array(Math.ceil((p.length + 1) / block));
    const { slots } = p;
    const b = bits();
    for (let i = 0; i < p.length; i++) this.blocks[Math.floor(i / block)] += b[slots[i]];
  }

  /** In-scope slots at positions [from, to). */
  count(from: number, to: number): number {
    const { block, blocks } = this;
    const firstFull = Math.ceil(from / block);
    const lastFull = Math.floor(to / block);
    if (firstFull >= lastFull) return this.scan(from, to);
    let n = this.scan(from, firstFull * block) + this.scan(lastFull * block, to);
    for (let k = firstFull; k < lastFull; k++) n += blocks[k];
    return n;
  }

  /** In-scope slots in block k (the last block: up to the permutation's end). */
  inBlock(k: number): number {
    return this.blocks[k];
  }

  private scan(from: number, to: number): number {
    const { slots } = this.p;
    const b = this.bits();
    let n = 0;
    for (let i = from; i < to; i++) n += b[slots[i]];
    return n;
  }

  /** A slot was taken out at position `at` (the permutation has shifted); `bit`: whether it was in scope. */
  removed(at: number, bit: number): void {
    const { block, blocks } = this;
    const { slots, length } = this.p;
    const b = this.bits();
    blocks[Math.floor(at / block)] -= bit;
    // the slot that stood at each later boundary k x block now stands at k x block - 1, in block k - 1
    for (let k = Math.floor(at / block) + 1; k * block <= length; k++) {
      const crossing = b[slots[k * block - 1]];
      blocks[k] -= crossing;
      blocks[k - 1] += crossing;
    }
  }

  /** A slot was put in at position `at` (the permutation has shifted); `bit`: whether it is in scope. */
  inserted(at: number, bit: number): void {
    const { block } = this;
    const { slots, length } = this.p;
    if (this.blocks.length * block < length + 1) {
      const grown = new Uint32Array(this.blocks.length * 2);
      grown.set(this.blocks);
      this.blocks = grown;
    }
    const { blocks } = this;
    const b = this.bits();
    // the slot that stood at each later boundary k x block - 1 now stands at k x block, in block k
    for (let k = Math.floor(at / block) + 1; k * block < length; k++) {
      const crossing = b[slots[k * block]];
      blocks[k - 1] -= crossing;
      blocks[k] += crossing;
    }
    blocks[Math.floor(at / block)] += bit;
  }

  /** The slot at position `at` joined (+1) or left (-1) the scope. */
  changed(at: number, delta: number): void {
    this.blocks[Math.floor(at / this.block)] += delta;
  }
}
