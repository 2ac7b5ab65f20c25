// The rows of the resource tables (the SQLite storage's): a record written as its columns (public and internal),
// read back as a record and its internal columns, updated field by field, removed, and found by scope. Each write is
// told to `wrote`, which moves the table's version and lets the column engine read a case back (sqlite.ts).
import type Database from 'better-sqlite3';
import { fromSql, toSql } from './columns.ts';
import type { Column } from './columns.ts';
import { INTERNAL_COLUMNS, snake } from './sqlite-schema.ts';
import type { Internal, Resource, Scope, Storage, Stored } from './types.ts';

const SCOPE_COLUMN: Record<Scope['by'], string> = { customerOrg: 'customer_org', partnerOrg: 'partner_org', contract: 'contract', case: 'case', account: 'account' };

export interface RecordTables {
  prepare(sql: string): Database.Statement;
  columns: Record<Resource, Column[]>;
  byField: Record<Resource, Map<string, Column>>;
  recordColumns: Record<Resource, string>;
  /** A statement wrote the row `id` of a table. */
  wrote(resource: Resource, env: string, id: unknown): void;
}

export function recordRows({ prepare, columns, byField, recordColumns, wrote }: RecordTables): Pick<Storage, 'insert' | 'get' | 'update' | 'remove' | 'findAll'> {
  return {
    insert(resource, env, record, internal = {}) {
      const names = ['env'];
      const values: unknown[] = [env];
      for (const c of columns[resource]) {
        names.push(`"${c.column}"`);
        values.push(toSql(c.kind, record[c.field]));
      }
      for (const [key, value] of Object.entries(internal)) {
        if (!(key in INTERNAL_COLUMNS[resource])) throw new Error(`${resource} has no internal column ${key}`);
        names.push(snake(key));
        values.push(value ?? null);
      }
      prepare(`INSERT INTO ${resource} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(...values);
      wrote(resource, env, record.id);
    },
    get(resource, env, id) {
      const row = prepare(`SELECT ${recordColumns[resource]} FROM ${resource} WHERE env = ? AND id = ?`).get(env, id);
      return row ? rowToStored(columns, resource, row) : undefined;
    },
    update(resource, env, id, changes, internal = {}) {
      const sets: string[] = [];
      const values: unknown[] = [];
      for (const [field, value] of Object.entries(changes)) {
        const c = columnOf(byField, resource)(field);
        sets.push(`"${c.column}" = ?`);
        values.push(toSql(c.kind, value));
      }
      for (const [key, value] of Object.entries(internal)) {
        if (!(key in INTERNAL_COLUMNS[resource])) throw new Error(`${resource} has no internal column ${key}`);
        sets.push(`${snake(key)} = ?`);
        values.push(value ?? null);
      }
      if (sets.length === 0) return;
      prepare(`UPDATE ${resource} SET ${sets.join(', ')} WHERE env = ? AND id = ?`).run(...values, env, id);
      wrote(resource, env, id);
      if ('id' in changes) wrote(resource, env, changes.id);
    },
    remove(resource, env, id) {
      prepare(`DELETE FROM ${resource} WHERE env = ? AND id = ?`).run(env, id);
      wrote(resource, env, id);
    },
    findAll(resource, env, scope) {
      const s = scopeSql(scope);
      return prepare(`SELECT ${recordColumns[resource]} FROM ${resource} WHERE env = ? AND ${s.sql} ORDER BY seq`).all(env, ...s.params).map((row) => rowToStored(columns, resource, row));
    },
  };
}

/** A row read with a table's record columns, as the record and its internal columns. */
export function rowToStored(columns: Record<Resource, Column[]>, resource: Resource, row: any): Stored {
  const record: Record<string, any> = {};
  for (const c of columns[resource]) record[c.field] = fromSql(c.kind, row[c.column]);
  const internal: Internal = {};
  for (const key of Object.keys(INTERNAL_COLUMNS[resource])) (internal as any)[key] = row[snake(key)];
  return { record, internal };
}

/** A table's column of a field; an unknown field throws (the grammar and the validation let none through). */
export function columnOf(byField: Record<Resource, Map<string, Column>>, resource: Resource) {
  return (field: string): Column => {
    const c = byField[resource].get(field);
    if (!c) throw new Error(`${resource} has no field ${field}`);
    return c;
  };
}

/** The WHERE text of a scope: its column restricted to its values (none: no row). */
export function scopeSql(scope: Scope): { sql: string; params: unknown[] } {
  if (scope.values.length === 0) return { sql: '0', params: [] };
  const col = `"${SCOPE_COLUMN[scope.by]}"`;
  if (scope.values.length === 1) return { sql: `${col} = ?`, params: [...scope.values] };
  return { sql: `${col} IN (${scope.values.map(() => '?').join(', ')})`, params: [...scope.values] };
}
