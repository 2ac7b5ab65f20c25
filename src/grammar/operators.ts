// One table of the filter operators' semantics (decision D-22), read by the evaluator (evaluate.ts), the sandbox's SQL
// (src/sandbox/store/list-sql.ts, case-count.ts) and its column engine (src/sandbox/store/memory/). The description
// lists the operators (names, arity, and which negative one complements which positive one: `negationOf`, read by
// src/spec); this table says what each positive operator tests. A negative operator is the exact complement of its
// positive one, so it has no row of its own: `semanticsOf` answers its positive's row, negated.
import type { OperatorSpec } from '../spec/types.ts';
import { compareCodePoints } from './compare.ts';
import { compileLike, compileRegex } from './regex.ts';

/** The string tests of the text operators, on a string value (contains also holds for an element of a string array). */
export type TextTest = 'contains' | 'startswith' | 'endswith';

/** What a positive operator tests. */
export type Semantics =
  /** The field is present on the item (every declared field of a stored record is, D-05). Reads no value. */
  | { kind: 'presence'; trueOnNull: true }
  /** The value is null (or absent). */
  | { kind: 'null'; trueOnNull: true }
  /** The value is null, '' or an empty array. */
  | { kind: 'empty'; trueOnNull: true }
  /** The value equals another field's value of the same item (the operand names the field); both null is the same. */
  | { kind: 'same'; trueOnNull: false }
  /** The value equals the operand, compared as the field's type. */
  | { kind: 'equal'; trueOnNull: false }
  /** The value equals one of the operands. */
  | { kind: 'member'; trueOnNull: false }
  /** The value compared with the operand in the field's type: holds where `holds` is true for the value's side. */
  | { kind: 'order'; trueOnNull: false; holds: { below: boolean; equal: boolean; above: boolean } }
  /** The value lies between the two operands, both included. */
  | { kind: 'range'; trueOnNull: false }
  /** A string test of the value (code units, as JavaScript's includes/startsWith/endsWith). */
  | { kind: 'text'; trueOnNull: false; test: TextTest }
  /** The value matches a pattern compiled by the grammar (regex.ts). */
  | { kind: 'pattern'; trueOnNull: false; pattern: 'like' | 'match' };

export type SemanticsKind = Semantics['kind'];

/** The positive operators of the grammar (seed section 1, D-22); the description's negative ones complement these. */
export const SEMANTICS: Readonly<Record<string, Semantics>> = {
  exists: { kind: 'presence', trueOnNull: true },
  null: { kind: 'null', trueOnNull: true },
  empty: { kind: 'empty', trueOnNull: true },
  sameas: { kind: 'same', trueOnNull: false },
  eq: { kind: 'equal', trueOnNull: false },
  in: { kind: 'member', trueOnNull: false },
  lt: { kind: 'order', trueOnNull: false, holds: { below: true, equal: false, above: false } },
  le: { kind: 'order', trueOnNull: false, holds: { below: true, equal: true, above: false } },
  gt: { kind: 'order', trueOnNull: false, holds: { below: false, equal: false, above: true } },
  ge: { kind: 'order', trueOnNull: false, holds: { below: false, equal: true, above: true } },
  between: { kind: 'range', trueOnNull: false },
  contains: { kind: 'text', trueOnNull: false, test: 'contains' },
  startswith: { kind: 'text', trueOnNull: false, test: 'startswith' },
  endswith: { kind: 'text', trueOnNull: false, test: 'endswith' },
  like: { kind: 'pattern', trueOnNull: false, pattern: 'like' },
  match: { kind: 'pattern', trueOnNull: false, pattern: 'match' },
};

/** The string test of a text operator: `value` holds `x` (code units). */
export const TEXT_TESTS: Readonly<Record<TextTest, (value: string, x: string) => boolean>> = {
  contains: (value, x) => value.includes(x),
  startswith: (value, x) => value.startsWith(x),
  endswith: (value, x) => value.endsWith(x),
};

/** Does an order (negative: below the operand, 0: equal, positive: above) satisfy an order operator? */
export function orderHolds(holds: { below: boolean; equal: boolean; above: boolean }, order: number): boolean {
  return order < 0 ? holds.below : order === 0 ? holds.equal : holds.above;
}

/** The positive operator a negative one complements: from the description when given, else by name (`notX`, `ne`). */
export function positiveOf(operator: string, operators?: Record<string, OperatorSpec>): string | null {
  if (operators) return operators[operator]?.negationOf ?? null;
  if (operator === 'ne') return 'eq';
  const match = /^not([A-Z])(.*)$/.exec(operator);
  return match ? match[1].toLowerCase() + match[2] : null;
}

/** An operator as a positive operator, its semantics, and whether the answer is their complement. */
export interface Resolved {
  positive: string;
  semantics: Semantics;
  negated: boolean;
}

/** The semantics of an operator of the description (a negative one through its positive); throws for an unknown one. */
export function semanticsOf(operator: string, operators?: Record<string, OperatorSpec>): Resolved {
  const base = positiveOf(operator, operators);
  const positive = base ?? operator;
  const semantics = SEMANTICS[positive];
  if (!semantics) throw new Error(`No semantics for filter operator '${operator}'`);
  return { positive, semantics, negated: base !== null };
}

/**
 * A positive operator's test on a non-null string value, with string operands (strings compare by code point,
 * D-22); undefined for the operators that read no value or another field (`exists`, `sameas`).
 */
export function stringTest(semantics: Semantics, values: readonly string[]): ((value: string) => boolean) | undefined {
  const [first, second] = values;
  switch (semantics.kind) {
    case 'null': return () => false;
    case 'empty': return (v) => v === '';
    case 'equal': return (v) => v === first;
    case 'member': return (v) => values.includes(v);
    case 'order': {
      const { holds } = semantics;
      return (v) => orderHolds(holds, compareCodePoints(v, first));
    }
    case 'range': return (v) => compareCodePoints(v, first) >= 0 && compareCodePoints(v, second) <= 0;
    case 'text': {
      const test = TEXT_TESTS[semantics.test];
      return (v) => test(v, first);
    }
    case 'pattern': {
      const compiled = semantics.pattern === 'like' ? compileLike(first) : compileRegex(first);
      return (v) => compiled.test(v);
    }
    default: return undefined;
  }
}

/**
 * A `like` pattern that is one text test or equality (D-22): without `?` and surrogates (code units are then code
 * points), `x` is equality, `*x*` contains, `x*` startswith, `*x` endswith, `*` any string. Null for any other
 * pattern.
 */
export function likeAsTest(pattern: string): { test: TextTest | 'equal' | 'any'; x: string } | null {
  if (/[?\uD800-\uDFFF]/.test(pattern)) return null;
  const segments = pattern.split('*');
  if (segments.length === 1) return { test: 'equal', x: pattern };
  const first = segments[0];
  const last = segments[segments.length - 1];
  const middle = segments.slice(1, -1).filter((segment) => segment.length > 0);
  if (first === '' && last === '' && middle.length === 0) return { test: 'any', x: '' };
  if (first === '' && last === '' && middle.length === 1) return { test: 'contains', x: middle[0] };
  if (middle.length === 0 && last === '') return { test: 'startswith', x: first };
  if (middle.length === 0 && first === '') return { test: 'endswith', x: last };
  return null;
}
