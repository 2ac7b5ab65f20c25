// A list of cases from one table (decision D-84), planned, then run (../list-plan.ts says what a plan holds;
// README.md has the picture): planClauses chooses how the clauses are answered from counts alone, answerClauses
// answers them (the count), planPage completes the plan with the page's way from the count; runPlan makes the page
// as planned and never writes to the plan (a walk's spent budget is a value it returns, the plan holding the way it
// gives way to). `--explain-lists` prints the plan per request.
import type { FilterClause, ListQuery } from '../../../grammar/types.ts';
import type { CareSpec } from '../../../spec/types.ts';
import type { Scope } from '../types.ts';
import { isNullAt } from './columns.ts';
import type { DictColumn, MemoryColumn } from './columns.ts';
import { applyClause, countMask } from './filter.ts';
import { sameCounted } from './same-counts.ts';
import type { FilterContext } from './filter.ts';
import { permComparator } from './order.ts';
import type { Permutation, Stretch } from './order.ts';
import { pageSlots, pageWay } from './page.ts';
import type { Budget, PageShape, PageWay } from './page.ts';
import type { ClauseWay, ListPlan, MatchTest, PlanOutcome } from './plan.ts';
import { NON_NULLS, NULLS } from './scope-counts.ts';
import type { CountedClause } from './scope-counts.ts';
import { countStretch, markStretches, stretchAnswer, stretchTest, visitable, visitedSide } from './stretch-answer.ts';
import type { CountedStretch, StretchAnswer } from './stretch-answer.ts';
import { StretchCounts } from './stretch-counts.ts';
import { IN, MIXED, OUT } from './zone-bounds.ts';
import { COUNTED, NONE, SOME } from './zone-walk.ts';
import type { Zones } from './zone-walk.ts';
import type { Zones as WalkZones } from './zone-walk.ts';
import { BUCKET_COUNTS_AFTER, CODE_BLOCK_CODES, COUNTED_WALK_SHARE, INTEGER_KEYS, SKIP_WALK_COST, ZONED_WALK_BLOCKS } from './tuning.ts';
import type { ScopeMask, Table } from './table.ts';

/**
 * One clause of one stretch counted from the scope's block counts along its permutation, with its page walked testing
 * each slot, or undefined when that walk is expected to be long (then the passes). The walk is estimated from the
 * stretch's length and the scope's share of the slots before the counts are made (on a scope's first such list), so a
 * list that will not use them does not make them. With `zoned` (a page sorted by another field), the walk skips
 * blocks and is bounded by the blocks it may test, and is taken up to the larger zoned share.
 */
function blockCounted(t: Table, scoped: ScopeMask, answer: StretchAnswer, one: FilterClause, query: ListQuery, zoned?: ZonedWalk): (CountedStretch & { budget: number; zoned?: ZonedWalk }) | undefined {
  if (answer.stretches.length !== 1) return undefined;
  const column = t.columns.get(one.field)!;
  const { from, to } = answer.stretches[0];
  const bySelf = !answer.negated && query.sort.length === 1 && query.sort[0].field === one.field;
  const walked = (total: number) => Math.min(expectedWalk(query, total, bySelf ? to - from : t.aliveCount), zoned?.walk() ?? Infinity);
  const test = stretchTest(answer.permutation, column, from, to, permComparator(t.order, answer.permutation));
  const zonedLimit = t.size * COUNTED_WALK_SHARE.zoned;
  const limit = test.byValue && zoned && zoned.walk() <= zonedLimit ? zonedLimit : t.size * COUNTED_WALK_SHARE[test.byValue ? 'byValue' : 'byComparator'];
  if (walked(expectedTotal(answer, scoped, t)) > limit) return undefined;
  const counted = countStretch(answer, test, t.stretchCountsOf(scoped, answer.permutation), scoped.bits);
  return walked(counted.total) > limit ? undefined : { ...counted, budget: limit, zoned };
}

/** A page's walk along the sort key's permutation skipping blocks (zone-walk.ts), and the slots it tests at most. */
interface ZonedWalk {
  /** Slots the walk tests at most. */
  walk(): number;
  /** The blocks, their matches counted from the scope's counts along that permutation. */
  zones(): Zones;
  /**
   * The blocks where no slot matches, for a walk that tests the other slots in the mask of the matches (after the
   * stretch was marked, or the pass made): needs no counts. Undefined when the walk is not expected to pass three
   * times more slots than it tests (SKIP_WALK_COST), the matches spread evenly over the blocks that may hold some.
   */
  skips(total: number): Zones | undefined;
}

