// One filter clause answered from its field's sorted permutation (decision D-84). The slots that an equality, a
// range, a prefix, `in` or null selects lie in a few stretches of the permutation's positions, found by binary
// search; so do those of a text test that holds for a few distinct values (each value's stretch). A list with that
// one clause visits the shorter side (the stretches, or every other position) and marks the mask and counts as it
// goes, instead of passes over every slot (VISIT_SHARE: a position visited in random order costs a few slots of a
// pass).
import { compareCodePoints } from '../../../grammar/compare.ts';
import { semanticsOf } from '../../../grammar/operators.ts';
import type { Semantics } from '../../../grammar/operators.ts';
import type { FilterClause } from '../../../grammar/types.ts';
import { codeBytes, valueAt } from './columns.ts';
import type { DictColumn, MemoryColumn, NumberColumn } from './columns.ts';
import { positiveCodeAnswers } from './filter.ts';
import type { FilterContext } from './filter.ts';
import { firstWhere } from './order.ts';
import type { Permutation, Stretch } from './order.ts';
import type { StretchCounts } from './stretch-counts.ts';
import { boundOf, EQUAL, isRange, plainStrings, stringStretch, stringStretchOperator } from './stretches.ts';
import { MAX_IN, MAX_TEXT_VALUES, VISIT_SHARE } from './tuning.ts';

export interface StretchAnswer {
  permutation: Permutation;
  /** Disjoint, ascending: the positions whose slots the positive operator holds for. */
  stretches: Stretch[];
  negated: boolean;
}

/** The stretches of a number column's permutation (null first, then ascending) that a positive operator holds for. */
function numberStretches(column: NumberColumn, p: Permutation, semantics: Semantics, values: readonly unknown[]): Stretch[] | undefined {
  const v = column.values;
  const nonNull = firstWhere(p, (s) => v[s] === v[s]);
  // NaN (null) compares false: both searches pass over the nulls
  const atLeast = (x: number) => firstWhere(p, (s) => v[s] >= x, nonNull);
  const above = (x: number) => firstWhere(p, (s) => v[s] > x, nonNull);
  const bounds = values.map((x) => boundOf(column, x));
  const [a, b] = bounds;
  const one = (from: number, to: number) => (to > from ? [{ from, to }] : []);
  const { kind } = semantics;
  if (kind === 'null' || kind === 'empty') return one(0, nonNull); // a number is never '' or an array
  if (kind === 'member') {
    const list = [...new Set(bounds.filter((x): x is number => x !== undefined))].sort((x, y) => x - y);
    return list.length > MAX_IN ? undefined : list.flatMap((x) => one(atLeast(x), above(x)));
  }
  if (kind !== 'equal' && !isRange(semantics)) return undefined;
  if (a === undefined || (kind === 'range' && b === undefined)) return [];
  if (kind === 'equal') return one(atLeast(a), above(a));
  if (semantics.kind === 'order') {
    const { below, equal } = semantics.holds;
    if (below) return one(nonNull, equal ? above(a) : atLeast(a));
    return one(equal ? atLeast(a) : above(a), p.length);
  }
  return one(atLeast(a), above(b!));
}

/** The clause as stretches of its field's permutation, or undefined when it is not one of those shapes. */
export function stretchAnswer(clause: FilterClause, ctx: FilterContext): StretchAnswer | undefined {
  const column: MemoryColumn | undefined = ctx.column(clause.field);
  const permutation = ctx.permutation(clause.field);
  if (!column || !permutation) return undefined;
  const { positive: operator, semantics, negated } = semanticsOf(clause.operator, ctx.operators);
  let stretches: Stretch[] | undefined;
  if (column.kind === 'number') stretches = numberStretches(column, permutation, semantics, clause.values);
  else if (plainStrings(column, clause) && semantics.kind === 'member' && clause.values.length <= MAX_IN) {
    const values = [...new Set(clause.values as string[])].sort(compareCodePoints);
    stretches = values.map((x) => stringStretch(column, permutation, EQUAL, [x])).filter((s) => s.to > s.from);
  } else if (plainStrings(column, clause) && stringStretchOperator(semantics, clause.values)) {
    const s = stringStretch(column, permutation, semantics, clause.values as string[]);
    stretches = s.to > s.from ? [s] : [];
  } else if (plainStrings(column, clause) && semantics.kind !== 'presence' && semantics.kind !== 'same') {
    // any other test of the value (contains, endswith, like, match): judged per distinct value, and when it holds for
    // a few values (an id, a rare word), those values' stretches
    const values = fewValues(positiveCodeAnswers(clause, column, operator, ctx), column);
    stretches = values?.map((x) => stringStretch(column, permutation, EQUAL, [x])).filter((s) => s.to > s.from);
  }
  return stretches && { permutation, stretches, negated };
}

