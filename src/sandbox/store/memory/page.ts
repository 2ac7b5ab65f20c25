// The page of an in-memory case list (decision D-84): the slots at [offset, offset + size) of the matches in sort
// order, chosen by the cheaper of
//   - walking a sort key's permutation and stopping after offset + size matches (~ (offset + size) x slots / matches),
//     from the end of the list when the page is nearer to it (the exact count tells),
//   - sorting the matches with the comparator, only as far as the page needs (sort-range.ts: ~ 3 x matches
//     comparisons, and the page's own sort);
// for several keys, the matches are split into buckets of the leading keys when those have few distinct values (a
// status, a priority) and each needed bucket walks the last key's permutation; otherwise runs of equal first key are
// sorted by the other keys.
import type { SortKey } from '../../../grammar/types.ts';
import type { MemoryColumn } from './columns.ts';
import type { Bucket, OrderContext, Permutation, Stretch } from './order.ts';
import { compareOn, sameOn, slotComparator, walk, walkBack, walkMask } from './order.ts';
import { sortRange } from './sort-range.ts';
import { longRuns, zoneWalk } from './zone-walk.ts';
import type { Zones } from './zone-walk.ts';
import { BUCKET_INTEGERS as SMALL, COMPARE_COST, MAX_BUCKETS } from './tuning.ts';
import type { PageWay } from '../list-plan.ts';


/** What a page's way is chosen from (pageWay): the count, the sort, the permutations and what skips blocks. */
export interface PageShape {
  ctx: OrderContext;
  permutation(field: string): Permutation | undefined;
  /** Slots are 0..slots-1. */
  slots: number;
  total: number;
  /** Alive slots (the length of every permutation). */
  alive: number;
  /**
   * How many matches hold each integer 0..1023 of the field, and null, when known without a pass (a list without
   * filters: its scope's counts).
   */
  integerCounts?(field: string): { values: Int32Array; nulls: number } | undefined;
  /**
   * With integerCounts: the blocks of the `last` field's permutation counted for the matches whose `lead` field holds
   * `value` (zone-walk.ts), if known and worth having for a plain walk of `walk` slots.
   */
  bucketZones?(lead: string, value: number, last: string, walk: number): Zones | undefined;
  /** Positions of the field's permutation that hold every match (a range or prefix on that field), if known. */
  stretch?(field: string): Stretch | undefined;
  /** Blocks of the field's permutation where no slot, or every in-scope slot, matches (zone-walk.ts), if known. */
  zones?(field: string): Zones | undefined;
  keys: SortKey[];
  offset: number;
  size: number;
}

/** What making the page reads besides its shape: how a slot is told to match, the matches, a budget. */
export interface PageInput extends PageShape {
  /** Is the slot a match? (a mask read, or the scope and the clause's answer per code read directly) */
  keep(slot: number): boolean;
  /** When `keep` is a read of this mask (1: a match): walks then read it in loops of their own (walkMask). */
  mask?: Uint8Array;
  /** The matching slots (any order), gathered on first call: a page walked along a permutation never needs them. */
  matched(): Uint32Array;
  /**
   * Slots the walks may still test (`keep` counts them down): a walk stops at the first slot that is not a match once
   * it is below 0, and the page is then not made (`spent`).
   */
  budget?: Budget;
}

/** A budget of slots a walk may test, counted down by the walk's `keep`; spent below 0. */
export interface Budget {
  left: number;
}

const spent = (budget: Budget | undefined) => budget !== undefined && budget.left < 0;

/**
 * The cost of sorting the matches, as for a whole sort: sortRange takes about 3n comparisons for a page, but with 3n
 * here strings' pages chose sorting where walking was faster (`filter[shortDescription][lt]`'s p99 grew several
 * times), a comparison of strings costing well over COMPARE_COST slots walked.
 */
const sortCost = (n: number) => n * Math.log2(n + 2) * COMPARE_COST;
/** Slots walked for the matches [from, to) of `among`: from whichever end of the list is nearer. */
const walkCost = (input: PageShape, from: number, to: number, among: number, within?: Stretch) => (Math.min(to, among - from) * (within ? within.to - within.from : input.alive)) / Math.max(among, 1);

function sortedSlice(input: PageInput, slots: Uint32Array, keys: SortKey[], from: number, to: number): number[] {
  const copy = Uint32Array.from(slots);
  sortRange(copy, from, to, slotComparator(input.ctx, keys));
  return Array.from(copy.subarray(from, to));
}

