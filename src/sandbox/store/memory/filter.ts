// Filter clauses over the in-memory columns (decision D-84), with the grammar's semantics (D-22) by construction:
// a dictionary-coded field is judged once per distinct value by the grammar's own `matchesClause` (or a test proved
// equal to it for the plain string operators), then every slot reads its code's answer; integers and datetimes are
// compared as the numbers the grammar compares (compareTyped: integers as numbers, datetimes by instant). A clause
// no fast form covers (sameas across kinds) runs `matchesClause` per slot on the slot's values.
import { likeAsTest, SEMANTICS, semanticsOf, stringTest } from '../../../grammar/operators.ts';
import type { Semantics } from '../../../grammar/operators.ts';
import { requiredLiteral } from '../../../grammar/regex.ts';
import { matchesClause } from '../../../grammar/evaluate.ts';
import type { FilterClause } from '../../../grammar/types.ts';
import type { OperatorSpec } from '../../../spec/types.ts';
import { keyOf, codeBytes, suffixOrderOf, textIndexOf, valueAt, wordIndexOf } from './columns.ts';
import { boundOf, isRange, plainStrings, stringStretch, stringStretchOperator } from './stretches.ts';
import type { TextTest } from './text-index.ts';
import type { Permutation, Stretch } from './order.ts';
import type { DictColumn, MemoryColumn, NumberColumn } from './columns.ts';
import { RANGE_SLOTS_PER_VALUE, SAMEAS_LOOKUP_SLOTS } from './tuning.ts';

export interface FilterContext {
  column(field: string): MemoryColumn | undefined;
  /** The field's sorted permutation, if it has one (string ranges are read from it). */
  permutation(field: string): Permutation | undefined;
  operators: Record<string, OperatorSpec>;
  /** Slots 0..size-1 are candidates; `mask[s]` 1 means still matching. */
  size: number;
  /**
   * Set by a range or prefix read from a permutation (and not negated): every match lies in positions [from, to) of
   * that field's permutation, so a page walked along it starts there rather than at its first position.
   */
  stretches?: Map<string, Stretch>;
  /**
   * Answers per code already judged for this list (positive, before negation), by clause: a clause judged to see
   * whether it selects a few values (stretch-answer.ts) is not judged again by its pass.
   */
  judged?: Map<FilterClause, Uint8Array>;
}

/** Clear `mask[s]` of every slot that does not satisfy `clause`. */
export function applyClause(mask: Uint8Array, clause: FilterClause, ctx: FilterContext): void {
  const column = ctx.column(clause.field);
  if (!column) throw new Error(`no memory column for ${clause.field}`);
  const { positive: operator, semantics, negated } = semanticsOf(clause.operator, ctx.operators);
  if (semantics.kind === 'presence') {
    if (negated) mask.fill(0, 0, ctx.size); // every declared field is present on every case (D-05)
    return;
  }
  if (semantics.kind === 'same') return sameAs(mask, clause, column, negated, ctx);
  if (column.kind === 'dict') return dictClause(mask, clause, column, operator, negated, ctx);
  return numberClause(mask, clause, column, operator, negated, ctx);
}

/**
 * The clause's answer per code of a dictionary column (0/1, negation applied), when the clause is judged per distinct
 * value: every operator but `exists` and `sameas` (which read no value, or a second column), and ranges read from the
 * permutation (rangePermutation). A list with this one clause counts its matches from the scope's count per code
 * instead of a pass over the slots (engine.ts).
 */
export function codeAnswers(clause: FilterClause, column: DictColumn, ctx: FilterContext): Uint8Array | undefined {
  const { positive: operator, semantics, negated } = semanticsOf(clause.operator, ctx.operators);
  if (semantics.kind === 'presence' || semantics.kind === 'same' || rangePermutation(clause, column, operator, ctx)) return undefined;
  return dictAnswers(clause, column, operator, negated, ctx);
}