/** The distinct strings of the codes set in `ok`, in code point order; undefined beyond MAX_TEXT_VALUES codes (or for null). */
function fewValues(ok: Uint8Array, column: DictColumn): string[] | undefined {
  if (ok[0] === 1) return undefined;
  const words = new Uint32Array(ok.buffer, ok.byteOffset, ok.length >>> 2);
  const values = new Set<string>();
  let hits = 0;
  for (let w = 0; w < words.length; w++) {
    if (words[w] === 0) continue;
    for (let c = w << 2; c < (w + 1) << 2; c++) {
      if (ok[c] === 0) continue;
      if (++hits > MAX_TEXT_VALUES) return undefined;
      values.add(column.dict[c] as string);
    }
  }
  for (let c = words.length << 2; c < ok.length; c++) {
    if (ok[c] === 0) continue;
    if (++hits > MAX_TEXT_VALUES) return undefined;
    values.add(column.dict[c] as string);
  }
  return [...values].sort(compareCodePoints);
}

/** The positions not in `stretches` (disjoint, ascending) among [0, length). */
function complementOf(stretches: Stretch[], length: number): Stretch[] {
  const out: Stretch[] = [];
  let at = 0;
  for (const { from, to } of stretches) {
    if (from > at) out.push({ from: at, to: from });
    at = to;
  }
  if (length > at) out.push({ from: at, to: length });
  return out;
}

const lengthOf = (stretches: Stretch[]) => stretches.reduce((n, s) => n + s.to - s.from, 0);

/** The positions markStretches visits for an answer: its stretches, or the rest when that is shorter. */
export function visitedSide(answer: StretchAnswer): number {
  const selected = lengthOf(answer.stretches);
  return Math.min(selected, answer.permutation.length - selected);
}

/** Whether markStretches visits the answer (its shorter side is short enough to beat a pass), rather than undefined. */
export function visitable(answer: StretchAnswer, size: number): boolean {
  return visitedSide(answer) <= size * VISIT_SHARE;
}

export interface MarkedStretches {
  total: number;
  /** The matching slots (written into the `matched` given), when the matches' positions were the side visited. */
  matched?: Uint32Array;
  /** The one stretch holding every match, when there is one: a page sorted by the field walks only it. */
  within?: Stretch;
}

/**
 * Set `mask` to the list's matches and count them: the slots of the scope (`bits`, `scopeCount` of them) at the
 * positions the answer selects. Undefined, with the mask untouched, when the shorter side is too long to beat a pass.
 */
export function markStretches(answer: StretchAnswer, bits: Uint8Array, scopeCount: number, mask: Uint8Array, size: number, matched: Uint32Array): MarkedStretches | undefined {
  const { slots, length } = answer.permutation;
  const selected = answer.negated ? complementOf(answer.stretches, length) : answer.stretches;
  const selectedLength = lengthOf(selected);
  const within = selected.length === 1 ? selected[0] : undefined;
  if (selectedLength <= length - selectedLength) {
    if (selectedLength > size * VISIT_SHARE) return undefined;
    mask.fill(0, 0, size);
    let total = 0;
    for (const { from, to } of selected) {
      for (let i = from; i < to; i++) {
        const s = slots[i];
        const bit = bits[s];
        mask[s] = bit;
        matched[total] = s;
        total += bit;
      }
    }
    return { total, matched: matched.subarray(0, total), within };
  }
  // most positions are selected: start from the scope and clear the others
  const others = complementOf(selected, length);
  if (length - selectedLength > size * VISIT_SHARE) return undefined;
  mask.set(bits.subarray(0, size));
  let cleared = 0;
  for (const { from, to } of others) {
    for (let i = from; i < to; i++) {
      const s = slots[i];
      cleared += mask[s];
      mask[s] = 0;
    }
  }
  return { total: scopeCount - cleared, within };
}

export interface CountedStretch {
  total: number;
  /** Is the slot a match: in the scope, and at a selected position (read from its value, not from a mask). */
  keep(slot: number): boolean;
  within?: Stretch;
}

