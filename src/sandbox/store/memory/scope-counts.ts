// How many of a kept scope's slots hold each value of its few-valued columns (decision D-84): a contract, a contact,
// a watch list (dictionary codes), a status, a priority (small integers). Every write keeps them exact (the engine
// calls leave before it changes an in-scope slot and enter after), so a list whose one clause is on such a column
// sums the counts of the values that pass for its exact totalCount, and walks its page reading the slot's value,
// without a pass over every slot. Every other column but the id (many-valued dictionaries, datetimes) has its nulls
// counted, so that `null` and its negation are answered alike, without a pass over the column. A
// many-valued dictionary of at most one value per 8 slots is also counted per value once a text test on it asks.
import { matchesClause } from '../../../grammar/evaluate.ts';
import { semanticsOf } from '../../../grammar/operators.ts';
import type { FilterClause } from '../../../grammar/types.ts';
import type { DictColumn, MemoryColumn, NumberColumn } from './columns.ts';
import { isNullAt } from './columns.ts';
import { applyClause, codeAnswers, fewCodes, keepCodes } from './filter.ts';
import type { FilterContext } from './filter.ts';
import { COUNTED_CODES, COUNTED_INTEGERS as SMALL, MANY_CODES_SLOTS } from './tuning.ts';

/**
 * Integers 0..SMALL-1 are counted each; then null, then any other value (which stops the one-clause answer). A
 * dictionary of more values than COUNTED_CODES (not the id) holding at most one value per MANY_CODES_SLOTS slots is
 * counted too, from the first list whose clause on it is judged per value (codeAnswers: text tests, `in` of more than
 * two values), as that judgement already reads every value: the total is then a sum over the values, not a pass over
 * the slots. Equality and `null` are not counted so: a pass comparing codes (fewCodes), or the nulls counted, answer
 * them faster.
 */
const NULL_AT = SMALL;
const OTHER_AT = SMALL + 1;

/** The null keys (code-block-counts.ts `nullKey`) that pass: null, or non-null. */
export const NULLS = Uint8Array.from([1, 0]);
export const NON_NULLS = Uint8Array.from([0, 1]);

const integerAt = (x: number) => (x !== x ? NULL_AT : x >= 0 && x < SMALL && Math.floor(x) === x ? x : OTHER_AT);

/** A one-clause list answered from the counts. */
export interface CountedClause {
  total: number;
  /** Is an alive slot of the scope a match? */
  keep(slot: number): boolean;
  /** Clear the non-matches of a mask that holds the scope's bits (for a page sorted rather than walked). */
  narrow(mask: Uint8Array, size: number): void;
  /**
   * Set when `keep` reads more than a code or a number (`sameas` reads two columns, same-counts.ts): a page's walk
   * may test at most this share of the slots with it, else the engine makes the pass and walks the mask.
   */
  walkShare?: number;
  /**
   * The keys that pass (1), so blocks of slots are counted per key (code-block-counts.ts): for a clause on a
   * dictionary column its codes; for `null` or its negation (`nulls`) null (0) and non-null (1).
   */
  codes?: { column: MemoryColumn; ok: Uint8Array; nulls?: true };
  /**
   * For `sameas` or its negation on a pair kept as a mask (same-counts.ts): the pair, its mask of same slots (1), and
   * whether a match is the same (1) or not (0), so blocks of slots are counted by sameness.
   */
  same?: { key: string; bits(): Uint8Array; wanted: 0 | 1 };
}

/** The in-scope slots holding null in a column whose values are not counted one by one. */
interface NullCount {
  column: MemoryColumn;
  count: number;
}

export class ScopeCounts {
  private readonly codes = new Map<DictColumn, Int32Array>();
  /** The larger dictionaries (not the id), counted per code once a clause judged per code asks (MANY_CODES_SLOTS). */
  private readonly manyCodes = new Set<DictColumn>();
  private readonly integers = new Map<NumberColumn, Int32Array>();
  private readonly nulls: NullCount[] = [];

  /** Counts of the slots set in `bits`, for the columns with few values now (the many-valued ones: their nulls). */
  constructor(columns: Iterable<MemoryColumn>, id: DictColumn, bits: Uint8Array, size: number, countedCodes = COUNTED_CODES) {
    for (const c of columns) {
      if (c.kind === 'dict' && c !== id && c.index && c.dict.length <= countedCodes) this.codes.set(c, codeCounts(c, bits, size));
      else if (c.kind === 'number' && c.type === 'integer') {
        const counts = new Int32Array(SMALL + 2);
        for (let s = 0; s < size; s++) if (bits[s] === 1) counts[integerAt(c.values[s])]++;
        this.integers.set(c, counts);
      } else if (c !== id) {
        if (c.kind === 'dict' && c.index) this.manyCodes.add(c);
        let count = 0;
        for (let s = 0; s < size; s++) if (bits[s] === 1 && isNullAt(c, s)) count++;
        this.nulls.push({ column: c, count });
      }
    }
  }

