// Order of the in-memory case lists (decision D-84), equal to the grammar's comparator (compareBySort, D-28): keys in
// order, null first ascending and last descending, values of the key's type in their order (strings by code point,
// datetimes by instant), ties by id ascending. One sorted permutation per sortable field (slots by value, then id),
// kept current on every write; a page walks it and stops after offset + size matches.
import { compareCodePoints } from '../../../grammar/compare.ts';
import { compareBySort } from '../../../grammar/evaluate.ts';
import type { SortKey } from '../../../grammar/types.ts';
import type { DictColumn, MemoryColumn } from './columns.ts';

export interface OrderContext {
  column(field: string): MemoryColumn;
  /** Slot -> id rank: non-decreasing in id order; equal ranks are told apart by the ids themselves. */
  idRank: Float64Array;
  id: DictColumn;
}

/** Ascending order of two slots on one column: null first. */
export function compareOn(column: MemoryColumn, type: SortKey['type'], a: number, b: number): number {
  if (column.kind === 'number') {
    const x = column.values[a];
    const y = column.values[b];
    if (x === y) return 0;
    if (x !== x) return y !== y ? 0 : -1;
    if (y !== y) return 1;
    return x < y ? -1 : 1;
  }
  const ca = column.codes[a];
  const cb = column.codes[b];
  if (ca === cb) return 0;
  if (ca === 0) return -1;
  if (cb === 0) return 1;
  const u = column.dict[ca];
  const v = column.dict[cb];
  if (u === v) return 0;
  if (typeof u === 'string' && typeof v === 'string' && (type === 'string' || type === undefined)) return compareCodePoints(u, v);
  // anything else (arrays, mixed types): the grammar's own comparator on the two values
  const key: SortKey = { field: 'v', descending: false, type };
  return compareBySort({ v: u, id: '' }, { v, id: '' }, [key]);
}

/** Equal on a column (same number, both null, or same code). */
export function sameOn(column: MemoryColumn, a: number, b: number): boolean {
  if (column.kind === 'number') {
    const x = column.values[a];
    const y = column.values[b];
    return x === y || (x !== x && y !== y);
  }
  const ca = column.codes[a];
  const cb = column.codes[b];
  // a column without a lookup may hold one value under two codes
  return ca === cb || (ca !== 0 && cb !== 0 && column.index === null && column.dict[ca] === column.dict[cb]);
}

export function compareIds(ctx: OrderContext, a: number, b: number): number {
  const r = ctx.idRank[a] - ctx.idRank[b];
  if (r !== 0) return r < 0 ? -1 : 1;
  if (a === b) return 0;
  return compareCodePoints(ctx.id.dict[ctx.id.codes[a]] as string, ctx.id.dict[ctx.id.codes[b]] as string);
}

/** The comparator of sort keys then id, on slots. */
export function slotComparator(ctx: OrderContext, keys: readonly SortKey[]): (a: number, b: number) => number {
  const columns = keys.map((k) => ctx.column(k.field));
  return (a, b) => {
    for (let i = 0; i < keys.length; i++) {
      // ids by their ranks (a number each) rather than as strings: a comparison of numbers, not of texts
      const order = columns[i] === ctx.id ? compareIds(ctx, a, b) : compareOn(columns[i], keys[i].type, a, b);
      if (order !== 0) return keys[i].descending ? -order : order;
    }
    return compareIds(ctx, a, b);
  };
}

/** Alive slots ordered by one field ascending, then id. */
export interface Permutation {
  field: string;
  type: SortKey['type'];
  slots: Uint32Array;
  length: number;
}