/**
 * One clause of one stretch, a page sorted by another field: the blocks of that field's permutation where no value,
 * or every non-null value, is in the stretch, from the bounds of the clause's column there (zone-bounds.ts). Such a
 * block's matches are its in-scope slots (the scope's block counts), or its in-scope nulls or non-nulls from the
 * scope's counts of nulls per block (code-block-counts.ts) when it may hold a null. A stretch that starts with the
 * nulls (`empty`, `null` among others) has its non-null part bounded, and its nulls counted alike. The walk tests
 * the blocks of some matches at most, and the part of a block the page takes.
 */
function zonedWalk(t: Table, scoped: ScopeMask, answer: StretchAnswer, one: FilterClause, query: ListQuery): ZonedWalk | undefined {
  if (answer.stretches.length !== 1 || query.sort.length !== 1) return undefined;
  const along = t.permutations.get(query.sort[0].field);
  const column = t.columns.get(one.field)!;
  if (!along || along === answer.permutation || (column.kind === 'dict' && !(column.type === 'string' && column.allStrings))) return undefined;
  const { from, to } = answer.stretches[0];
  if (to <= from) return undefined;
  const { slots } = answer.permutation;
  // the nulls lead the permutation: the stretch's non-null part starts after those it holds
  const nonNull = firstNonNull(column, slots, from, to);
  const nullsIn = nonNull > from;
  const bounds = t.zoneBoundsOf(along, column);
  const { block } = t;
  const blocks = Math.ceil(along.length / block);
  const raw = nonNull < to ? bounds.kinds(slots[nonNull], slots[to - 1], blocks) : new Uint8Array(blocks).fill(OUT);
  if (!raw) return undefined;
  const { negated } = answer;
  const kinds = new Uint8Array(blocks);
  const which = new Uint8Array(blocks);
  let some = 0;
  let nulls = false;
  for (let k = 0; k < blocks; k++) {
    [kinds[k], which[k]] = raw[k] === MIXED ? [SOME, ALL] : blockMatches((raw[k] === IN) !== negated, nullsIn !== negated, bounds.mayHoldNull(k));
    some += kinds[k] === SOME ? 1 : 0;
    nulls ||= kinds[k] === COUNTED && which[k] !== ALL;
  }
  const walk = () => (some + 2) * block + (query.page.size * t.aliveCount) / Math.max(scoped.count, 1);
  return {
    walk,
    zones: () => {
      const counts = t.stretchCountsOf(scoped, along);
      // counts of nulls are never broken (two keys)
      const nullCounts = nulls ? t.codeBlocksOf(scoped, along, column, 'nulls') : undefined;
      const matches = (k: number) => {
        if (which[k] === ALL) return counts.count(k * block, Math.min((k + 1) * block, along.length));
        return nullCounts!.matches(k, which[k] === ONLY_NULLS ? NULLS : NON_NULLS);
      };
      return { block, kinds, matches, cost: walk() };
    },
    skips: (total) => {
      // the blocks the walk is expected to pass (from the end page.ts walks from), the matches spread evenly over the
      // blocks that may hold some
      const { needed: matches, ascending } = pageWalk(query, total);
      let open = 0;
      for (let k = 0; k < blocks; k++) open += kinds[k] === NONE ? 0 : 1;
      const needed = (open * matches) / Math.max(total, 1);
      let passed = 0;
      let tested = 0;
      for (let i = 0; i < blocks && tested < needed; i++, passed++) tested += kinds[ascending ? i : blocks - 1 - i] === NONE ? 0 : 1;
      if (tested * SKIP_WALK_COST >= passed) return undefined;
      const skipping = kinds.map((kind) => (kind === NONE ? NONE : SOME));
      return { block, kinds: skipping, matches: () => 0, cost: (tested + 2) * block };
    },
  };
}

/** Which in-scope slots of a block match, when they are counted (zonedWalk). */
const ALL = 0;
const ONLY_NULLS = 1;
const ONLY_NON_NULLS = 2;