/** The positive operator's answer per code (judged once per list: kept in `ctx.judged` for the clause's pass). */
export function positiveCodeAnswers(clause: FilterClause, column: DictColumn, operator: string, ctx: FilterContext): Uint8Array {
  const ok = dictAnswers(clause, column, operator, false, ctx);
  ctx.judged?.set(clause, ok);
  return ok;
}

/** Per distinct value: does the grammar's positive (or negative) operator hold? */
function dictAnswers(clause: FilterClause, column: DictColumn, operator: string, negated: boolean, ctx: FilterContext): Uint8Array {
  const judged = ctx.judged?.get(clause);
  if (judged) {
    ctx.judged!.delete(clause); // flipped below: not to be read again
    return negated ? flip(judged) : judged;
  }
  const { dict } = column;
  const ok = new Uint8Array(dict.length);
  const plainString = column.type === 'string' && clause.values.every((v) => typeof v === 'string');
  const semantics = SEMANTICS[operator];
  let literal: string | null = null;
  let search: TextTest | undefined;
  let stringOk: ((value: string) => boolean) | undefined;
  if (plainString && (semantics.kind === 'equal' || semantics.kind === 'member') && column.index) {
    // string equality is code point equality (compareCodePoints = 0): the dictionary's own lookup
    for (const v of clause.values) {
      const code = column.index.get(keyOf(v));
      if (code !== undefined) ok[code] = 1;
    }
  } else if (plainString && column.allStrings && (search = textSearch(semantics))) {
    // substring search over all distinct values at once (text-index.ts; endswith: suffix-order.ts)
    for (const v of clause.values) markText(column, search, v as string, ok);
  } else if (plainString && column.allStrings && semantics.kind === 'pattern' && semantics.pattern === 'like') {
    const pattern = clause.values[0] as string;
    const shape = likeAsTest(pattern);
    if (shape?.test === 'any') ok.fill(1, 1);
    else if (shape) markText(column, shape.test === 'equal' ? 'eq' : shape.test, shape.x, ok);
    else {
      // the values holding the pattern's longest literal run, then the grammar's matcher on those only
      const runs = pattern.split(/[*?]/).filter((run) => run.length > 0);
      const test = stringTest(semantics, [pattern])!;
      if (runs.length === 0) for (let c = 1; c < dict.length; c++) ok[c] = test(dict[c] as string) ? 1 : 0;
      else {
        const longest = runs.reduce((a, b) => (b.length > a.length ? b : a));
        markContains(column, longest, ok);
        for (let c = 1; c < dict.length; c++) if (ok[c] === 1 && !test(dict[c] as string)) ok[c] = 0;
      }
    }
  } else if (plainString && column.allStrings && semantics.kind === 'pattern' && semantics.pattern === 'match' && (literal = requiredLiteral(clause.values[0] as string))) {
    // `match`: the pattern only on the values holding the literal text every match holds (found by substring search)
    const test = stringTest(semantics, clause.values as string[])!;
    markContains(column, literal, ok);
    for (let c = 1; c < dict.length; c++) if (ok[c] === 1 && !test(dict[c] as string)) ok[c] = 0;
  } else if (semantics.kind === 'null') {
    // no value is null: only code 0 (set below)
  } else if (plainString && column.allStrings && semantics.kind === 'empty' && column.index) {
    // '' has one code at most: the dictionary's own lookup (null's code 0 is set below)
    const code = column.index.get('');
    if (code !== undefined) ok[code] = 1;
  } else if (plainString && column.allStrings && (stringOk = stringTest(semantics, clause.values as string[]))) {
    // every value is a string (null aside): the grammar's test on a string value (operators.ts), null false
    const test = stringOk;
    for (let c = 1; c < dict.length; c++) ok[c] = test(dict[c] as string) ? 1 : 0;
  } else {
    const positive = { ...clause, operator };
    for (let c = 0; c < dict.length; c++) ok[c] = matchesClause({ [clause.field]: dict[c] }, positive, ctx.operators) ? 1 : 0;
    return negated ? flip(ok) : ok;
  }
  // null: true only for the operators that are true on null (D-22)
  if (semantics.trueOnNull) ok[0] = 1;
  return negated ? flip(ok) : ok;
}

