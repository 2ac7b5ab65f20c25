// The SQLite storage of the sandbox (better-sqlite3): WAL, one table per resource with columns derived from the
// description (sqlite-schema.ts), lists filtered, sorted and paged in SQL (sqlite-list.ts) and cases by the column
// engine when it answers (D-84, sqlite-case-lists.ts), every list answer cached until its table is written
// (list-cache.ts).
import type Database from 'better-sqlite3';
import type { ListQuery } from '../../grammar/types.ts';
import type { CareSpec } from '../../spec/types.ts';
import { fromSql, toSql } from './columns.ts';
import type { Column } from './columns.ts';
import { openDeliveries } from './deliveries.ts';
import { contractRefStatements } from './contract-refs.ts';
import { customerViewSql } from './customer-view.ts';
import { cachedLists } from './list-cache.ts';
import { RESOURCE_SCHEMAS } from './types.ts';
import { openCaseMemory } from './memory/engine.ts';
import type { CaseMemory, CaseMemoryOptions } from './memory/engine.ts';
import { EngineCaseLists, casesJsonByRowid } from './sqlite-case-lists.ts';
import { sqlList } from './sqlite-list.ts';
import type { SqlListContext } from './sqlite-list.ts';
import { sqliteCaseRows } from './sqlite-case-rows.ts';
import { INTERNAL_COLUMNS, openDatabase, snake } from './sqlite-schema.ts';
import type { Internal, ListAnswer, ListResult, Org, Resource, Scope, Storage, Stored } from './types.ts';

const SCOPE_COLUMN: Record<Scope['by'], string> = { customerOrg: 'customer_org', partnerOrg: 'partner_org', contract: 'contract', case: 'case', account: 'account' };

export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  file: string;
  /**
   * Who answers the lists of cases (D-84): `memory` (default) the in-memory column engine once it is filled, SQL
   * until then; `sql` SQL only; `memory-only` (tests) throws where the engine does not answer, to prove it did.
   */
  caseLists?: 'memory' | 'sql' | 'memory-only';
  /** How the column engine is filled at open. */
  caseMemoryLoad?: CaseMemoryOptions['load'];
  /** Sizes of the engine's structures (tests: small, so a few thousand cases take the paths a million take). */
  caseMemorySizes?: Pick<CaseMemoryOptions, 'block' | 'countedCodes'>;
  /** Told who answered each list of cases and how (`--explain-lists`; the plan tests). */
  onListPlan?: (answer: ListAnswer, request: { env: string; scope: Scope; query: ListQuery }) => void;
}