/**
 * Walk one key's permutation, keeping slots that pass `keep` (`count` of them in all), and return the [from, to) of
 * them; a page nearer the end of the list is taken walking back from the end.
 */
function walked(input: PageInput, key: SortKey, keep: (slot: number) => boolean, count: number, from: number, to: number, within?: Stretch, bucket?: Bucket, bucketZones?: Zones): number[] {
  const p = input.permutation(key.field)!;
  const back = count - from < to;
  const [skip, end] = back ? [count - to, count - from] : [from, to];
  const zones = bucketZones ?? (keep === input.keep && !bucket && !within ? input.zones?.(key.field) : undefined);
  if (zones) return zoneWalk(p, input.ctx.column(key.field), key.descending, back, keep, skip, end, zones, keep === input.keep ? input.mask : undefined, input.budget);
  // `keep` is the mask's read, or a bucket's test (its slots in the mask): both walked in walkMask's own loops
  if ((keep === input.keep || bucket) && input.mask) {
    const out = walkMask(p, input.ctx.column(key.field), key.descending, back, input.mask, skip, end, within, bucket);
    return back ? out.reverse() : out;
  }
  const out: number[] = [];
  let seen = 0;
  const { budget } = input;
  (back ? walkBack : walk)(p, input.ctx.column(key.field), key.descending, (slot) => {
    if (!keep(slot)) return !spent(budget);
    if (seen++ >= skip) out.push(slot);
    return seen < end;
  }, within);
  return back ? out.reverse() : out;
}

/** How a page is made (the plan's description names it: ../list-plan.ts). */
export type { PageWay } from '../list-plan.ts';

const DEFAULT_ORDER: SortKey[] = [{ field: 'id', descending: false, type: 'string' }];

/** The way the page will be made (pageSlots makes it), from its shape alone. */
export function pageWay(input: PageShape): PageWay {
  const { total, offset, keys } = input;
  const to = Math.min(total, offset + input.size);
  if (offset >= to) return { how: 'past the end' };
  const order = keys.length > 0 ? keys : DEFAULT_ORDER;
  const canWalk = order.every((k) => input.permutation(k.field) !== undefined);
  const within = order.length === 1 ? input.stretch?.(order[0].field) : undefined;
  const zones = order.length === 1 && !within ? input.zones?.(order[0].field) : undefined;
  if (!canWalk || sortCost(total) <= Math.min(walkCost(input, offset, to, total, within), zones?.cost ?? Infinity)) return { how: 'sort', keys: order.map((k) => k.field) };
  const last = order[order.length - 1];
  if (order.length === 1) return { how: 'walk', along: last.field, descending: last.descending, back: total - offset < to, within: within !== undefined, zones: zones !== undefined };
  if (leadCounts(input, order)) return { how: 'counted buckets', lead: order[0].field, along: last.field };
  const leading = order.slice(0, -1);
  // one value may have two codes in a column without a lookup: bucket only by codes that are values
  const unlooked = (k: SortKey) => {
    const column = input.ctx.column(k.field);
    return column.kind === 'dict' && column.index === null;
  };
  if (leading.some(unlooked)) return runsWay(order);
  return { how: 'buckets', lead: leading.map((k) => k.field), along: last.field };
}

const runsWay = (order: SortKey[]): PageWay => ({ how: 'runs', of: order[0].field, then: order.slice(1).map((k) => k.field) });

/**
 * The page's slots, made the way given (pageWay's), and whether the way gave way: `spent`, a walk stopped by its budget
 * (the slots are then not the page); `runs`, a `buckets` page of more than MAX_BUCKETS buckets made by runs.
 */
export function pageSlots(input: PageInput, way: PageWay): { slots: number[]; spent: boolean; runs: boolean } {
  const made = (slots: number[], runs = false) => ({ slots, spent: spent(input.budget), runs });
  const { total, offset } = input;
  const to = Math.min(total, offset + input.size);
  const order = input.keys.length > 0 ? input.keys : DEFAULT_ORDER;
  switch (way.how) {
    case 'past the end':
      return made([]);
    case 'sort':
      return made(sortedSlice(input, input.matched(), order, offset, to));
    case 'walk':
      return made(walked(input, order[0], input.keep, total, offset, to, order.length === 1 ? input.stretch?.(order[0].field) : undefined));
    case 'counted buckets':
      return made(countedBuckets(input, order, leadCounts(input, order)!, offset, to));
    case 'buckets': {
      const slots = bucketed(input, order, offset, to);
      return slots ? made(slots) : made(runs(input, order, offset, to), true); // more than MAX_BUCKETS
    }
    case 'runs':
      return made(runs(input, order, offset, to));
  }
}

