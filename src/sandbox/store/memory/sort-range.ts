// The slots [from, to) of a sorted order without sorting the rest (decision D-84): a page of matches that are cheaper
// to sort than to walk needs only its own positions in order. Quickselect (Hoare's partition around a median of three)
// goes into the sides that hold part of [from, to) and sorts natively each part that lies inside it: about 3n
// comparisons for a page deep in n matches, against n log2 n for the whole sort (15n at 36k matches).
import { SORT_RANGE_SMALL as SMALL } from './tuning.ts';

/**
 * Put into a[from, to) the elements a full sort of `a` by `compare` would put there, in that order (`compare` a
 * strict total order, as the slot comparators with their id tiebreak are). The rest of `a` is left partitioned.
 */
export function sortRange(a: Uint32Array, from: number, to: number, compare: (x: number, y: number) => number): void {
  // beyond this many partitions (an input that keeps picking bad pivots) the part is sorted whole: n log n at worst
  let budget = 2 * Math.ceil(Math.log2(a.length + 1));
  const swap = (i: number, j: number) => {
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  };
  const part = (lo: number, hi: number): void => {
    while (hi - lo > SMALL) {
      if ((lo >= from && hi <= to) || budget-- <= 0) break;
      const mid = (lo + hi) >>> 1;
      if (compare(a[mid], a[lo]) < 0) swap(mid, lo);
      if (compare(a[hi - 1], a[mid]) < 0) {
        swap(hi - 1, mid);
        if (compare(a[mid], a[lo]) < 0) swap(mid, lo);
      }
      const pivot = a[mid];
      let i = lo;
      let j = hi - 1;
      while (i <= j) {
        while (compare(a[i], pivot) < 0) i++;
        while (compare(a[j], pivot) > 0) j--;
        if (i <= j) swap(i++, j--);
      }
      // [lo, j] precede the pivot's place, [i, hi) follow it, and anything between is the pivot itself
      const left = lo < to && j + 1 > from;
      const right = i < to && hi > from;
      if (left && right) {
        part(lo, j + 1);
        lo = i;
      } else if (left) hi = j + 1;
      else if (right) lo = i;
      else return;
    }
    a.subarray(lo, hi).sort(compare);
  };
  part(0, a.length);
}
