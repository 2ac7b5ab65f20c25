// The semantics of the filter and sort grammar (decision D-22, D-28) on JSON items. The reference sandbox's SQL must
// agree with this, and the conformance suite judges returned items with it.
import type { OperatorSpec } from '../spec/types.ts';
import { compareCodePoints, compareTyped, compareUntyped, equalTyped } from './compare.ts';
import { orderHolds, semanticsOf, TEXT_TESTS } from './operators.ts';
import type { Semantics } from './operators.ts';
import { compileLike, compileRegex } from './regex.ts';
import type { FilterClause, SortKey } from './types.ts';

type Item = Record<string, unknown>;

const isNullish = (value: unknown) => value === null || value === undefined;

export { positiveOf } from './operators.ts';

function asText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Does the value satisfy a positive operator (its row of the semantics table, operators.ts)? */
function positive(item: Item, clause: FilterClause, semantics: Semantics): boolean {
  const { field, type, values } = clause;
  const value = item[field];
  const [first] = values;
  switch (semantics.kind) {
    case 'presence': return Object.prototype.hasOwnProperty.call(item, field);
    case 'null': return isNullish(value);
    case 'empty': return isNullish(value) || value === '' || (Array.isArray(value) && value.length === 0);
    case 'same': {
      const other = item[first as string];
      if (isNullish(value) || isNullish(other)) return isNullish(value) && isNullish(other);
      return type === 'stringArray' ? compareUntyped(value, other) === 0 : equalTyped(value, other, type);
    }
  }
  if (isNullish(value)) return semantics.trueOnNull;
  switch (semantics.kind) {
    case 'equal': return equalTyped(value, first, type);
    case 'member': return values.some((candidate) => equalTyped(value, candidate, type));
    case 'order': {
      // values that cannot be compared as the field's type satisfy no comparison
      const order = compareTyped(value, first, type);
      return order !== undefined && orderHolds(semantics.holds, order);
    }
    case 'range': {
      const low = compareTyped(value, values[0], type);
      const high = compareTyped(value, values[1], type);
      return low !== undefined && high !== undefined && low >= 0 && high <= 0;
    }
    case 'text':
      if (semantics.test === 'contains' && Array.isArray(value)) return value.some((element) => typeof element === 'string' && element === first);
      return asText(value) !== undefined && TEXT_TESTS[semantics.test](value as string, first as string);
    case 'pattern': {
      const text = asText(value);
      return text !== undefined && (semantics.pattern === 'like' ? compileLike(first as string) : compileRegex(first as string)).test(text);
    }
  }
}

/** Does one item satisfy one clause? Every negative operator is the exact complement of its positive one. */
export function matchesClause(item: Item, clause: FilterClause, operators?: Record<string, OperatorSpec>): boolean {
  const { semantics, negated } = semanticsOf(clause.operator, operators);
  return positive(item, clause, semantics) !== negated;
}

/** Does the item satisfy every clause (several filters all apply)? */
export function matchesFilters(item: Item, clauses: readonly FilterClause[], operators?: Record<string, OperatorSpec>): boolean {
  return clauses.every((clause) => matchesClause(item, clause, operators));
}

/**
 * Ascending order of two values of one sort key: null (or absent) first, then values of the key's type in their order,
 * then (only in a wrong answer) values not of that type, so the order stays total and transitive whatever the data.
 */
function compareKey(a: unknown, b: unknown, key: SortKey): number {
  if (isNullish(a) || isNullish(b)) return isNullish(a) === isNullish(b) ? 0 : isNullish(a) ? -1 : 1;
  const typed = compareTyped(a, b, key.type);
  if (typed !== undefined) return typed;
  const aTyped = compareTyped(a, a, key.type) !== undefined;
  const bTyped = compareTyped(b, b, key.type) !== undefined;
  if (aTyped !== bTyped) return aTyped ? -1 : 1;
  return compareUntyped(a, b);
}

/**
 * Comparator of the sort grammar (decision D-28): keys in order, `-` reverses a key (so null sorts last descending),
 * ties broken by `id` ascending.
 */
export function compareBySort(a: Item, b: Item, sort: readonly SortKey[]): number {
  for (const key of sort) {
    const order = compareKey(a[key.field], b[key.field], key);
    if (order !== 0) return key.descending ? -order : order;
  }
  const ida = a.id;
  const idb = b.id;
  if (typeof ida === 'string' && typeof idb === 'string') return compareCodePoints(ida, idb);
  return compareKey(ida, idb, { field: 'id', descending: false });
}