  /** An in-scope slot is about to change or leave the scope. */
  leave(slot: number): void {
    for (const [c, counts] of this.codes) counts[c.codes[slot]]--;
    for (const [c, counts] of this.integers) counts[integerAt(c.values[slot])]--;
    for (const n of this.nulls) if (isNullAt(n.column, slot)) n.count--;
  }

  /** A slot is in the scope with its current values. */
  enter(slot: number): void {
    for (const [c, counts] of this.codes) {
      const code = c.codes[slot];
      if (code < counts.length) counts[code]++;
      else {
        // a value added since the counts were made
        const grown = new Int32Array(Math.max(code + 1, counts.length * 2));
        grown.set(counts);
        grown[code]++;
        this.codes.set(c, grown);
      }
    }
    for (const [c, counts] of this.integers) counts[integerAt(c.values[slot])]++;
    for (const n of this.nulls) if (isNullAt(n.column, slot)) n.count++;
  }

  /** How many of the scope's slots hold each integer 0..1023 of `column`, and null; undefined when it holds others. */
  integerCounts(column: MemoryColumn | undefined): { values: Int32Array; nulls: number } | undefined {
    const counts = column?.kind === 'number' ? this.integers.get(column) : undefined;
    if (!counts || counts[OTHER_AT] > 0) return undefined;
    return { values: counts.subarray(0, SMALL), nulls: counts[NULL_AT] };
  }

  /**
   * The list's one clause answered from the counts, or undefined (another column, `exists`, `sameas`, other values).
   * `inScope`: how many slots `bits` holds.
   */
  answer(clause: FilterClause, ctx: FilterContext, bits: Uint8Array, inScope: number): CountedClause | undefined {
    const column = ctx.column(clause.field);
    if (!column) return undefined;
    const { positive: operator, semantics, negated } = semanticsOf(clause.operator, ctx.operators);
    const nulls = this.nulls.find((n) => n.column === column);
    if (nulls && semantics.kind === 'null') {
      // `null` or its negation: the nulls counted, or the rest of the scope
      const wanted = !negated;
      return {
        total: wanted ? nulls.count : inScope - nulls.count,
        keep: (s) => bits[s] === 1 && isNullAt(column, s) === wanted,
        narrow: (mask) => applyClause(mask, clause, ctx),
        codes: { column, ok: wanted ? NULLS : NON_NULLS, nulls: true },
      };
    }
    if (column.kind === 'dict') {
      const many = this.manyCodes.has(column);
      let counts = this.codes.get(column);
      if (many && (fewCodes(clause, column, operator) || (!counts && column.dict.length * MANY_CODES_SLOTS > ctx.size))) return undefined;
      const ok = (counts || many) && codeAnswers(clause, column, ctx);
      if (!ok) return undefined;
      if (!counts) this.codes.set(column, (counts = codeCounts(column, bits, ctx.size)));
      let total = 0;
      const n = Math.min(ok.length, counts.length); // codes past either were added later: counted 0, or not judged and not held
      for (let c = 0; c < n; c++) total += ok[c] * counts[c];
      const { codes } = column;
      return { total, keep: (s) => (bits[s] & ok[codes[s]]) === 1, narrow: (mask, size) => keepCodes(mask, ok, codes, size), codes: { column, ok } };
    }
    const counts = this.integers.get(column);
    if (!counts || counts[OTHER_AT] > 0) return undefined;
    // as codeAnswers: the operators that read no value, or a second column, are not counted
    if (semantics.kind === 'presence' || semantics.kind === 'same') return undefined;
    // each value the scope holds judged once by the grammar's own evaluator (D-22)
    const ok = new Uint8Array(SMALL + 1);
    let total = 0;
    for (let v = 0; v <= SMALL; v++) {
      if (counts[v] === 0) continue;
      ok[v] = matchesClause({ [clause.field]: v === NULL_AT ? null : v }, clause, ctx.operators) ? 1 : 0;
      total += ok[v] * counts[v];
    }
    const { values } = column;
    const okNull = ok[NULL_AT];
    return {
      total,
      keep: (s) => bits[s] === 1 && (values[s] === values[s] ? ok[values[s]] : okNull) === 1,
      narrow: (mask) => applyClause(mask, clause, ctx),
    };
  }
}

/** How many of the slots set in `bits` hold each code of `column`. */
function codeCounts(column: DictColumn, bits: Uint8Array, size: number): Int32Array {
  const counts = new Int32Array(column.dict.length);
  for (let s = 0; s < size; s++) counts[column.codes[s]] += bits[s];
  return counts;
}