/** ok[code] = 1 for the strings passing a text test: `endswith` from the backwards order, the rest by search. */
function markText(column: DictColumn, test: TextTest, x: string, ok: Uint8Array): void {
  if (test === 'endswith') suffixOrderOf(column).mark(x, ok);
  else if (test === 'contains') markContains(column, x, ok);
  else textIndexOf(column).mark(test, x, ok);
}

/** ok[code] = 1 for the strings containing x: through the values' words when x is within a word, else by search. */
function markContains(column: DictColumn, x: string, ok: Uint8Array): void {
  const words = wordIndexOf(column);
  if (words.covers(x)) words.mark(x, ok);
  else textIndexOf(column).mark('contains', x, ok);
}

function flip(ok: Uint8Array): Uint8Array {
  for (let c = 0; c < ok.length; c++) ok[c] ^= 1;
  return ok;
}

/** The text index's search for an equality or a text test of the grammar (operators.ts), if it has one. */
function textSearch(semantics: Semantics): TextTest | undefined {
  if (semantics.kind === 'equal' || semantics.kind === 'member') return 'eq';
  return semantics.kind === 'text' ? semantics.test : undefined;
}

/**
 * The permutation to read a string range or prefix from, when that beats judging each distinct value: a stretch of
 * it costs a random write per slot (at most half of them), a distinct value a code point comparison (many times
 * dearer). So a contract column of a few values is judged a few times, not read over every slot, and a description
 * column of a value per few slots is read (RANGE_SLOTS_PER_VALUE).
 */
function rangePermutation(clause: FilterClause, column: DictColumn, operator: string, ctx: FilterContext): Permutation | undefined {
  const p = ctx.permutation(clause.field);
  const manyValues = column.dict.length * RANGE_SLOTS_PER_VALUE > ctx.size;
  const semantics = SEMANTICS[operator];
  const stretch = isRange(semantics) || (semantics.kind === 'text' && semantics.test === 'startswith');
  return p && plainStrings(column, clause) && manyValues && stretch && stringStretchOperator(semantics, clause.values) ? p : undefined;
}

function dictClause(mask: Uint8Array, clause: FilterClause, column: DictColumn, operator: string, negated: boolean, ctx: FilterContext): void {
  const p = rangePermutation(clause, column, operator, ctx);
  if (p) return rangeClause(mask, clause, column, p, operator, negated, ctx);
  const few = fewCodes(clause, column, operator);
  if (few) return inCodes(mask, column.codes, ctx.size, few[0], few[1], negated ? 1 : 0);
  const ok = dictAnswers(clause, column, operator, negated, ctx); // 0/1 per code
  const { codes } = column;
  keepCodes(mask, ok, codes, ctx.size);
}

/**
 * The one or two codes a clause holds true on, when it is equality (eq, in, null, empty) on a column with a lookup
 * (a value has one code there): a pass comparing each slot's code with them then replaces the answer per code (an
 * array of the dictionary's length, one entry per case for `id`, and a read of it at random per slot). Codes are
 * repeated to make two; undefined otherwise. `-1` (no code) holds for no value.
 */
export function fewCodes(clause: FilterClause, column: DictColumn, operator: string): [number, number] | undefined {
  if (!column.index || !column.allStrings || column.type !== 'string' || !clause.values.every((v) => typeof v === 'string')) return undefined;
  // null and empty are true on null (code 0, D-22), as dictAnswers sets them
  const { kind } = SEMANTICS[operator];
  if (kind === 'null') return [0, 0];
  if (kind === 'empty') return [0, column.index.get('') ?? 0];
  if (kind !== 'equal' && kind !== 'member') return undefined;
  if (clause.values.length > 2) return undefined;
  const codes = clause.values.map((v) => column.index!.get(keyOf(v)) ?? -1);
  return [codes[0], codes[codes.length - 1]];
}

/**
 * A range of a string field, or the values with a prefix: a stretch of its permutation (values in code point order,
 * null first), found by binary search, instead of a comparison per value.
 */
