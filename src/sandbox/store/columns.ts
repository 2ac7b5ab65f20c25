// Columns of the resource tables, derived from the resource schemas of the bundle: a field added to the description
// gets its column without a second list here. Objects and arrays are stored as JSON text, booleans as 0/1.
import { deref } from '../../spec/refs.ts';
import type { CareSpec } from '../../spec/index.ts';

export type ColumnKind = 'text' | 'integer' | 'boolean' | 'json';

export interface Column {
  field: string;
  column: string;
  kind: ColumnKind;
}

/** `shortDescription` -> `short_description`. */
export function columnName(field: string): string {
  return field.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

function typesOf(spec: CareSpec, schema: any, seen = 0): string[] {
  const s = deref(spec.document, schema);
  if (!s || typeof s !== 'object' || seen > 8) return [];
  if (s.type) return Array.isArray(s.type) ? s.type : [s.type];
  if (s.const !== undefined) return [typeof s.const === 'number' ? 'number' : typeof s.const];
  const branches = s.oneOf ?? s.anyOf ?? s.allOf;
  if (Array.isArray(branches)) return branches.flatMap((b: any) => typesOf(spec, b, seen + 1));
  return [];
}

function kindOf(spec: CareSpec, schema: any): ColumnKind {
  const types = typesOf(spec, schema).filter((t) => t !== 'null');
  if (types.some((t) => t === 'object' || t === 'array') || types.length === 0) return 'json';
  if (types.every((t) => t === 'boolean')) return 'boolean';
  if (types.every((t) => t === 'integer')) return 'integer';
  return 'text';
}

/** Properties of a resource schema (allOf merged), with their column kind. */
export function resourceColumns(spec: CareSpec, schemaName: string): Column[] {
  const properties: Record<string, unknown> = {};
  const collect = (schema: any) => {
    const s = deref(spec.document, schema);
    for (const part of s?.allOf ?? []) collect(part);
    Object.assign(properties, s?.properties ?? {});
  };
  collect({ $ref: `#/components/schemas/${schemaName}` });
  return Object.entries(properties).map(([field, schema]) => ({ field, column: columnName(field), kind: kindOf(spec, schema) }));
}

export function toSql(kind: ColumnKind, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (kind === 'json') return JSON.stringify(value);
  if (kind === 'boolean') return value ? 1 : 0;
  return value;
}

export function fromSql(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (kind === 'json') return JSON.parse(String(value));
  if (kind === 'boolean') return value === 1 || value === 1n;
  return value;
}

/**
 * SQL that writes a row's record as JSON text, the same JSON as `fromSql`'s values (test/sandbox.json-page.test.ts):
 * JSON columns embedded as JSON, booleans as true/false, text escaped by SQLite (NUL as \u0000), fields in order.
 */
export function recordJsonSql(columns: readonly Column[]): string {
  const value = (c: Column) => {
    const name = `"${c.column}"`;
    if (c.kind === 'json') return `json(${name})`;
    if (c.kind === 'boolean') return `CASE WHEN ${name} IS NULL THEN NULL WHEN ${name} THEN json('true') ELSE json('false') END`;
    return name;
  };
  return `json_object(${columns.map((c) => `'${c.field.replace(/'/g, "''")}', ${value(c)}`).join(', ')})`;
}