/**
 * A block's kind and which of its slots match, for a block whose non-null values are all matches (`valuesMatch`) or
 * none, with its nulls matches or not (`nullsMatch`).
 */
function blockMatches(valuesMatch: boolean, nullsMatch: boolean, mayHoldNull: boolean): [number, number] {
  if (!mayHoldNull || valuesMatch === nullsMatch) return valuesMatch ? [COUNTED, ALL] : [NONE, ALL];
  return [COUNTED, valuesMatch ? ONLY_NON_NULLS : ONLY_NULLS];
}

/** The first position in [from, to) of a permutation (nulls first) whose slot's value is not null; `to` if none. */
function firstNonNull(column: MemoryColumn, slots: Uint32Array, from: number, to: number): number {
  let [lo, hi] = [from, to];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isNullAt(column, slots[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One clause counted per value of a few-valued dictionary column, a `null` test counted per scope (scope-counts.ts),
 * or `sameas` on a pair kept as a mask (same-counts.ts), a page sorted by one field: each block of that field's
 * permutation counted from the scope's counts per code (of nulls, of same slots) there, so the walk skips the blocks
 * before the page and tests the slots of about one block and the page's own; a page whose plain walk is short walks
 * it (ZONED_WALK_BLOCKS).
 */
function codeZones(t: Table, scoped: ScopeMask, counted: CountedClause, query: ListQuery): Zones | undefined {
  const along = query.sort.length === 1 ? t.permutations.get(query.sort[0].field) : undefined;
  const { codes, same } = counted;
  if (!along || !(codes || same) || tooManyCodesForBlocks(counted)) return undefined;
  if (expectedWalk(query, counted.total, t.aliveCount) < ZONED_WALK_BLOCKS * t.block) return undefined;
  if (codes) {
    const counts = t.codeBlocksOf(scoped, along, codes.column, codes.nulls ? 'nulls' : 'codes');
    return counts && countedZones(t, along, (k) => counts.matches(k, codes.ok), query.page.size);
  }
  // `sameas`: a deep page of `priority sameas status` walked a large part of the table before these counts
  const ok = new Uint8Array(2);
  ok[same!.wanted] = 1;
  const counts = t.sameBlocksOf(scoped, along, same!);
  return countedZones(t, along, (k) => counts.matches(k, ok), query.page.size);
}

/**
 * Is the clause on a dictionary column of too many codes to count per block (codeZones)? Its page is then walked
 * within a budget of slots, past which a pass over the codes and a walk through the mask are cheaper.
 */
function tooManyCodesForBlocks(counted: CountedClause): boolean {
  const codes = counted.codes;
  return codes !== undefined && !codes.nulls && codes.column.kind === 'dict' && codes.column.dict.length > CODE_BLOCK_CODES;
}

/**
 * A list without filters sorted by a small integer (a status, a priority), then by one field: the bucket of one value
 * walked along that field's permutation, each block counted from the scope's counts per integer there, so a deep page
 * skips the blocks before it. The counts are made on the BUCKET_COUNTS_AFTER-th such list of the scope and field: making them is a
 * pass over the permutation reading two columns at random, several times the walk they save, worth it for a sort
 * that recurs (BUCKET_COUNTS_AFTER).
 */
function bucketZones(t: Table, scoped: ScopeMask, lead: string, value: number, last: string, size: number, walk: number): Zones | undefined {
  const along = t.permutations.get(last);
  const column = t.columns.get(lead);
  if (!along || column?.kind !== 'number' || !(value >= 0 && value < INTEGER_KEYS) || walk < ZONED_WALK_BLOCKS * t.block) return undefined;
  const counts = t.codeBlocksOf(scoped, along, column, 'integers', BUCKET_COUNTS_AFTER);
  const ok = new Uint8Array(INTEGER_KEYS + 2);
  ok[value] = 1;
  return counts && countedZones(t, along, (k) => counts.matches(k, ok), size);
}

/**
 * A list without filters sorted by one field: each block of that field's permutation counted from the scope's block
 * counts there (stretch-counts.ts), so the walk skips the blocks holding none of the scope's cases and passes over
 * those before the page by their counts. A scope whose cases lie together at the far end of the sort (a customer whose
 * cases are all old, newest first; an account's contracts, sorted by contract descending) is otherwise walked past
 * the rest of the table. The counts are made on the BUCKET_COUNTS_AFTER-th such list of the scope and field, as bucketZones' are,
 * and used when a plain walk would pass more than ZONED_WALK_BLOCKS blocks (passedBlocks).
 */
function scopeZones(t: Table, scoped: ScopeMask, query: ListQuery): Zones | undefined {
  const along = query.filters.length === 0 && query.sort.length === 1 ? t.permutations.get(query.sort[0].field) : undefined;
  if (!along || along.length < ZONED_WALK_BLOCKS * t.block) return undefined;
  const counts = t.stretchCountsAfter(scoped, along, BUCKET_COUNTS_AFTER);
  if (!counts || passedBlocks(t, along, counts, scoped.count, query) <= ZONED_WALK_BLOCKS) return undefined;
  const zones = countedZones(t, along, (k) => counts.inBlock(k), query.page.size);
  // descending on a field of a few values (a contract, a status), the walk goes run by run, each counted: joined into
  // segments at block boundaries, the runs would make one segment walked whole
  const column = t.columns.get(along.field)!;
  const few = column.kind === 'dict' ? column.dict.length <= CODE_BLOCK_CODES : scoped.counts.integerCounts(column) !== undefined;
  if (query.sort[0].descending && few) zones.inRange = (from, to) => counts.count(from, to);
  return zones;
}

/**
 * The blocks a plain walk of the scope's `total` slots passes, from the end it starts at, to the page's last slot:
 * a walk of a few blocks is cheaper than skipping by counts (its loop reads the mask; a walk that skips calls a test).
 */
function passedBlocks(t: Table, along: Permutation, counts: StretchCounts, total: number, query: ListQuery): number {
  const { needed, ascending } = pageWalk(query, total);
  const blocks = Math.ceil(along.length / t.block);
  let seen = 0;
  let passed = 0;
  while (seen < needed && passed < blocks) seen += counts.inBlock(ascending ? passed++ : blocks - 1 - passed++);
  return passed;
}

/** Every block of a permutation counted: `inBlock(k)` matches in block k. */
function countedZones(t: Table, along: Permutation, inBlock: (k: number) => number, size: number): Zones {
  const blocks = Math.ceil(along.length / t.block);
  const matches = new Int32Array(blocks);
  const kinds = new Uint8Array(blocks);
  let total = 0;
  for (let k = 0; k < blocks; k++) {
    matches[k] = inBlock(k);
    kinds[k] = matches[k] > 0 ? COUNTED : NONE;
    total += matches[k];
  }
  return { block: t.block, kinds, matches: (k) => matches[k], cost: 2 * t.block + (size * t.aliveCount) / Math.max(total, 1) };
}

/** The matches of a one-stretch answer if the scope's slots spread evenly along its permutation. */
function expectedTotal(answer: StretchAnswer, scoped: ScopeMask, t: Table): number {
  const { from, to } = answer.stretches[0];
  const selected = answer.negated ? answer.permutation.length - (to - from) : to - from;
  return (selected * scoped.count) / Math.max(t.aliveCount, 1);
}

/**
 * Slots a page's walk is expected to visit when the list's `total` matches spread evenly along the `along` positions
 * it walks (from the nearer end, as page.ts does).
 */
function expectedWalk(query: ListQuery, total: number, along: number): number {
  const offset = (query.page.number - 1) * query.page.size;
  return (Math.max(0, Math.min(offset + query.page.size, total - offset)) * along) / Math.max(total, 1);
}

/**
 * A one-key page's walk as page.ts takes it among `total` matches: the matches it visits, from the nearer end of the
 * list, and whether that goes up the sort key's permutation.
 */
function pageWalk(query: ListQuery, total: number): { needed: number; ascending: boolean } {
  const offset = (query.page.number - 1) * query.page.size;
  const end = Math.min(total, offset + query.page.size);
  const back = total - offset < end;
  return { needed: back ? total - offset : end, ascending: query.sort[0].descending === back };
}

/** How a list's clauses will be answered, with what the chosen way needs (planClauses; the plan's first part). */
interface Clauses {
  way: ClauseWay;
  /** The list's one clause, for the ways that answer one. */
  one?: FilterClause;
  /** `scope counts`, `same counts`: the clause's total and its per-slot test. */
  counted?: CountedClause;
  /** The stretch ways (and `passes` of a clause that has stretches): the clause's stretches. */
  answer?: StretchAnswer;
  /** One stretch, a page sorted by another field: a walk of that field skipping blocks by the clause's bounds. */
  zoned?: ZonedWalk;
  /** `stretch block counts`: the total from the blocks, a per-slot test and the budget of its walk. */
  spanned?: CountedStretch & { budget: number; zoned?: ZonedWalk };
}

/**
 * The first way that applies: one clause counted (same counts, scope counts); one clause of stretches visited, unless
 * a zoned walk along the sort is shorter than the visit; one stretch counted from blocks when its page's walk is
 * short; else one pass per clause. Only counts are read here (no pass over the slots).
 */
function planClauses(t: Table, scoped: ScopeMask, query: ListQuery, ctx: FilterContext): Clauses {
  if (query.filters.length === 0) return { way: 'none' };
  if (query.filters.length > 1) return { way: 'passes' };
  const one = query.filters[0];
  const same = sameCounted(one, ctx, { alive: { bits: t.alive, count: t.aliveCount, sames: t.sames }, scope: scoped, scopes: t.scopes.values() }, t.mask);
  if (same) return { way: 'same counts', one, counted: same };
  const counted = scoped.counts.answer(one, ctx, scoped.bits, scoped.count);
  if (counted) return { way: 'scope counts', one, counted };
  const answer = stretchAnswer(one, ctx);
  if (!answer) return { way: 'passes', one };
  // one stretch, a page sorted by another field along which the matches lie together: walked skipping blocks, rather
  // than the stretch visited when that is longer
  const zoned = zonedWalk(t, scoped, answer, one, query);
  const zonedFirst = zoned && zoned.walk() < visitedSide(answer) && zoned.walk() <= t.size * COUNTED_WALK_SHARE.zoned;
  if (!zonedFirst && visitable(answer, t.size)) return { way: 'stretch visit', one, answer, zoned };
  // one stretch, both sides too long to visit: counted from the scope's blocks of the permutation when the page's
  // walk is short
  const spanned = blockCounted(t, scoped, answer, one, query, zoned);
  if (spanned) return { way: 'stretch block counts', one, answer, zoned, spanned };
  return { way: 'passes', one, answer, zoned };
}

/** The clauses answered (answerClauses): the total, and what the page may read of the matches. */
interface Matches {
  total: number;
  /** The mask holds the matches (the visit or the passes made it); else the page makes it if it needs it. */
  masked: boolean;
  /** The matching slots, when the visit gathered them. */
  gathered?: Uint32Array;
  /** Per field, the positions of its permutation holding every match (a stretch visited or counted, a range's pass). */
  stretches: ReadonlyMap<string, Stretch>;
}

type ListContext = FilterContext & { stretches: Map<string, Stretch> };

/** The mask of the matches: the scope's, then the counted clause's narrowing or one pass per clause. */
function makeMask(t: Table, scoped: ScopeMask, query: ListQuery, ctx: ListContext, c: Clauses): void {
  t.mask.set(scoped.bits.subarray(0, t.size));
  if (c.counted) c.counted.narrow(t.mask, t.size);
  else for (const clause of query.filters) applyClause(t.mask, clause, ctx);
}

/**
 * Answer the clauses the way planned: the visit marks and counts, the passes make the mask and it is counted; a
 * counted way (counts per value, per block) has its total already and makes no mask.
 */
function answerClauses(t: Table, scoped: ScopeMask, query: ListQuery, ctx: ListContext, c: Clauses): Matches {
  const marked = c.answer && c.way === 'stretch visit' ? markStretches(c.answer, scoped.bits, scoped.count, t.mask, t.size, t.matched) : undefined;
  if (c.way === 'stretch visit' && !marked) throw new Error('a stretch planned to be visited was not');
  const within = marked?.within ?? c.spanned?.within;
  if (within) ctx.stretches.set(c.one!.field, within);
  const unmasked = c.counted ?? c.spanned;
  if (unmasked) return { total: unmasked.total, masked: false, stretches: new Map(ctx.stretches) };
  if (marked) return { total: marked.total, masked: true, gathered: marked.matched, stretches: new Map(ctx.stretches) };
  makeMask(t, scoped, query, ctx, c);
  return { total: query.filters.length === 0 ? scoped.count : countMask(t.mask, t.size), masked: true, stretches: new Map(ctx.stretches) };
}

/** One way of making the page, decided before it is made (planPage), which runPlan follows. */
interface PageStep {
  test: MatchTest;
  /** `values`: the slot's values tell a match (else the mask does). */
  keep?: (slot: number) => boolean;
  /** `values within a budget`: the slots its walk may test, and the way through the mask it gives way to past them. */
  budget?: { slots: number; ifSpent: PageStep };
  /** What the way was chosen from (the blocks skipped in it). */
  shape: PageShape;
  zones: ListPlan['zones'];
  way: PageWay;
}

/** A list planned whole: its description (the plan) and what running it needs. */
export interface Planned {
  plan: ListPlan;
  query: ListQuery;
  scoped: ScopeMask;
  ctx: ListContext;
  clauses: Clauses;
  matches: Matches;
  page: PageStep;
}

/**
 * How the page is made, from the count and the clauses' way, before any slot of it is walked: what tells a match
 * (the mask, or the slots' values, within a budget or not), which blocks the walk skips and the page's way (page.ts
 * pageWay). A walk within a budget has the mask walk it gives way to planned too. Reads counts, makes no page.
 */
function planPage(t: Table, scoped: ScopeMask, query: ListQuery, c: Clauses, m: Matches): PageStep {
  const { total } = m;
  const shapeWith = (zones: WalkZones | undefined): PageShape => ({
    ctx: t.order,
    permutation: (field) => t.permutations.get(field),
    slots: t.size,
    stretch: (field) => m.stretches.get(field),
    zones: (field) => (field === query.sort[0]?.field ? zones : undefined),
    integerCounts: query.filters.length === 0 ? (field) => scoped.counts.integerCounts(t.columns.get(field)) : undefined,
    bucketZones: query.filters.length === 0 ? (lead, value, last, walk) => bucketZones(t, scoped, lead, value, last, query.page.size, walk) : undefined,
    total,
    alive: t.aliveCount,
    keys: query.sort,
    offset: (query.page.number - 1) * query.page.size,
    size: query.page.size,
  });
  const step = (test: MatchTest, zones: ListPlan['zones'], walkZones: WalkZones | undefined, keep?: (slot: number) => boolean): PageStep => {
    const shape = shapeWith(walkZones);
    const way = pageWay(shape);
    // zones offered to a page that is sorted, or walked within a stretch, are not used
    return { test, keep, shape, way, zones: way.how === 'walk' && way.zones ? zones : 'none' };
  };
  // the mask of every match walked; one stretch's page sorted by another field skips the blocks holding no match
  const byMask = () => {
    const skips = c.zoned?.skips(total);
    const zones = skips ?? scopeZones(t, scoped, query);
    return step('mask', skips ? 'zone skips' : zones ? 'scope blocks' : 'none', zones);
  };
  // one clause on a counted column (or counted from blocks): its total from the counts, its page walked reading the
  // slots' values. A page walked skipping blocks by counts (per code, of nulls, of a `sameas` pair's same slots) needs
  // no budget; else a test per slot that reads more than a code, or a code of a many-valued column, is walked within a
  // budget of slots (one stretch counted from blocks, `sameas` counted per scope, tooManyCodesForBlocks)
  const unmasked = c.counted ?? c.spanned;
  const zones = c.counted ? codeZones(t, scoped, c.counted, query) : undefined;
  const walkShare = c.counted && !zones ? (c.counted.walkShare ?? (tooManyCodesForBlocks(c.counted) ? COUNTED_WALK_SHARE.byValue : undefined)) : undefined;
  const budgeted = c.spanned ?? (walkShare !== undefined ? { keep: c.counted!.keep, budget: t.size * walkShare } : undefined);
  if (!budgeted) return unmasked ? step('values', zones ? 'code blocks' : 'none', zones, unmasked.keep) : byMask();
  if (!c.spanned && expectedWalk(query, total, t.aliveCount) > budgeted.budget) return byMask();
  // the walk is estimated from the matches' share of the slots, but they may lie together in the walk's order (a
  // range of dates along ids given in date order): past its budget, the walk gives way to the passes and a walk
  // through the mask (a few times cheaper per slot)
  const bounded = c.spanned?.zoned?.zones();
  return { ...step('values within a budget', bounded ? 'zone bounds' : 'none', bounded, budgeted.keep), budget: { slots: budgeted.budget, ifSpent: byMask() } };
}

/**
 * Plan a list from a table whole: the clauses from counts alone, answered (the count), then the page (planPage). The
 * caller checked that the table can answer it (filled and current, its fields held, `scopeColumn` the scope's column).
 */
export function planList(t: Table, scopeColumn: DictColumn, scope: Scope, query: ListQuery, operators: CareSpec['operators']): Planned {
  const scoped = t.scopeMask(scopeColumn, scope.values);
  const ctx: ListContext = { column: (field: string) => t.columns.get(field), permutation: (field: string) => t.permutations.get(field), operators, size: t.size, stretches: new Map<string, Stretch>(), judged: new Map() };
  const clauses = planClauses(t, scoped, query, ctx);
  const matches = answerClauses(t, scoped, query, ctx, clauses);
  const page = planPage(t, scoped, query, clauses, matches);
  const count: ListPlan['count'] = clauses.way === 'none' ? 'scope' : clauses.way === 'passes' ? 'mask' : clauses.way;
  const plan: ListPlan = { scope: { by: scope.by, values: scope.values.length, cases: scoped.count }, clauses: clauses.way, count, totalCount: matches.total, test: page.test, zones: page.zones, page: page.way };
  if (clauses.answer && clauses.way !== 'passes') plan.stretchOf = clauses.answer.permutation.field;
  if (page.budget) plan.ifSpent = { zones: page.budget.ifSpent.zones, page: page.budget.ifSpent.way };
  return { plan, query, scoped, ctx, clauses, matches, page };
}

/**
 * Make the page the way a complete plan says, writing nothing to it: the page's slots, and what the run did where the
 * plan left it a choice (a walk that spent its budget, made again through the mask; buckets too many, made by runs).
 */
export function runPlan(t: Table, planned: Planned): { slots: number[]; outcome: PlanOutcome } {
  const { query, scoped, ctx, clauses, matches, page } = planned;
  const { mask, size } = t;
  let masked = matches.masked;
  let gathered = matches.gathered;
  const maskMade = () => {
    if (!masked) makeMask(t, scoped, query, ctx, clauses);
    masked = true;
  };
  const matched = () => {
    maskMade();
    return (gathered ??= t.matched.subarray(0, collect(mask, t.matched, size)));
  };
  const maskKeep = (s: number) => mask[s] === 1;
  const make = (step: PageStep, budget?: Budget) => {
    if (!step.keep) maskMade();
    const keep = step.keep ?? maskKeep;
    const counted = budget ? (s: number) => --budget.left >= 0 && keep(s) : keep;
    return pageSlots({ ...step.shape, keep: counted, mask: step.keep ? undefined : mask, matched, budget }, step.way);
  };
  const made = page.budget ? make(page, { left: page.budget.slots }) : make(page);
  if (made.spent) {
    const again = make(page.budget!.ifSpent);
    return { slots: again.slots, outcome: again.runs ? 'too many buckets: runs' : 'budget spent: mask walk' };
  }
  return { slots: made.slots, outcome: made.runs ? 'too many buckets: runs' : 'as planned' };
}

/** The matching slots into `matched` (4 slots per 32-bit word: a word of 0s is skipped at once); their number. */
function collect(mask: Uint8Array, matched: Uint32Array, size: number): number {
  const words = new Uint32Array(mask.buffer, mask.byteOffset, mask.length >>> 2);
  let total = 0;
  const end = size >>> 2;
  for (let w = 0; w < end; w++) {
    if (words[w] === 0) continue;
    const s = w << 2;
    if (mask[s] === 1) matched[total++] = s;
    if (mask[s + 1] === 1) matched[total++] = s + 1;
    if (mask[s + 2] === 1) matched[total++] = s + 2;
    if (mask[s + 3] === 1) matched[total++] = s + 3;
  }
  for (let s = end << 2; s < size; s++) if (mask[s] === 1) matched[total++] = s;
  return total;
}