export function openSqliteStorage(spec: CareSpec, options: SqliteOptions): Storage {
  const { db, columns, byField, countIndexOf, sortIndexes, recordColumns } = openDatabase(spec, options.file);
  const contractRefs = contractRefStatements(db);

  const caseMemory: CaseMemory | undefined = options.caseLists === 'sql' ? undefined : openCaseMemory(spec, sqliteCaseRows(db, columns.cases), { load: options.caseMemoryLoad, ...options.caseMemorySizes });
  const engineLists = caseMemory && new EngineCaseLists(caseMemory, options.caseLists === 'memory-only', (ids, rowids) => casesJsonByRowid(prepare, columns.cases, ids, rowids));
  /** A statement wrote case `id`: the column engine reads it back once committed. */
  const touched = (resource: Resource, env: string, id: unknown) => {
    if (resource === 'cases' && caseMemory && typeof id === 'string') caseMemory.touched(env, id);
  };

  /** Who answered a list of cases and how, to `onListPlan` (`--explain-lists`). */
  const explain = (answer: ListAnswer, env: string, scope: Scope, query: ListQuery) => options.onListPlan?.(answer, { env, scope, query });

  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };

  // Table versions: every write bumps its table (what a caller read from it stays current while it is unchanged), and
  // drops the table's cached list answers (list-cache.ts)
  const versions = new Map<Resource, number>();
  const bump = (resource: Resource) => {
    versions.set(resource, (versions.get(resource) ?? 0) + 1);
    lists.written(resource);
  };

  function rowToStored(resource: Resource, row: any): Stored {
    const record: Record<string, any> = {};
    for (const c of columns[resource]) record[c.field] = fromSql(c.kind, row[c.column]);
    const internal: Internal = {};
    for (const key of Object.keys(INTERNAL_COLUMNS[resource])) (internal as any)[key] = row[snake(key)];
    return { record, internal };
  }

  function columnOf(resource: Resource) {
    return (field: string): Column => {
      const c = byField[resource].get(field);
      if (!c) throw new Error(`${resource} has no field ${field}`);
      return c;
    };
  }

  function scopeSql(scope: Scope): { sql: string; params: unknown[] } {
    if (scope.values.length === 0) return { sql: '0', params: [] };
    const col = `"${SCOPE_COLUMN[scope.by]}"`;
    if (scope.values.length === 1) return { sql: `${col} = ?`, params: [...scope.values] };
    return { sql: `${col} IN (${scope.values.map(() => '?').join(', ')})`, params: [...scope.values] };
  }

  const sql: SqlListContext = {
    operators: spec.operators,
    prepare,
    columns,
    columnOf,
    scopeSql,
    countIndexOf,
    sortIndexes,
    contractsInternal: Object.keys(INTERNAL_COLUMNS.contracts).map(snake),
  };
  /** A list from SQL, or for cases from the column engine when it answers (D-84); cached by `lists` below. */
  function list(resource: Resource, env: string, scope: Scope, query: ListQuery): ListResult {
    const hidden = scope.customerView ? customerViewSql(resource) : null; // D-79
    // D-84: cases from the column engine; SQL while it cannot answer
    if (resource === 'cases' && engineLists && !hidden) {
      const answered = engineLists.list(env, scope, query, explain);
      if (answered) return answered;
    } else if (resource === 'cases') explain({ by: 'sql', why: caseMemory ? 'a list the customer view narrows (D-79)' : '--case-lists sql' }, env, scope, query);
    return sqlList(sql, resource, env, scope, query, hidden);
  }

  // every list answer cached until its table is written (list-cache.ts); a cases list served again says so
  const lists = cachedLists(list, (resource, env, scope, query) => {
    if (resource === 'cases') explain({ by: 'page cache' }, env, scope, query);
  });

  const storage: Storage = {
    transaction(fn) {
      const outermost = !db.inTransaction;
      try {
        return db.transaction(fn)(); // nested: a savepoint
      } catch (error) {
        // rolled back (to the savepoint): what was read and cached inside it (pages, counts, an account's contracts)
        // may be gone
        for (const resource of Object.keys(RESOURCE_SCHEMAS) as Resource[]) bump(resource);
        throw error;
      } finally {
        if (outermost) caseMemory?.settle(); // committed or rolled back: the engine reads back what it touched
      }
    },
    version: (resource) => versions.get(resource) ?? 0,
    whenListsReady: () => caseMemory?.whenReady() ?? Promise.resolve(),
    nextId(prefix, start = 1, env) {
      // An environment's sequence is keyed `PREFIX@env` and begins after the shared one (seeded data uses that).
      const row = prepare(
        `INSERT INTO sequences (prefix, value) VALUES (?, max(?, coalesce((SELECT value FROM sequences WHERE prefix = ?), 0) + 1))
         ON CONFLICT (prefix) DO UPDATE SET value = value + 1 RETURNING value`,
      ).get(env ? `${prefix}@${env}` : prefix, start, prefix) as any;
      return prefix + String(row.value).padStart(7, '0');
    },
    getSetting: (key) => (prepare('SELECT value FROM settings WHERE key = ?').get(key) as any)?.value,
    setSetting: (key, value) => void prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value),

    insertOrg: (env, org) => void prepare('INSERT INTO orgs (env, id, name, kind) VALUES (?, ?, ?, ?)').run(env, org.id, org.name, org.kind),
    getOrg: (env, id) => prepare('SELECT id, name, kind FROM orgs WHERE env = ? AND id = ?').get(env, id) as Org | undefined,
    listOrgs: (env) => prepare('SELECT id, name, kind FROM orgs WHERE env = ? ORDER BY id').all(env) as Org[],
    addContact: (env, org, email) => void prepare('INSERT OR IGNORE INTO contacts (env, org, email) VALUES (?, ?, ?)').run(env, org, email),
    contactsOf: (env, org) => (prepare('SELECT email FROM contacts WHERE env = ? AND org = ? ORDER BY rowid').all(env, org) as any[]).map((r) => r.email),

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
      bump(resource);
      touched(resource, env, record.id);
    },
    get(resource, env, id) {
      const row = prepare(`SELECT ${recordColumns[resource]} FROM ${resource} WHERE env = ? AND id = ?`).get(env, id);
      return row ? rowToStored(resource, row) : undefined;
    },
    update(resource, env, id, changes, internal = {}) {
      const sets: string[] = [];
      const values: unknown[] = [];
      for (const [field, value] of Object.entries(changes)) {
        const c = columnOf(resource)(field);
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
      bump(resource);
      touched(resource, env, id);
      if ('id' in changes) touched(resource, env, changes.id);
    },
    remove(resource, env, id) {
      prepare(`DELETE FROM ${resource} WHERE env = ? AND id = ?`).run(env, id);
      bump(resource);
      touched(resource, env, id);
    },
    findAll(resource, env, scope) {
      const s = scopeSql(scope);
      return prepare(`SELECT ${recordColumns[resource]} FROM ${resource} WHERE env = ? AND ${s.sql} ORDER BY seq`).all(env, ...s.params).map((row) => rowToStored(resource, row));
    },
    list: (resource, env, scope, query) => lists.list(resource, env, scope, query),
    contractReference: (env, contract, account) => contractRefs.get(env, contract, account),
    setContractReference(env, contract, account, reference, updatedAt) {
      contractRefs.set(env, contract, account, reference, updatedAt);
      bump('contracts');
    },
    attachmentContent(env, id) {
      const row = prepare('SELECT content FROM attachments WHERE env = ? AND id = ?').get(env, id) as any;
      return row ? Buffer.from(row.content ?? Buffer.alloc(0)) : undefined;
    },

    ...openDeliveries(db),

    writeCount: () => (prepare('SELECT total_changes() AS n').get() as any).n,
    counts() {
      const out: Record<string, number> = {};
      for (const table of [...Object.keys(RESOURCE_SCHEMAS), 'orgs', 'contacts', 'deliveries']) {
        out[table] = (prepare(`SELECT count(*) AS n FROM ${table}`).get() as any).n;
      }
      return out;
    },
    close: () => {
      caseMemory?.close();
      db.close();
    },
  };
  return storage;
}