/**
 * Two keys, the first an integer whose values the matches are counted by (a status, a priority; no nulls), their
 * counts summing to the total: the counts, else undefined.
 */
function leadCounts(input: PageShape, order: SortKey[]): { values: Int32Array; nulls: number } | undefined {
  if (order.length !== 2) return undefined;
  const counts = input.integerCounts?.(order[0].field);
  if (!counts || counts.nulls > 0 || input.ctx.column(order[0].field).kind !== 'number') return undefined;
  let sum = 0;
  for (let v = 0; v < counts.values.length; v++) sum += counts.values[v];
  return sum === input.total ? counts : undefined;
}

/** Two keys, the first's values counted (leadCounts): each bucket's size is known, so only the buckets the page needs are visited. */
function countedBuckets(input: PageInput, order: SortKey[], counts: { values: Int32Array }, from: number, to: number): number[] {
  const [lead, last] = order;
  const column = input.ctx.column(lead.field);
  if (column.kind !== 'number') throw new Error(`counted buckets of ${lead.field}, which is not a number column`);
  const { values } = column;
  const { keep } = input;
  const ascending = Array.from(counts.values.keys()).filter((v) => counts.values[v] > 0);
  const buckets = (lead.descending ? ascending.reverse() : ascending).map((v) => ({
    count: counts.values[v],
    has: (s: number) => values[s] === v && keep(s),
    bucket: { of: values, is: v },
    zones: (walk: number) => input.bucketZones?.(lead.field, v, last.field, walk),
  }));
  return bucketPages(input, last, buckets, from, to);
}

/**
 * The matches [from, to) of buckets in list order (each `count` matches, `has` telling its slots): each bucket the
 * page needs is walked along the last key's permutation (skipping blocks when it has `zones`), or its matches sorted
 * when that is cheaper.
 */
function bucketPages(input: PageInput, last: SortKey, buckets: Array<{ count: number; has: (slot: number) => boolean; bucket: Bucket; zones?: (walk: number) => Zones | undefined }>, from: number, to: number): number[] {
  const out: number[] = [];
  let start = 0;
  const zonesUsable = !last.descending || !longRuns(input.permutation(last.field)!, input.ctx.column(last.field));
  for (const { count, has, bucket, zones: zonesOf } of buckets) {
    const end = start + count;
    if (end > from && start < to) {
      const lo = Math.max(from, start) - start;
      const hi = Math.min(to, end) - start;
      const cost = walkCost(input, lo, hi, count);
      const zones = zonesUsable ? zonesOf?.(cost) : undefined;
      if (sortCost(count) <= Math.min(cost, zones?.cost ?? Infinity)) out.push(...sortedSlice(input, input.matched().filter(has), [last], lo, hi));
      else out.push(...walked(input, last, has, count, lo, hi, undefined, bucket, zones && zones.cost < cost ? zones : undefined));
    }
    start = end;
    if (start >= to || spent(input.budget)) break;
  }
  return out;
}

/** Every matched value is null or an integer in [0, SMALL). */
function smallIntegers(values: Float64Array, matched: Uint32Array): boolean {
  for (let i = 0; i < matched.length; i++) {
    const x = values[matched[i]];
    if (x === x && !(x >= 0 && x < SMALL && Math.floor(x) === x)) return false;
  }
  return true;
}

