// `endswith` over a string column's dictionary (decision D-84): the distinct values in the order of their text read
// backwards (code units), so the values ending with x are one run of that order, found by binary search. The joined
// dictionary's search for x + separator (text-index.ts) stops at every place that starts like x (the last characters
// of a description start many places in other values); the run is found by two binary searches.
// Code units, as `endsWith` compares them: a surrogate pair read backwards is still the same two units on both
// sides. Values added since the order was made are tested one by one until enough gather, then merged in.
import { sortSlots } from './sort-slots.ts';
import { SUFFIX_TAIL_MAX as TAIL_MAX } from './tuning.ts';


/** Order of two strings by their code units read from the end; a string before every longer one it ends. */
export function compareBackwards(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 1; i <= n; i++) {
    const d = a.charCodeAt(a.length - i) - b.charCodeAt(b.length - i);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Where `v` lies from the run of values ending with `x`: < 0 before it, 0 in it (v ends with x), > 0 after it. */
const againstEnd = (v: string, x: string): number => compareBackwards(v.length > x.length ? v.slice(v.length - x.length) : v, x);

export class SuffixOrder {
  /** Codes of the string values, in backwards order. */
  private order: Uint32Array = new Uint32Array(0);
  /** Codes not in `order`: added since it was made. */
  private loose: number[] = [];
  private orderedUpTo = 1;

  constructor(private readonly dict: unknown[]) {}

  private readonly compare = (a: number, b: number) => compareBackwards(this.dict[a] as string, this.dict[b] as string);

  /** Order the whole dictionary, yielding now and then (the fill). */
  *build(): Generator<void, void> {
    const codes: number[] = [...this.order, ...this.loose];
    for (let c = this.orderedUpTo; c < this.dict.length; c++) if (typeof this.dict[c] === 'string') codes.push(c);
    this.orderedUpTo = this.dict.length;
    this.loose = [];
    this.order = yield* sortSlots(Uint32Array.from(codes), this.compare);
  }

  /** Take in the dictionary's values added since the last call; merge them into the order once there are many. */
  private update(): void {
    for (let c = this.orderedUpTo; c < this.dict.length; c++) if (typeof this.dict[c] === 'string') this.loose.push(c);
    this.orderedUpTo = this.dict.length;
    if (this.loose.length < TAIL_MAX) return;
    // each new value's place by binary search, then one copy of the order with them in between
    const added = this.loose.sort(this.compare);
    const merged = new Uint32Array(this.order.length + added.length);
    let from = 0;
    let k = 0;
    for (const code of added) {
      let lo = from;
      let hi = this.order.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.compare(this.order[mid], code) <= 0) lo = mid + 1;
        else hi = mid;
      }
      merged.set(this.order.subarray(from, lo), k);
      k += lo - from;
      merged[k++] = code;
      from = lo;
    }
    merged.set(this.order.subarray(from), k);
    this.order = merged;
    this.loose = [];
  }

  /** Set ok[code] = 1 for every string value that ends with `x`. */
  mark(x: string, ok: Uint8Array): void {
    this.update();
    const { order, dict } = this;
    /** First position whose value is not before the run (with `after`: not in it either). */
    const first = (after: boolean) => {
      let lo = 0;
      let hi = order.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const d = againstEnd(dict[order[mid]] as string, x);
        if (d < 0 || (after && d === 0)) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const end = first(true);
    for (let i = first(false); i < end; i++) ok[order[i]] = 1;
    for (const c of this.loose) if ((dict[c] as string).endsWith(x)) ok[c] = 1;
  }
}
