// Filter clauses over the in-memory columns (decision D-84), with the grammar's semantics (D-22) by construction:
// a dictionary-coded field is judged once per distinct value by the grammar's own `matchesClause` (or a test proved
// equal to it for the plain string operators), then every slot reads its code's answer; integers and datetimes are
// compared as the numbers the grammar compares (compareTyped: integers as numbers, datetimes by instant). A clause
// no fast form covers (sameas across kinds) runs `matchesClause` per slot on the slot's values.
import { compareCodePoints, instantOf } from '../../../grammar/compare.ts';
import { compileLike, compileRegex } from '../../../grammar/regex.ts';
import { matchesClause, positiveOf } from '../../../grammar/evaluate.ts';
import type { FilterClause } from '../../../grammar/types.ts';
import type { OperatorSpec } from '../../../spec/types.ts';
import { keyOf, valueAt } from './columns.ts';
import type { DictColumn, MemoryColumn, NumberColumn } from './columns.ts';

export interface FilterContext {
  column(field: string): MemoryColumn | undefined;
  operators: Record<string, OperatorSpec>;
  /** Slots 0..size-1 are candidates; `mask[s]` 1 means still matching. */
  size: number;
}

/** Clear `mask[s]` of every slot that does not satisfy `clause`. */
export function applyClause(mask: Uint8Array, clause: FilterClause, ctx: FilterContext): void {
  const column = ctx.column(clause.field);
  if (!column) throw new Error(`no memory column for ${clause.field}`);
  const base = positiveOf(clause.operator, ctx.operators);
  const negated = base !== null;
  const operator = base ?? clause.operator;
  if (operator === 'exists') {
    if (negated) mask.fill(0, 0, ctx.size); // every declared field is present on every case (D-05)
    return;
  }
  if (operator === 'sameas') return sameAs(mask, clause, column, negated, ctx);
  if (column.kind === 'dict') return dictClause(mask, clause, column, operator, negated, ctx);
  return numberClause(mask, clause, column, operator, negated, ctx);
}

/** Per distinct value: does the grammar's positive (or negative) operator hold? */
function dictAnswers(clause: FilterClause, column: DictColumn, operator: string, negated: boolean, ctx: FilterContext): Uint8Array {
  const { dict } = column;
  const ok = new Uint8Array(dict.length);
  const plainString = column.type === 'string' && clause.values.every((v) => typeof v === 'string');
  if (plainString && (operator === 'eq' || operator === 'in')) {
    // string equality is code point equality (compareCodePoints = 0): the dictionary's own lookup
    for (const v of clause.values) {
      const code = column.index.get(keyOf(v));
      if (code !== undefined) ok[code] = 1;
    }
  } else if (plainString && STRING_TESTS[operator] && column.allStrings) {
    // every value is a string (null aside): the grammar's test on a string value (evaluate.ts), null false
    const test = STRING_TESTS[operator](clause.values as string[]);
    for (let c = 1; c < dict.length; c++) ok[c] = test(dict[c] as string) ? 1 : 0;
  } else {
    const positive = { ...clause, operator };
    for (let c = 0; c < dict.length; c++) ok[c] = matchesClause({ [clause.field]: dict[c] }, positive, ctx.operators) ? 1 : 0;
    return negated ? flip(ok) : ok;
  }
  // null: true only for the operators that are true on null (D-22)
  if (operator === 'null' || operator === 'empty') ok[0] = 1;
  return negated ? flip(ok) : ok;
}

function flip(ok: Uint8Array): Uint8Array {
  for (let c = 0; c < ok.length; c++) ok[c] ^= 1;
  return ok;
}

/**
 * The positive operators on a non-null string value, as evaluate.ts defines them (code point order by
 * compareCodePoints, `like` and `match` by the grammar's own compiled patterns). `like` first rules out values that
 * lack one of the pattern's literal runs (a necessary condition), so the exact matcher runs on few values.
 */