/** Buckets of the leading keys' values, each walked along the last key's permutation. Undefined: too many buckets. */
function bucketed(input: PageInput, order: SortKey[], from: number, to: number): number[] | undefined {
  const leading = order.slice(0, -1);
  const last = order[order.length - 1];
  const columns = leading.map((k) => input.ctx.column(k.field));
  // one value may have two codes in a column without a lookup: bucket only by codes that are values
  if (columns.some((c) => c.kind === 'dict' && c.index === null)) return undefined;
  const matched = input.matched();
  // bucket of each matched slot: the first slot seen with the same leading values stands for it
  const representatives: number[] = [];
  const counts: number[] = [];
  const slotBucket = new Uint16Array(input.slots);
  if (columns.length === 1 && columns[0].kind === 'dict') {
    // one dictionary-coded leading key: its code is the bucket key, read from an array
    const { codes } = columns[0];
    const bucketOfCode = new Int32Array(columns[0].dict.length).fill(-1);
    for (let i = 0; i < matched.length; i++) {
      const s = matched[i];
      let bucket = bucketOfCode[codes[s]];
      if (bucket === -1) {
        bucket = representatives.length;
        if (bucket >= MAX_BUCKETS) return undefined;
        bucketOfCode[codes[s]] = bucket;
        representatives.push(s);
        counts.push(0);
      }
      counts[bucket]++;
      slotBucket[s] = bucket;
    }
  } else if (columns.length === 1 && columns[0].kind === 'number' && smallIntegers(columns[0].values, matched)) {
    // one integer leading key of small values (a status, a priority): the value is the index
    const { values } = columns[0];
    const bucketOfValue = new Int32Array(SMALL + 1).fill(-1);
    for (let i = 0; i < matched.length; i++) {
      const s = matched[i];
      const x = values[s];
      const v = x !== x ? SMALL : x; // null in the last cell
      let bucket = bucketOfValue[v];
      if (bucket === -1) {
        bucket = representatives.length;
        if (bucket >= MAX_BUCKETS) return undefined;
        bucketOfValue[v] = bucket;
        representatives.push(s);
        counts.push(0);
      }
      counts[bucket]++;
      slotBucket[s] = bucket;
    }
  } else {
    const bucketOf = new Map<string | number, number>();
    const single = columns.length === 1 && columns[0].kind === 'number' ? columns[0].values : undefined;
    for (let i = 0; i < matched.length; i++) {
      const s = matched[i];
      let key: string | number;
      if (single) key = single[s] !== single[s] ? -Infinity : single[s]; // every NaN (null) alike
      else {
        key = '';
        for (const c of columns) key += (c.kind === 'number' ? (c.values[s] !== c.values[s] ? 'null' : c.values[s]) : c.codes[s]) + ',';
      }
      let bucket = bucketOf.get(key);
      if (bucket === undefined) {
        bucket = representatives.length;
        if (bucket >= MAX_BUCKETS) return undefined;
        bucketOf.set(key, bucket);
        representatives.push(s);
        counts.push(0);
      }
      counts[bucket]++;
      slotBucket[s] = bucket;
    }
  }
  const leadingCompare = (a: number, b: number) => {
    for (let k = 0; k < leading.length; k++) {
      const o = compareOn(columns[k], leading[k].type, a, b);
      if (o !== 0) return leading[k].descending ? -o : o;
    }
    return 0;
  };
  const bucketOrder = representatives.map((_, b) => b).sort((a, b) => leadingCompare(representatives[a], representatives[b]));
  const { keep } = input;
  return bucketPages(input, last, bucketOrder.map((b) => ({ count: counts[b], has: (s: number) => slotBucket[s] === b && keep(s), bucket: { of: slotBucket, is: b } })), from, to);
}

/** Runs of equal first key along its permutation; a run that holds part of the page is sorted by the other keys. */
function runs(input: PageInput, order: SortKey[], from: number, to: number): number[] {
  const first = order[0];
  const p = input.permutation(first.field)!;
  const column: MemoryColumn = input.ctx.column(first.field);
  const rest = slotComparator(input.ctx, order.slice(1));
  const { keep } = input;
  const out: number[] = [];
  let seen = 0;
  let run: number[] = [];
  let previous = -1;
  const flush = () => {
    if (run.length === 0) return true;
    const end = seen + run.length;
    if (end > from) {
      run.sort(rest);
      for (let i = Math.max(0, from - seen); i < run.length && seen + i < to; i++) out.push(run[i]);
    }
    seen = end;
    run = [];
    return seen < to;
  };
  let going = true;
  walk(p, column, first.descending, (slot) => {
    if (previous !== -1 && !sameOn(column, previous, slot) && !flush()) return (going = false);
    previous = slot;
    if (keep(slot)) run.push(slot);
    else if (spent(input.budget)) return (going = false);
    return true;
  });
  if (going) flush();
  return out;
}
