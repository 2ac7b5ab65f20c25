// A page's walk along a permutation that skips whole blocks of positions (decision D-84): a block where no slot can
// match (zone-bounds.ts) is passed over, and one whose matches are counted without testing each slot is passed over
// counting them, while the matches before the page are more than it holds. The other blocks, and the one the page
// starts in, are walked slot by slot as `walk` and `walkBack` do, so the page is the same. A descending walk whose
// matches can be counted at any positions goes by runs of equal values instead (runWalk).
import type { MemoryColumn } from './columns.ts';
import { runEnd, runStart, sameOn, walk, walkBack, walkMask } from './order.ts';
import type { Permutation } from './order.ts';
import { ZONED_WALK_BLOCKS } from './tuning.ts';

/** A block's matches: none, counted by `matches`, or some (each slot tested). */
export const NONE = 0;
export const COUNTED = 1;
export const SOME = 2;


export interface Zones {
  /** Positions per block. */
  block: number;
  /** NONE, COUNTED or SOME per block of the walked permutation. */
  kinds: Uint8Array;
  /** The matches of a COUNTED block. */
  matches(k: number): number;
  /** Slots the walk is expected to test (against the cost of sorting the matches). */
  cost: number;
  /**
   * The matches at any positions [from, to), when they can be counted there (the mask's slots, for a walk given the
   * mask): a descending walk through the mask on a field of a few values then goes run by run (runWalk) rather than
   * joining its blocks into the runs it walks whole.
   */
  inRange?(from: number, to: number): number;
}

/**
 * The matches [skip, stop) in the order of `walk` (`back`: of `walkBack`), as `walked` in page.ts finds them. A
 * descending walk visits a run of equal values forwards, so blocks are joined into segments across a boundary
 * inside a run: segments then end where values change, and are visited whole in the walk's order.
 */
export function zoneWalk(p: Permutation, column: MemoryColumn, descending: boolean, back: boolean, keep: (slot: number) => boolean, skip: number, stop: number, zones: Zones, mask?: Uint8Array, budget?: { left: number }): number[] {
  if (descending && zones.inRange && mask) return runWalk(p, column, back, mask, skip, stop, zones.inRange);
  const { slots, length } = p;
  const { block, kinds } = zones;
  const out: number[] = [];
  let seen = 0;
  // a walk within a budget stops at a slot that is not a match once the budget is spent (page.ts PageInput.budget)
  const spent = () => budget !== undefined && budget.left < 0;
  const visit = (slot: number) => {
    if (!keep(slot)) return !spent();
    if (seen++ >= skip) out.push(slot);
    return seen < stop;
  };
  const inRun = (x: number) => x > 0 && x < length && sameOn(column, slots[x - 1], slots[x]);
  const kindOf = (k: number) => (k < kinds.length ? kinds[k] : SOME);
  // segments in the order of the positions the walk takes them in: ascending for walk ascending and walkBack descending
  const ascending = descending === back;
  const blocks = Math.ceil(length / block);
  for (let k = ascending ? 0 : blocks - 1; ascending ? k < blocks : k >= 0; ) {
    let from = k * block;
    let to = Math.min(from + block, length);
    let kind = kindOf(k);
    k += ascending ? 1 : -1;
    // a descending walk visits a run forwards: a run across the segment's far end joins the next block to it (an
    // ascending walk visits positions in order, so its blocks stay apart)
    while (descending && (ascending ? inRun(to) : inRun(from))) {
      if (kindOf(k) !== kind) kind = SOME;
      if (ascending) to = Math.min(to + block, length);
      else from -= block;
      k += ascending ? 1 : -1;
    }
    if (kind === NONE) continue;
    if (kind === COUNTED) {
      let n = 0;
      for (let b = Math.floor(from / block); b * block < to; b++) n += zones.matches(b);
      if (seen + n <= skip) {
        seen += n;
        continue;
      }
    }
    (back ? walkBack : walk)(p, column, descending, visit, { from, to });
    if (seen >= stop || spent()) break;
  }
  return back ? out.reverse() : out;
}

/**
 * The matches [skip, stop) of a descending walk (`back`: of `walkBack`) through the mask of the matches, run by run of
 * equal values in the walk's order: a run without matches, or with fewer than the page still has to pass, is passed
 * over by its count, and the others walked as `walk` and `walkBack` walk them, in walkMask's own loop. For a field of
 * long runs (a contract, sorted descending, for an account holding a few of the contracts), where a run's count costs
 * a scan of at most its two end blocks.
 */
function runWalk(p: Permutation, column: MemoryColumn, back: boolean, mask: Uint8Array, skip: number, stop: number, inRange: (from: number, to: number) => number): number[] {
  const { slots, length } = p;
  const out: number[] = [];
  let seen = 0;
  /** Run [from, to): false once the page is whole. */
  const take = (from: number, to: number) => {
    const n = inRange(from, to);
    if (n === 0) return true;
    if (seen + n > skip) {
      // a run visited forwards (walkBack: backwards) is its positions in order: an ascending walk of them
      for (const slot of walkMask(p, column, false, back, mask, Math.max(0, skip - seen), stop - seen, { from, to })) out.push(slot);
    }
    seen += n;
    return seen < stop;
  };
  if (!back) {
    // walk: runs from the last, each forwards
    for (let end = length - 1; end >= 0; ) {
      const start = runStart(slots, column, 0, end);
      if (!take(start, end + 1)) break;
      end = start - 1;
    }
  } else {
    // walkBack: runs from the first, each backwards
    for (let start = 0; start < length; ) {
      const end = runEnd(slots, column, start, length);
      if (!take(start, end + 1)) break;
      start = end + 1;
    }
  }
  return back ? out.reverse() : out;
}

/**
 * Most of 16 sampled neighbours along the permutation hold equal values (a field of few values): a descending zoned
 * walk would join most blocks into runs it walks whole.
 */
export function longRuns(p: Permutation, column: MemoryColumn): boolean {
  const samples = 16;
  let same = 0;
  for (let i = 1; i <= samples; i++) {
    const at = Math.floor((i * p.length) / (samples + 1));
    if (at > 0 && sameOn(column, p.slots[at - 1], p.slots[at])) same++;
  }
  return same * 2 > samples;
}