function rangeClause(mask: Uint8Array, clause: FilterClause, column: DictColumn, p: Permutation, operator: string, negated: boolean, ctx: FilterContext): void {
  const { from, to } = stringStretch(column, p, SEMANTICS[operator], clause.values as string[]);
  // a slot per position marked at random places: the stretch, or all but the rest when the stretch is most of it
  // (slots outside the permutation are not alive: the mask has them 0 already)
  const hits = new Uint8Array(mask.length);
  const { slots } = p;
  if ((to - from) * 2 <= p.length) for (let i = from; i < to; i++) hits[slots[i]] = 1;
  else {
    hits.fill(1, 0, ctx.size);
    for (let i = 0; i < from; i++) hits[slots[i]] = 0;
    for (let i = to; i < p.length; i++) hits[slots[i]] = 0;
  }
  keepHits(mask, hits, ctx.size, negated ? 1 : 0);
  if (!negated) ctx.stretches?.set(clause.field, { from, to });
}

/** mask[s] &= hits[s] XOR flip, a word at a time (`hits` as long as the mask). */
export function keepHits(mask: Uint8Array, hits: Uint8Array, n: number, flip: number): void {
  const words = wordsOf(mask);
  const hitWords = wordsOf(hits);
  const end = n >>> 2;
  const flips = flip * 0x01010101;
  for (let w = 0; w < end; w++) words[w] &= hitWords[w] ^ flips;
  for (let s = end << 2; s < n; s++) mask[s] &= hits[s] ^ flip;
}

function numberClause(mask: Uint8Array, clause: FilterClause, column: NumberColumn, operator: string, negated: boolean, ctx: FilterContext): void {
  const { values } = column;
  const n = ctx.size;
  // keep[s] = positive(s) XOR negated; a positive comparison is false on null (NaN compares false)
  const negatedBit = negated ? 1 : 0;
  const bounds = clause.values.map((v) => boundOf(column, v));
  const [a, b] = bounds;
  /** No value passes the positive operator: the negated one keeps every slot. */
  const none = () => {
    if (!negated) mask.fill(0, 0, n);
  };
  const semantics = SEMANTICS[operator];
  switch (semantics.kind) {
    case 'null':
    case 'empty': // a number is never '' or an array: empty is null
      return isNull(mask, values, n, negatedBit);
    case 'member': {
      const list = [...new Set(bounds.filter((v): v is number => v !== undefined))];
      if (list.length === 0) return none();
      if (list.length > 16) {
        const set = new Set(list);
        for (let s = 0; s < n; s++) if (mask[s] !== 0) mask[s] = +set.has(values[s]) ^ negatedBit;
        return;
      }
      if (list.length === 1) return inRange(mask, values, n, list[0], list[0], negatedBit);
      if (list.length === 2) return inPair(mask, values, n, list[0], list[1], negatedBit);
      // a few values: one branch-free pass each beats a set lookup per slot
      const hits = new Uint8Array(mask.length);
      for (const v of list) for (let s = 0; s < n; s++) hits[s] |= +(values[s] === v);
      return keepHits(mask, hits, n, negatedBit);
    }
    // x < a is x <= the double below a, x > a is x >= the one above: one inclusive range loop serves every operator
    case 'equal':
      return a === undefined ? none() : inRange(mask, values, n, a, a, negatedBit);
    case 'order': {
      if (a === undefined) return none();
      const { below, equal } = semantics.holds;
      if (below) return inRange(mask, values, n, -Infinity, equal ? a : -nextUp(-a), negatedBit);
      return inRange(mask, values, n, equal ? a : nextUp(a), Infinity, negatedBit);
    }
    case 'range':
      return a === undefined || b === undefined ? none() : inRange(mask, values, n, a, b, negatedBit);
    default:
      return perSlot(mask, clause, [column], ctx);
  }
}

