// Typed equality and order of field values (decision D-22): strings by Unicode code point, datetimes by instant.
import type { ValueType } from '../spec/types.ts';
import { datetimeMillis } from './coerce.ts';

/** Compare two strings by Unicode code point (JavaScript's `<` compares UTF-16 units, which differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // codePointAt reads a whole surrogate pair at a high surrogate; a lone difference in low surrogates (same high
      // surrogate before it) already orders like the code points.
      return (a.codePointAt(i) as number) - (b.codePointAt(i) as number) < 0 ? -1 : 1;
    }
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const instantCache = new Map<string, number | undefined>();

/** Milliseconds since the epoch of a datetime value (ISO string or Unix seconds), or undefined if it is not one. */
export function instantOf(value: unknown): number | undefined {
  if (typeof value === 'number') {
    const millis = datetimeMillis(value);
    return millis.ok ? millis.value : undefined;
  }
  if (typeof value !== 'string') return undefined;
  let instant = instantCache.get(value);
  if (instant === undefined && !instantCache.has(value)) {
    const millis = datetimeMillis(value);
    instant = millis.ok ? millis.value : undefined;
    if (instantCache.size >= 50_000) instantCache.clear();
    instantCache.set(value, instant);
  }
  return instant;
}

/** Rank of a JavaScript type, so that values of different types still have a total (if arbitrary) order. */
function typeRank(value: unknown): number {
  switch (typeof value) {
    case 'boolean': return 1;
    case 'number': return 2;
    case 'string': return 3;
    default: return Array.isArray(value) ? 4 : 5;
  }
}

/**
 * Order of two non-null values of a field of `type`: -1, 0 or 1; undefined when they cannot be compared as that type
 * (a string that is not a datetime, a number for a string field...).
 */
export function compareTyped(a: unknown, b: unknown, type: ValueType | undefined): number | undefined {
  if (type === 'datetime') {
    const x = instantOf(a);
    const y = instantOf(b);
    if (x === undefined || y === undefined) return undefined;
    return x === y ? 0 : x < y ? -1 : 1;
  }
  if (type === 'integer') {
    if (typeof a !== 'number' || typeof b !== 'number') return undefined;
    return a === b ? 0 : a < b ? -1 : 1;
  }
  if (type === 'boolean') {
    if (typeof a !== 'boolean' || typeof b !== 'boolean') return undefined;
    return a === b ? 0 : a ? 1 : -1;
  }
  if (type === 'string') {
    if (typeof a !== 'string' || typeof b !== 'string') return undefined;
    return compareCodePoints(a, b);
  }
  // stringArray or an unknown type: compare by what the values are.
  return compareUntyped(a, b);
}

/** A total order over JSON values: by type, then by value (arrays element by element). */
export function compareUntyped(a: unknown, b: unknown): number {
  const rank = typeRank(a) - typeRank(b);
  if (rank !== 0) return rank < 0 ? -1 : 1;
  if (typeof a === 'string') return compareCodePoints(a, b as string);
  if (typeof a === 'number' || typeof a === 'boolean') return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const inner = compareUntyped(a[i], b[i]);
      if (inner !== 0) return inner;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  return compareCodePoints(JSON.stringify(a) ?? '', JSON.stringify(b) ?? '');
}

/** Equality of two non-null values as `type` (datetimes by instant). */
export function equalTyped(a: unknown, b: unknown, type: ValueType | undefined): boolean {
  return compareTyped(a, b, type) === 0;
}