const STRING_TESTS: Record<string, (values: string[]) => (v: string) => boolean> = {
  null: () => () => false,
  empty: () => (v) => v === '',
  lt: ([b]) => (v) => compareCodePoints(v, b) < 0,
  le: ([b]) => (v) => compareCodePoints(v, b) <= 0,
  gt: ([b]) => (v) => compareCodePoints(v, b) > 0,
  ge: ([b]) => (v) => compareCodePoints(v, b) >= 0,
  between: ([lo, hi]) => (v) => compareCodePoints(v, lo) >= 0 && compareCodePoints(v, hi) <= 0,
  contains: ([x]) => (v) => v.includes(x),
  startswith: ([x]) => (v) => v.startsWith(x),
  endswith: ([x]) => (v) => v.endsWith(x),
  like: ([pattern]) => {
    const runs = pattern.split(/[*?]/).filter((run) => run.length > 0);
    const like = compileLike(pattern);
    return (v) => {
      for (const run of runs) if (!v.includes(run)) return false;
      return like.test(v);
    };
  },
  match: ([pattern]) => {
    const regex = compileRegex(pattern);
    return (v) => regex.test(v);
  },
};

function dictClause(mask: Uint8Array, clause: FilterClause, column: DictColumn, operator: string, negated: boolean, ctx: FilterContext): void {
  const ok = dictAnswers(clause, column, operator, negated, ctx);
  const { codes } = column;
  for (let s = 0; s < ctx.size; s++) if (mask[s] !== 0 && ok[codes[s]] === 0) mask[s] = 0;
}

/** A bound as the number the grammar compares it as, or undefined when it is not of the type (no value matches it). */
function boundOf(column: NumberColumn, value: unknown): number | undefined {
  if (column.type === 'integer') return typeof value === 'number' ? value : undefined;
  return instantOf(value);
}

function numberClause(mask: Uint8Array, clause: FilterClause, column: NumberColumn, operator: string, negated: boolean, ctx: FilterContext): void {
  const { values } = column;
  const n = ctx.size;
  // keep[s] = positive(s) XOR negated; a positive comparison is false on null (NaN compares false)
  const want = negated ? 0 : 1;
  const test = (positive: (x: number) => boolean) => {
    for (let s = 0; s < n; s++) if (mask[s] !== 0 && (positive(values[s]) ? 1 : 0) !== want) mask[s] = 0;
  };
  const bounds = clause.values.map((v) => boundOf(column, v));
  const [a, b] = bounds;
  switch (operator) {
    case 'null':
    case 'empty': // a number is never '' or an array: empty is null
      return test((x) => x !== x);
    case 'eq':
      return a === undefined ? test(() => false) : test((x) => x === a);
    case 'lt':
      return a === undefined ? test(() => false) : test((x) => x < a);
    case 'le':
      return a === undefined ? test(() => false) : test((x) => x <= a);
    case 'gt':
      return a === undefined ? test(() => false) : test((x) => x > a);
    case 'ge':
      return a === undefined ? test(() => false) : test((x) => x >= a);
    case 'between':
      return a === undefined || b === undefined ? test(() => false) : test((x) => x >= a && x <= b);
    case 'in': {
      const set = new Set(bounds.filter((v): v is number => v !== undefined));
      return test((x) => set.has(x));
    }
    default:
      return perSlot(mask, clause, [column], ctx);
  }
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
    for (let s = 0; s < n; s++) {
      if (mask[s] === 0) continue;
      const p = x[s] === y[s] || (x[s] !== x[s] && y[s] !== y[s]);
      if ((p ? 1 : 0) !== want) mask[s] = 0;
    }
    return;
  }
  if (column.kind === 'dict' && other.kind === 'dict' && column.type === 'string' && other.type === 'string') {
    // strings (or both null): code point equality is ===
    const x = column.codes;
    const y = other.codes;
    const dx = column.dict;
    const dy = other.dict;
    for (let s = 0; s < n; s++) {
      if (mask[s] === 0) continue;
      const u = dx[x[s]];
      const v = dy[y[s]];
      const p = (u === null && v === null) || (u !== null && v !== null && typeof u === 'string' && u === v);
      if ((p ? 1 : 0) !== want) mask[s] = 0;
    }
    return;
  }
  perSlot(mask, clause, [column, other], ctx);
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