/** The smallest double above `x` (x itself for NaN and Infinity). */
export function nextUp(x: number): number {
  if (x !== x || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  const bits = new BigInt64Array(new Float64Array([x]).buffer);
  bits[0] += x > 0 ? 1n : -1n;
  return new Float64Array(bits.buffer)[0];
}

// The passes below are the loops the engine runs most: no callback and no branch per slot (a shared callback is not
// inlined, and a branch on random data is mispredicted half the time: together several times slower), and four slots
// per 32-bit word of the mask, slot s in byte s & 3 (little-endian: the engine declines on other machines), which
// halves a pass again. Bytes at and past `n` are left alone. Each pass spells its four slots out: one word loop taking
// the per-slot test as a function ran slower (the function is not inlined), so the loops repeat on purpose.

/** The mask as 32-bit words over the same bytes (its length is a multiple of 4). */
const wordsOf = (mask: Uint8Array) => new Uint32Array(mask.buffer, mask.byteOffset, mask.length >>> 2);

/** mask[s] &= ok[codes[s]]: a dictionary column's answer per code (words of the mask already 0 skipped: no reads at random). */
export function keepCodes(mask: Uint8Array, ok: Uint8Array, codes: Uint32Array, n: number): void {
  const words = wordsOf(mask);
  const end = n >>> 2;
  for (let w = 0; w < end; w++) {
    if (words[w] === 0) continue;
    const s = w << 2;
    words[w] &= ok[codes[s]] | (ok[codes[s + 1]] << 8) | (ok[codes[s + 2]] << 16) | (ok[codes[s + 3]] << 24);
  }
  for (let s = end << 2; s < n; s++) mask[s] &= ok[codes[s]];
}

/** mask[s] &= (lo <= x <= hi) XOR flip, false on NaN (null) as every comparison with NaN is. */
function inRange(mask: Uint8Array, values: Float64Array, n: number, lo: number, hi: number, flip: number): void {
  const words = wordsOf(mask);
  const end = n >>> 2;
  const flips = flip * 0x01010101;
  for (let w = 0; w < end; w++) {
    const s = w << 2;
    const a = values[s];
    const b = values[s + 1];
    const c = values[s + 2];
    const d = values[s + 3];
    words[w] &= ((+(a >= lo) & +(a <= hi)) | ((+(b >= lo) & +(b <= hi)) << 8) | ((+(c >= lo) & +(c <= hi)) << 16) | ((+(d >= lo) & +(d <= hi)) << 24)) ^ flips;
  }
  for (let s = end << 2; s < n; s++) mask[s] &= (+(values[s] >= lo) & +(values[s] <= hi)) ^ flip;
}

/** mask[s] &= (code is u or v) XOR flip: equality on a dictionary column in one pass, codes read in slot order. */
function inCodes(mask: Uint8Array, codes: Uint32Array, n: number, u: number, v: number, flip: number): void {
  const words = wordsOf(mask);
  const end = n >>> 2;
  const flips = flip * 0x01010101;
  for (let w = 0; w < end; w++) {
    const s = w << 2;
    const a = codes[s];
    const b = codes[s + 1];
    const c = codes[s + 2];
    const d = codes[s + 3];
    words[w] &= ((+(a === u) | +(a === v)) | ((+(b === u) | +(b === v)) << 8) | ((+(c === u) | +(c === v)) << 16) | ((+(d === u) | +(d === v)) << 24)) ^ flips;
  }
  for (let s = end << 2; s < n; s++) mask[s] &= (+(codes[s] === u) | +(codes[s] === v)) ^ flip;
}

/** mask[s] &= (x is NaN: null) XOR flip. */
function isNull(mask: Uint8Array, values: Float64Array, n: number, flip: number): void {
  const words = wordsOf(mask);
  const end = n >>> 2;
  const flips = flip * 0x01010101;
  for (let w = 0; w < end; w++) {
    const s = w << 2;
    const a = values[s];
    const b = values[s + 1];
    const c = values[s + 2];
    const d = values[s + 3];
    words[w] &= (+(a !== a) | (+(b !== b) << 8) | (+(c !== c) << 16) | (+(d !== d) << 24)) ^ flips;
  }
  for (let s = end << 2; s < n; s++) mask[s] &= +(values[s] !== values[s]) ^ flip;
}

/** mask[s] &= (x === u or x === v) XOR flip: `in` with two values (the usual case) in one pass. */
function inPair(mask: Uint8Array, values: Float64Array, n: number, u: number, v: number, flip: number): void {
  const words = wordsOf(mask);
  const end = n >>> 2;
  const flips = flip * 0x01010101;
  for (let w = 0; w < end; w++) {
    const s = w << 2;
    const a = values[s];
    const b = values[s + 1];
    const c = values[s + 2];
    const d = values[s + 3];
    words[w] &= ((+(a === u) | +(a === v)) | ((+(b === u) | +(b === v)) << 8) | ((+(c === u) | +(c === v)) << 16) | ((+(d === u) | +(d === v)) << 24)) ^ flips;
  }
  for (let s = end << 2; s < n; s++) mask[s] &= (+(values[s] === u) | +(values[s] === v)) ^ flip;
}

/** mask[s] &= (x = y, or both NaN: both null) XOR flip. */
function sameNumbers(mask: Uint8Array, x: Float64Array, y: Float64Array, n: number, flip: number): void {
  const words = wordsOf(mask);
  const end = n >>> 2;
  const flips = flip * 0x01010101;
  for (let w = 0; w < end; w++) {
    const s = w << 2;
    const a0 = x[s];
    const a1 = x[s + 1];
    const a2 = x[s + 2];
    const a3 = x[s + 3];
    const b0 = y[s];
    const b1 = y[s + 1];
    const b2 = y[s + 2];
    const b3 = y[s + 3];
    words[w] &=
      ((+(a0 === b0) | (+(a0 !== a0) & +(b0 !== b0))) |
        ((+(a1 === b1) | (+(a1 !== a1) & +(b1 !== b1))) << 8) |
        ((+(a2 === b2) | (+(a2 !== a2) & +(b2 !== b2))) << 16) |
        ((+(a3 === b3) | (+(a3 !== a3) & +(b3 !== b3))) << 24)) ^
      flips;
  }
  for (let s = end << 2; s < n; s++) mask[s] &= (+(x[s] === y[s]) | (+(x[s] !== x[s]) & +(y[s] !== y[s]))) ^ flip;
}

/** mask[s] &= (toOther[x[s]] = y[s]) XOR flip: two dictionary columns compared through a code mapping. */
function sameCodes(mask: Uint8Array, toOther: Int32Array, x: Uint32Array, y: Uint32Array, n: number, flip: number): void {
  const words = wordsOf(mask);
  const end = n >>> 2;
  const flips = flip * 0x01010101;
  for (let w = 0; w < end; w++) {
    const s = w << 2;
    words[w] &= (+(toOther[x[s]] === y[s]) | (+(toOther[x[s + 1]] === y[s + 1]) << 8) | (+(toOther[x[s + 2]] === y[s + 2]) << 16) | (+(toOther[x[s + 3]] === y[s + 3]) << 24)) ^ flips;
  }
  for (let s = end << 2; s < n; s++) mask[s] &= +(toOther[x[s]] === y[s]) ^ flip;
}

function sameAs(mask: Uint8Array, clause: FilterClause, column: MemoryColumn, negated: boolean, ctx: FilterContext): void {
  const other = ctx.column(String(clause.values[0]));
  if (!other) throw new Error(`no memory column for ${String(clause.values[0])}`);
  const want = negated ? 0 : 1;
  const n = ctx.size;
  if (column.kind === 'number' && other.kind === 'number' && column.type === other.type) {
    // both null, or both values and equal (equalTyped of two numbers / two instants)
    const x = column.values;
    const y = other.values;
    return sameNumbers(mask, x, y, n, want ^ 1);
  }
  if (column.kind === 'dict' && other.kind === 'dict' && column.type === 'string' && other.type === 'string') {
    // strings (or both null): code point equality is ===
    const x = column.codes;
    const y = other.codes;
    if (column.allStrings && other.allStrings && other.index && column.dict.length * SAMEAS_LOOKUP_SLOTS <= n) {
      // each value of one column is one code of the other (null is code 0 in both): compare codes, not texts. A
      // lookup per distinct value (hashing the string) costs about as much as SAMEAS_LOOKUP_SLOTS slots of the loop
      // below, which reads length bytes
      const toOther = new Int32Array(column.dict.length).fill(-1);
      toOther[0] = 0;
      for (let c = 1; c < column.dict.length; c++) toOther[c] = other.index.get(column.dict[c] as string) ?? -1;
      return sameCodes(mask, toOther, x, y, n, negated ? 1 : 0);
    }
    // both null (code 0), or the same string: the codes' length bytes first (read in code order, where the strings
    // would be read from all over the heap), the strings only where those agree
    const dx = column.dict;
    const dy = other.dict;
    const lx = codeBytes(column, 'lengths');
    const ly = codeBytes(other, 'lengths');
    for (let s = 0; s < n; s++) {
      if (mask[s] === 0) continue;
      const cx = x[s];
      const cy = y[s];
      let p: boolean;
      if (cx === 0 || cy === 0) p = cx === cy;
      else if (lx[cx] !== ly[cy]) p = false;
      else {
        const u = dx[cx];
        p = typeof u === 'string' && u === dy[cy];
      }
      if ((p ? 1 : 0) !== want) mask[s] = 0;
    }
    return;
  }
  perSlot(mask, clause, [column, other], ctx);
}

/** The 1s among the first `size` bytes of a 0/1 mask, summed four at a time (a word's bytes add up in its top byte). */
export function countMask(mask: Uint8Array, size: number): number {
  const words = new Uint32Array(mask.buffer, mask.byteOffset, mask.length >>> 2);
  let total = 0;
  const end = size >>> 2;
  for (let w = 0; w < end; w++) total += Math.imul(words[w], 0x01010101) >>> 24;
  for (let s = end << 2; s < size; s++) total += mask[s];
  return total;
}

/**
 * Two numbers of one type, or two string dictionaries: `sameas` is then equality of the values (or both null), the
 * same whichever column the clause names first; across other kinds the grammar's evaluator judges it.
 */
export function sameKinds(column: MemoryColumn, other: MemoryColumn): boolean {
  if (column.kind === 'number' && other.kind === 'number') return column.type === other.type;
  return column.kind === 'dict' && other.kind === 'dict' && column.type === 'string' && other.type === 'string';
}

/**
 * `sameas` (positive) of one slot, as the passes of `sameAs` judge it: read by the counts of same slots
 * (same-counts.ts), which test a slot as it leaves a set and as it enters again, and by a page's walk. It reads the columns' arrays on each call, since a
 * column's arrays are replaced when the table grows.
 */
export function sameAsSlot(clause: FilterClause, column: MemoryColumn, other: MemoryColumn, operators: Record<string, OperatorSpec>): (slot: number) => boolean {
  if (sameKinds(column, other) && column.kind === 'number' && other.kind === 'number') {
    return (s) => {
      const a = column.values[s];
      const b = other.values[s];
      return a === b || (a !== a && b !== b);
    };
  }
  if (sameKinds(column, other) && column.kind === 'dict' && other.kind === 'dict') {
    return (s) => {
      const cx = column.codes[s];
      const cy = other.codes[s];
      if (cx === 0 || cy === 0) return cx === cy;
      const u = column.dict[cx];
      return typeof u === 'string' && u === other.dict[cy];
    };
  }
  const positive: FilterClause = { ...clause, operator: semanticsOf(clause.operator, operators).positive };
  return (s) => matchesClause({ [column.field]: valueAt(column, s), [other.field]: valueAt(other, s) }, positive, operators);
}

/** The grammar's evaluator on each slot's values: exact for anything the fast forms above do not cover. */
function perSlot(mask: Uint8Array, clause: FilterClause, columns: MemoryColumn[], ctx: FilterContext): void {
  for (let s = 0; s < ctx.size; s++) {
    if (mask[s] === 0) continue;
    const item: Record<string, unknown> = {};
    for (const c of columns) item[c.field] = valueAt(c, s);
    if (!matchesClause(item, clause, ctx.operators)) mask[s] = 0;
  }
}