/** Whether a slot lies in a stretch, and whether that is read from its value (cheap) or found with the comparator. */
export interface StretchTest {
  inside(slot: number): boolean;
  byValue: boolean;
}

/**
 * The count of an answer of one stretch from the scope's block counts along the permutation (stretch-counts.ts), and a
 * test of one slot (`test`: stretchTest of that stretch), for when both sides are too long to visit: no pass over the
 * slots.
 */
export function countStretch(answer: StretchAnswer, test: StretchTest, counts: StretchCounts, bits: Uint8Array): CountedStretch {
  const { length } = answer.permutation;
  const [{ from, to }] = answer.stretches;
  const { inside } = test;
  if (answer.negated) return { total: counts.count(0, from) + counts.count(to, length), keep: (s) => bits[s] === 1 && !inside(s) };
  return { total: counts.count(from, to), keep: (s) => bits[s] === 1 && inside(s), within: { from, to } };
}

/**
 * Whether a slot is at a position of [from, to): in the permutation's order, neither before the stretch's first slot
 * nor after its last. When the stretch holds whole runs of equal values (the stretches found by value do), the slot's
 * value between the ends' values tells the same at a few times less cost per slot (or, for a stretch of every null,
 * the value being null): numbers, and strings (stringInside).
 */
export function stretchTest(p: Permutation, column: MemoryColumn, from: number, to: number, compare: (a: number, b: number) => number): StretchTest {
  if (to <= from) return { inside: () => false, byValue: true };
  const { slots, length } = p;
  const first = slots[from];
  const last = slots[to - 1];
  if (column.kind === 'number') {
    const v = column.values;
    const lo = v[first];
    const hi = v[last];
    const isNull = (x: number) => x !== x;
    if (lo === lo && hi === hi && (from === 0 || v[slots[from - 1]] < lo || isNull(v[slots[from - 1]])) && (to === length || v[slots[to]] > hi)) return { inside: (s) => v[s] >= lo && v[s] <= hi, byValue: true };
    if (isNull(lo) && isNull(hi) && from === 0 && (to === length || !isNull(v[slots[to]]))) return { inside: (s) => v[s] !== v[s], byValue: true };
  }
  const strings = column.kind === 'dict' && column.type === 'string' && column.allStrings ? stringInside(column, slots, length, from, to) : undefined;
  return strings ? { inside: strings, byValue: true } : { inside: (s) => compare(first, s) <= 0 && compare(s, last) <= 0, byValue: false };
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * stretchTest's value test for a string column (null first, then code point order), when the stretch holds whole runs
 * of equal values: the slot's value between the ends' values. JavaScript's `<` on strings compares code units, the
 * same order as code points for two strings without surrogates, at a fraction of the cost of the permutation's
 * comparator (several times less), so a counted walk of a string range is taken as deep as a number's; a
 * value with surrogates (or that `plain` leaves out for other reasons) is compared by code point.
 */
function stringInside(column: DictColumn, slots: Uint32Array, length: number, from: number, to: number): ((slot: number) => boolean) | undefined {
  const { codes, dict } = column;
  const valueOf = (s: number) => valueAt(column, s) as string | null; // null at code 0
  const lo = valueOf(slots[from]);
  const hi = valueOf(slots[to - 1]);
  if ((lo !== null && SURROGATE.test(lo)) || (hi !== null && SURROGATE.test(hi))) return undefined;
  // whole runs: the value before the stretch is below its first (null is below every string), the one after above its last
  const before = from === 0 ? undefined : valueOf(slots[from - 1]);
  const after = to === length ? undefined : valueOf(slots[to]);
  if (before !== undefined && (lo === null || (before !== null && compareCodePoints(before, lo) >= 0))) return undefined;
  if (after !== undefined && (after === null || (hi !== null && compareCodePoints(after, hi) <= 0))) return undefined;
  if (hi === null) return (s) => codes[s] === 0; // nulls only
  const plain = codeBytes(column, 'plain');
  return (s) => {
    const c = codes[s];
    if (c === 0) return lo === null;
    const v = dict[c] as string;
    if (plain[c] === 1) return (lo === null || v >= lo) && v <= hi;
    return (lo === null || compareCodePoints(lo, v) <= 0) && compareCodePoints(v, hi) <= 0;
  };
}
