// A merge sort of slots that yields now and then, so a large table's permutations can be built in the background
// between requests (decision D-84): runs of RUN slots are sorted natively, then merged pairwise.
import { SORT_RUN as RUN, SORT_YIELD_EVERY as YIELD_EVERY } from './tuning.ts';

export function* sortSlots(slots: Uint32Array, compare: (a: number, b: number) => number): Generator<void, Uint32Array> {
  const n = slots.length;
  for (let i = 0; i < n; i += RUN) {
    slots.subarray(i, Math.min(n, i + RUN)).sort(compare);
    yield;
  }
  let source: Uint32Array = slots;
  let target: Uint32Array = new Uint32Array(n);
  let sinceYield = 0;
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        target[k++] = compare(source[i], source[j]) <= 0 ? source[i++] : source[j++];
        if (++sinceYield === YIELD_EVERY) {
          sinceYield = 0;
          yield;
        }
      }
      while (i < mid) target[k++] = source[i++];
      while (j < hi) target[k++] = source[j++];
    }
    [source, target] = [target, source];
  }
  return source;
}

/** The same for plain numbers in ascending order (runs sorted natively without a comparator). */
export function* sortNumbers(keys: Float64Array): Generator<void, Float64Array> {
  const n = keys.length;
  for (let i = 0; i < n; i += RUN) {
    keys.subarray(i, Math.min(n, i + RUN)).sort();
    yield;
  }
  let source: Float64Array = keys;
  let target: Float64Array = new Float64Array(n);
  let sinceYield = 0;
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        target[k++] = source[i] <= source[j] ? source[i++] : source[j++];
        if (++sinceYield === YIELD_EVERY * 4) {
          sinceYield = 0;
          yield;
        }
      }
      while (i < mid) target[k++] = source[i++];
      while (j < hi) target[k++] = source[j++];
    }
    [source, target] = [target, source];
  }
  return source;
}