/** First position in [lo, p.length) whose slot passes `pass`, which is false and then true along the permutation. */
export function firstWhere(p: Permutation, pass: (slot: number) => boolean, lo = 0): number {
  let hi = p.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pass(p.slots[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Position of `slot` (by its current values) in the permutation: the first entry not before it. */
const lowerBound = (p: Permutation, compare: (a: number, b: number) => number, slot: number): number => firstWhere(p, (s) => compare(s, slot) >= 0);

/** Position of `slot`, which must be in the permutation with the values it was inserted with. */
export function positionOf(ctx: OrderContext, p: Permutation, slot: number): number {
  const at = lowerBound(p, permComparator(ctx, p), slot);
  if (p.slots[at] !== slot) throw new Error(`memory permutation of ${p.field} lost slot ${slot}`);
  return at;
}

export function permComparator(ctx: OrderContext, p: Permutation): (a: number, b: number) => number {
  return slotComparator(ctx, [{ field: p.field, descending: false, type: p.type }]);
}

/** Put `slot` in at its place; returns the position. */
export function insertIntoPermutation(ctx: OrderContext, p: Permutation, slot: number): number {
  const at = lowerBound(p, permComparator(ctx, p), slot);
  if (p.length === p.slots.length) {
    const grown = new Uint32Array(Math.max(16, p.slots.length * 2));
    grown.set(p.slots);
    p.slots = grown;
  }
  p.slots.copyWithin(at + 1, at, p.length);
  p.slots[at] = slot;
  p.length++;
  return at;
}

/** Remove `slot`, which must still hold the values it was inserted with; returns the position it had. */
export function removeFromPermutation(ctx: OrderContext, p: Permutation, slot: number): number {
  const at = positionOf(ctx, p, slot);
  p.slots.copyWithin(at, at + 1, p.length);
  p.length--;
  return at;
}

/** Positions [from, to) of a permutation. */
export interface Stretch {
  from: number;
  to: number;
}

/**
 * The start of the run of values equal to the one at `end` (positions >= first): galloping back from the end, then a
 * binary search in the last step, so a long run (all open cases of one status, most of the table while the page needs
 * a few of it) and a short one (nearly distinct values) each cost about log(run length).
 */
export function runStart(slots: Uint32Array, column: MemoryColumn, first: number, end: number): number {
  let step = 1;
  let hi = end;
  while (hi - step >= first && sameOn(column, slots[hi - step], slots[end])) {
    hi -= step;
    step *= 2;
  }
  let start = Math.max(first, hi - step + 1);
  while (start < hi) {
    const mid = (start + hi) >>> 1;
    if (sameOn(column, slots[mid], slots[end])) hi = mid;
    else start = mid + 1;
  }
  return start;
}

/** The end (inclusive) of the run of values equal to the one at `start` (positions < length): as runStart, forwards. */
export function runEnd(slots: Uint32Array, column: MemoryColumn, start: number, length: number): number {
  let step = 1;
  let lo = start;
  while (lo + step < length && sameOn(column, slots[lo + step], slots[start])) {
    lo += step;
    step *= 2;
  }
  let end = Math.min(length - 1, lo + step - 1);
  while (lo < end) {
    const mid = (lo + end + 1) >>> 1;
    if (sameOn(column, slots[mid], slots[start])) lo = mid;
    else end = mid - 1;
  }
  return lo;
}

/**
 * Visit the permutation's slots in the order of the key (descending: value descending, ties still by id ascending,
 * so a run of equal values is visited forwards); stop when `visit` returns false.
 */
export function walk(p: Permutation, column: MemoryColumn, descending: boolean, visit: (slot: number) => boolean, within?: Stretch): void {
  const { slots } = p;
  // a stretch holding every match: its ends are where values change, so no run of equal values crosses them
  const first = within?.from ?? 0;
  const length = within?.to ?? p.length;
  if (!descending) {
    for (let i = first; i < length; i++) if (!visit(slots[i])) return;
    return;
  }
  for (let end = length - 1; end >= first; ) {
    const start = runStart(slots, column, first, end);
    for (let i = start; i <= end; i++) if (!visit(slots[i])) return;
    end = start - 1;
  }
}

/**
 * Visit the slots of `walk` in exactly the reverse order: a page near the end of its list is walked from the end
 * (ascending: positions backwards; descending: runs of equal values from the smallest, each run backwards).
 */
export function walkBack(p: Permutation, column: MemoryColumn, descending: boolean, visit: (slot: number) => boolean, within?: Stretch): void {
  const { slots } = p;
  const first = within?.from ?? 0;
  const length = within?.to ?? p.length;
  if (!descending) {
    for (let i = length - 1; i >= first; i--) if (!visit(slots[i])) return;
    return;
  }
  for (let start = first; start < length; ) {
    const end = runEnd(slots, column, start, length);
    for (let i = end; i >= start; i--) if (!visit(slots[i])) return;
    start = end + 1;
  }
}

/** The slots of one bucket of a two-key sort: those whose `of` is `is` (a status's value, a bucket's number). */
export interface Bucket {
  of: Float64Array | Uint16Array;
  is: number;
}

/**
 * The slots set in `mask` (and in `bucket`, if given), the [skip, stop) of them in the order of `walk` (or of `walkBack` when `back`): the same
 * order, in loops of their own. A visitor called per slot costs several times the walk itself (a deep page walks a
 * large part of the table), as the walks serve many visitors and those many tests. Descending, only a match reads
 * its value to find its run of equal values: a datetime permutation reads values and mask at random places.
 */
export function walkMask(p: Permutation, column: MemoryColumn, descending: boolean, back: boolean, mask: Uint8Array, skip: number, stop: number, within?: Stretch, bucket?: Bucket): number[] {
  const { slots } = p;
  const first = within?.from ?? 0;
  const length = within?.to ?? p.length;
  const out: number[] = [];
  let seen = 0;
  const of = bucket?.of;
  const is = bucket?.is ?? 0;
  /** Positions lo..hi inclusive, forwards or backwards; false once `stop` matches are seen. */
  const take = (lo: number, hi: number, forwards: boolean): boolean => {
    if (forwards) {
      for (let i = lo; i <= hi; i++) {
        const s = slots[i];
        if (mask[s] !== 1 || (of !== undefined && of[s] !== is)) continue;
        if (seen++ >= skip) out.push(s);
        if (seen >= stop) return false;
      }
    } else {
      for (let i = hi; i >= lo; i--) {
        const s = slots[i];
        if (mask[s] !== 1 || (of !== undefined && of[s] !== is)) continue;
        if (seen++ >= skip) out.push(s);
        if (seen >= stop) return false;
      }
    }
    return true;
  };
  if (!descending) take(first, length - 1, !back);
  else if (!back) {
    // runs of equal values from the last, each forwards; only a match needs its run (values are read at random):
    // the positions after it in its run were not matches, or their run would have taken it already. A lone match is
    // counted here rather than by take(i, i): that call per match made the descending walks slower
    for (let i = length - 1; i >= first; ) {
      const s = slots[i];
      if (mask[s] !== 1 || (of !== undefined && of[s] !== is)) i--;
      else if (i > first && sameOn(column, slots[i - 1], s)) {
        const start = runStart(slots, column, first, i);
        if (!take(start, i, true)) break;
        i = start - 1;
      } else {
        if (seen++ >= skip) out.push(s);
        if (seen >= stop) break;
        i--;
      }
    }
  } else {
    // runs from the first, each backwards (as walkBack), a match's run read as above
    for (let i = first; i < length; ) {
      const s = slots[i];
      if (mask[s] !== 1 || (of !== undefined && of[s] !== is)) i++;
      else if (i + 1 < length && sameOn(column, slots[i + 1], s)) {
        const end = runEnd(slots, column, i, length);
        if (!take(i, end, false)) break;
        i = end + 1;
      } else {
        if (seen++ >= skip) out.push(s);
        if (seen >= stop) break;
        i++;
      }
    }
  }
  return out;
}
