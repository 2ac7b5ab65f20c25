// Where a positive operator's matches lie in a field's sorted permutation: the stretch (a range of positions) of a
// string column's permutation, and the bounds a number column's are searched by. Shared by filter.ts (a range read
// from the permutation) and stretch-answer.ts (a clause answered by its stretches) (decision D-84).
import { compareCodePoints, instantOf } from '../../../grammar/compare.ts';
import type { DictColumn, NumberColumn } from './columns.ts';
import { firstWhere } from './order.ts';
import type { Permutation, Stretch } from './order.ts';
import type { Semantics } from '../../../grammar/operators.ts';
import type { FilterClause } from '../../../grammar/types.ts';

/** Every value is a string and the permutation is in code point order (null first): string stretches hold. */
export function plainStrings(column: DictColumn, clause: FilterClause): boolean {
  return column.type === 'string' && column.allStrings && clause.values.every((v) => typeof v === 'string');
}

/** The positive operators that compare the value with bounds (lt, le, gt, ge, between): each holds for one stretch. */
export const isRange = (semantics: Semantics) => semantics.kind === 'order' || semantics.kind === 'range';

/** Equality, for a stretch per value (`in`, or the values a text test holds for). */
export const EQUAL: Semantics = { kind: 'equal', trueOnNull: false };

/** Operators whose positive answer on a string column is one stretch (`startswith`: a code unit prefix without surrogates is a code point prefix). */
export function stringStretchOperator(semantics: Semantics, values: readonly unknown[]): boolean {
  const { kind } = semantics;
  if (kind === 'null' || kind === 'empty' || kind === 'equal' || isRange(semantics)) return true;
  return kind === 'text' && semantics.test === 'startswith' && !/[\uD800-\uDFFF]/.test(values[0] as string);
}

/** The stretch of a string column's permutation that a positive operator holds for (see stringStretchOperator). */
export function stringStretch(column: DictColumn, p: Permutation, semantics: Semantics, values: readonly string[]): Stretch {
  const { codes, dict } = column;
  const valueOf = (slot: number) => (codes[slot] === 0 ? null : (dict[codes[slot]] as string));
  const nonNull = firstWhere(p, (s) => codes[s] !== 0);
  const atLeast = (x: string) => firstWhere(p, (s) => codes[s] !== 0 && compareCodePoints(valueOf(s)!, x) >= 0, nonNull);
  const above = (x: string) => firstWhere(p, (s) => codes[s] !== 0 && compareCodePoints(valueOf(s)!, x) > 0, nonNull);
  const [a, b] = values;
  const span = (from: number, to: number) => ({ from, to: Math.max(from, to) });
  switch (semantics.kind) {
    case 'null':
      return span(0, nonNull);
    case 'empty': // null, then '' (the least string)
      return span(0, above(''));
    case 'equal':
      return span(atLeast(a), above(a));
    case 'text': {
      // startswith: the values starting with a follow a directly
      const from = atLeast(a);
      return span(from, firstWhere(p, (s) => !valueOf(s)!.startsWith(a), from));
    }
    case 'order': {
      const { below, equal } = semantics.holds;
      if (below) return span(nonNull, equal ? above(a) : atLeast(a));
      return span(equal ? atLeast(a) : above(a), p.length);
    }
    default: // range (between)
      return span(atLeast(a), above(b));
  }
}

/** A bound as the number the grammar compares it as, or undefined when it is not of the type (no value matches it). */
export function boundOf(column: NumberColumn, value: unknown): number | undefined {
  if (column.type === 'integer') return typeof value === 'number' ? value : undefined;
  return instantOf(value);
}
