// A parsed ListQuery as SQL: WHERE, ORDER BY, LIMIT with bound parameters only. Same semantics as the grammar's
// evaluator (decision D-22): positive operators are false on null, negative ones are their exact complement, strings
// compare by code point (SQLite BINARY on UTF-8), datetimes by instant (stored as ISO UTC text with ms, D-39).
import { semanticsOf } from '../../grammar/operators.ts';
import type { Semantics } from '../../grammar/operators.ts';
import type { FilterClause, ListQuery } from '../../grammar/types.ts';
import type { OperatorSpec, ValueType } from '../../spec/types.ts';
import type { Column } from './columns.ts';

export interface SqlPart {
  sql: string;
  params: unknown[];
}

/** Same instant, same text: every datetime is compared as `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export function isoInstant(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const date = new Date(value as string | number);
  if (Number.isNaN(date.getTime())) throw new Error(`not an instant: ${String(value)}`);
  return date.toISOString();
}

function sqlValue(type: ValueType, value: unknown): unknown {
  if (type === 'datetime') return isoInstant(value);
  if (type === 'boolean') return value === true || value === 'true' ? 1 : 0;
  return value;
}

const startsSql = (col: string): string =>
  `(${col} IS NOT NULL AND (length(CAST(? AS BLOB)) = 0 OR substr(CAST(${col} AS BLOB), 1, length(CAST(? AS BLOB))) = CAST(? AS BLOB)))`;
const endsSql = (col: string): string =>
  `(${col} IS NOT NULL AND (length(CAST(? AS BLOB)) = 0 OR substr(CAST(${col} AS BLOB), -length(CAST(? AS BLOB))) = CAST(? AS BLOB)))`;

/**
 * A `like` pattern without `?` and with at most one run between stars, in plain SQL (D-51): `x` is `= x`, `*x*` is
 * instr, `a*b` is starts with a, ends with b and is at least as long as both (byte offsets of UTF-8 keep code point
 * order, so prefix and suffix do not overlap in bytes exactly when they do not in code points). Null otherwise.
 */
function likeSql(col: string, pattern: string): SqlPart | null {
  if (pattern.includes('?')) return null;
  const segments = pattern.split('*');
  if (segments.length === 1) return { sql: `${col} = ?`, params: [pattern] };
  const first = segments[0];
  const last = segments[segments.length - 1];
  const middle = segments.slice(1, -1).filter((run) => run.length > 0);
  if (middle.length === 0) {
    return {
      sql: `(${startsSql(col)} AND ${endsSql(col)} AND length(CAST(${col} AS BLOB)) >= length(CAST(? AS BLOB)) + length(CAST(? AS BLOB)))`,
      params: [first, first, first, last, last, last, first, last],
    };
  }
  if (middle.length === 1 && first === '' && last === '') return { sql: `(${col} IS NOT NULL AND instr(${col}, ?) > 0)`, params: [middle[0]] };
  return null;
}

/** The SQL of a positive operator, by its row of the grammar's semantics table (src/grammar/operators.ts). */
function positive(clause: FilterClause, semantics: Semantics, col: string, type: ValueType, columnOf: (field: string) => Column): SqlPart {
  const values = semantics.kind === 'same' ? [] : clause.values.map((v) => sqlValue(type, v));
  const v = values[0];
  const isArray = type === 'stringArray';
  switch (semantics.kind) {
    case 'null':
      return { sql: `${col} IS NULL`, params: [] };
    case 'presence':
      return { sql: '1', params: [] }; // every declared field is always present (D-05)
    case 'empty':
      // a non-empty array of strings has a '"' in its JSON text: only the others are parsed
      return isArray
        ? { sql: `(${col} IS NULL OR (instr(${col}, '"') = 0 AND json_array_length(${col}) = 0))`, params: [] }
        : { sql: `(${col} IS NULL OR ${col} = '')`, params: [] };
    case 'equal':
      return { sql: `${col} = ?`, params: [v] };
    case 'order': {
      const { below, equal } = semantics.holds;
      return { sql: `${col} ${below ? '<' : '>'}${equal ? '=' : ''} ?`, params: [v] };
    }
    // startswith/endswith on the UTF-8 bytes (CAST AS BLOB): substr/length of TEXT stop at a NUL character inside a
    // value, of a BLOB they do not; a byte prefix/suffix of UTF-8 is a code point prefix/suffix. No JavaScript call per
    // row (D-49).
    case 'text':
      if (semantics.test === 'startswith') return { sql: startsSql(col), params: [v, v, v] };
      if (semantics.test === 'endswith') return { sql: endsSql(col), params: [v, v, v] };
      return isArray
        ? // the stored JSON text holds JSON.stringify of each element verbatim (columns.ts): rows without it are not parsed
          { sql: `(instr(${col}, ?) > 0 AND EXISTS (SELECT 1 FROM json_each(${col}) WHERE json_each.value = ?))`, params: [JSON.stringify(v), v] }
        : { sql: `instr(${col}, ?) > 0`, params: [v] }; // instr compares by byte length: NUL-safe, unlike GLOB and length()
    case 'pattern': {
      if (semantics.pattern === 'match') return { sql: `care_regexp(?, ${col})`, params: [v] };
      const simple = likeSql(col, String(v));
      if (simple) return simple;
      // Every literal run between wildcards must occur in the value: instr() rules most rows out before the pattern runs.
      const runs = String(v).split(/[*?]/).filter((run) => run.length > 0);
      return { sql: [...runs.map(() => `instr(${col}, ?) > 0`), `care_like(?, ${col})`].join(' AND '), params: [...runs, v] };
    }
    case 'same': {
      const other = columnOf(String(clause.values[0]));
      const o = `"${other.column}"`;
      return { sql: `(${col} = ${o} OR (${col} IS NULL AND ${o} IS NULL))`, params: [] };
    }
    case 'member':
      return { sql: `${col} IN (${values.map(() => '?').join(', ')})`, params: values };
    case 'range':
      return { sql: `${col} BETWEEN ? AND ?`, params: [values[0], values[1]] };
  }
}

/** A clause as SQL: a negative operator (the description's `negationOf`) is the complement of its positive one. */
export function clauseSql(clause: FilterClause, columnOf: (field: string) => Column, operators: Record<string, OperatorSpec>): SqlPart {
  const col = `"${columnOf(clause.field).column}"`;
  const { semantics, negated } = semanticsOf(clause.operator, operators);
  if (negated) {
    const p = positive(clause, semantics, col, clause.type, columnOf);
    return { sql: `NOT COALESCE((${p.sql}), 0)`, params: p.params };
  }
  // Positive operators stay bare so indexes apply: a NULL result excludes the row like false does.
  const p = positive(clause, semantics, col, clause.type, columnOf);
  return { sql: `(${p.sql})`, params: p.params };
}

export function whereSql(filters: FilterClause[], columnOf: (field: string) => Column, operators: Record<string, OperatorSpec>): SqlPart {
  const parts = filters.map((f) => clauseSql(f, columnOf, operators));
  return { sql: parts.map((p) => p.sql).join(' AND '), params: parts.flatMap((p) => p.params) };
}

/** ORDER BY of the sort keys, then `id` ascending (D-28). SQLite puts NULL first ascending and last descending. */
export function orderSql(query: ListQuery, columnOf: (field: string) => Column, idColumn: string): string {
  const keys = query.sort.map((k) => `"${columnOf(k.field).column}" ${k.descending ? 'DESC' : 'ASC'}`);
  keys.push(`${idColumn} ASC`);
  return keys.join(', ');
}
