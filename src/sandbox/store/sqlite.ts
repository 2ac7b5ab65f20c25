// The SQLite storage of the sandbox (better-sqlite3): WAL, one table per resource with columns derived from the
// description, lists filtered, sorted and paged in SQL (cases by the column engine, D-84), every list answer cached
// until its table is written (list-cache.ts).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ListQuery } from '../../grammar/types.ts';
import { semanticsOf } from '../../grammar/operators.ts';
import type { CareSpec, OperatorSpec, ValueType } from '../../spec/types.ts';
import { compileLike, compileRegex } from '../../grammar/regex.ts';
import { fromSql, recordJsonSql, resourceColumns, toSql } from './columns.ts';
import type { Column } from './columns.ts';
import { listIndexes } from './list-indexes.ts';
import { planCaseCount } from './case-count.ts';
import type { CaseCountContext } from './case-count.ts';
import { sortIndexFor } from './page-plan.ts';
import { openDeliveries } from './deliveries.ts';
import { orderSql, whereSql } from './list-sql.ts';
import { contractRefStatements, contractsAsSeenBy, createContractRefs } from './contract-refs.ts';
import { customerViewSql } from './customer-view.ts';
import { JsonText } from '../json-text.ts';
import { cachedLists } from './list-cache.ts';
import { objectsListResult, writtenListResult } from './list-result.ts';
import { RESOURCE_SCHEMAS } from './types.ts';
import { openCaseMemory } from './memory/engine.ts';
import type { CaseMemory, CaseMemoryOptions } from './memory/engine.ts';
import { sqliteCaseRows } from './sqlite-case-rows.ts';
import type { Internal, ListAnswer, ListResult, Org, Resource, Scope, Storage, Stored } from './types.ts';

const INTERNAL_COLUMNS: Record<Resource, Record<string, string>> = {
  cases: { customerOrg: 'customer_org TEXT' },
  contracts: { customerOrg: 'customer_org TEXT', partnerOrg: 'partner_org TEXT' },
  apikeys: { account: 'account TEXT', secretHash: 'secret_hash TEXT' },
  webhooks: { account: 'account TEXT', signingSecret: 'signing_secret TEXT' },
  comments: { contract: 'contract TEXT' },
  attachments: { contract: 'contract TEXT', content: 'content BLOB' },
  events: { actor: 'actor TEXT' },
};

const INDEXES: string[] = [
  'CREATE INDEX IF NOT EXISTS cases_customer ON cases (env, customer_org, status, created_at)',
  'CREATE INDEX IF NOT EXISTS cases_contract ON cases (env, contract, status, created_at)',
  'CREATE INDEX IF NOT EXISTS cases_status ON cases (env, status, created_at)',
  'CREATE INDEX IF NOT EXISTS comments_case ON comments (env, "case")',
  'CREATE INDEX IF NOT EXISTS attachments_case ON attachments (env, "case")',
  'CREATE INDEX IF NOT EXISTS contracts_customer ON contracts (env, customer_org)',
  'CREATE INDEX IF NOT EXISTS contracts_partner ON contracts (env, partner_org)',
  'CREATE INDEX IF NOT EXISTS apikeys_account ON apikeys (env, account)',
  'CREATE INDEX IF NOT EXISTS webhooks_account ON webhooks (env, account)',
  'CREATE INDEX IF NOT EXISTS events_contract ON events (env, contract, created_at)',
];

const SCOPE_COLUMN: Record<Scope['by'], string> = { customerOrg: 'customer_org', partnerOrg: 'partner_org', contract: 'contract', case: 'case', account: 'account' };

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());

/**
 * Exact case counts per (environment, customer, contract, status, priority), kept by triggers in the same
 * transaction as every write: a count filtered on status or priority within an account's scope sums a few hundred
 * groups instead of counting rows, so its cost does not grow with the data.
 */
function createCaseCounts(db: Database.Database): void {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'case_counts'`).get();
  if (exists) return;
  db.exec(`
    CREATE TABLE case_counts (env TEXT NOT NULL, customer_org TEXT NOT NULL, contract TEXT NOT NULL, status INTEGER NOT NULL,
      priority INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (env, customer_org, contract, status, priority)) WITHOUT ROWID;
    INSERT INTO case_counts SELECT env, coalesce(customer_org, ''), coalesce(contract, ''), status, priority, count(*) FROM cases
      GROUP BY env, coalesce(customer_org, ''), coalesce(contract, ''), status, priority;
    CREATE TRIGGER case_counts_insert AFTER INSERT ON cases BEGIN
      INSERT INTO case_counts VALUES (new.env, coalesce(new.customer_org, ''), coalesce(new.contract, ''), new.status, new.priority, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER case_counts_delete AFTER DELETE ON cases BEGIN
      UPDATE case_counts SET n = n - 1 WHERE env = old.env AND customer_org = coalesce(old.customer_org, '')
        AND contract = coalesce(old.contract, '') AND status = old.status AND priority = old.priority;
    END;
    CREATE TRIGGER case_counts_update AFTER UPDATE OF env, customer_org, contract, status, priority ON cases BEGIN
      UPDATE case_counts SET n = n - 1 WHERE env = old.env AND customer_org = coalesce(old.customer_org, '')
        AND contract = coalesce(old.contract, '') AND status = old.status AND priority = old.priority;
      INSERT INTO case_counts VALUES (new.env, coalesce(new.customer_org, ''), coalesce(new.contract, ''), new.status, new.priority, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    END;`);
}

/** The one column every filter of the query reads (sameas reads two), or undefined. */
function filteredColumn(query: ListQuery, columnOf: (field: string) => Column, operators: Record<string, OperatorSpec>): string | undefined {
  const read = new Set<string>();
  for (const f of query.filters) {
    read.add(columnOf(f.field).column);
    if (semanticsOf(f.operator, operators).semantics.kind === 'same') read.add(columnOf(String(f.values[0])).column);
  }
  return read.size === 1 ? [...read][0] : undefined;
}

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
  if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
  const db = new Database(options.file);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a committed transaction survives a killed process (kill -9); only an OS crash may lose the last ones.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // 32 MiB of page cache instead of the 16 that better-sqlite3 builds SQLite with: a page of cases reads its records
  // by rowid from all over the table; at 100k cases, 200 random records took 1.2 ms with the default and 0.85 ms with
  // this (D-84). The column engine's fill scans the table with 2,000 KiB, then gives this back (sqlite-case-rows.ts).
  db.pragma('cache_size = -32768');
  // The two text operators SQL cannot answer alone (D-49), with the grammar's own pattern compilers (same semantics
  // by construction): `match` (RE2) and the `like` patterns that plain SQL does not cover.
  const text = (value: unknown): value is string => typeof value === 'string';
  const fn = (name: string, body: (a: unknown, b: unknown) => boolean | null) =>
    db.function(name, { deterministic: true }, (a: unknown, b: unknown) => {
      const result = body(a, b);
      return result === null ? null : result ? 1 : 0;
    });
  fn('care_regexp', (pattern, value) => (text(value) ? compileRegex(String(pattern)).test(value) : null));
  fn('care_like', (pattern, value) => (text(value) ? compileLike(String(pattern)).test(value) : null));

  const columns = {} as Record<Resource, Column[]>;
  const byField = {} as Record<Resource, Map<string, Column>>;
  for (const resource of Object.keys(RESOURCE_SCHEMAS) as Resource[]) {
    columns[resource] = resourceColumns(spec, RESOURCE_SCHEMAS[resource]);
    byField[resource] = new Map(columns[resource].map((c) => [c.field, c]));
  }

  db.exec(`CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS sequences (prefix TEXT PRIMARY KEY, value INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS orgs (env TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (env, id));
    CREATE TABLE IF NOT EXISTS contacts (env TEXT NOT NULL, org TEXT NOT NULL, email TEXT NOT NULL, PRIMARY KEY (env, org, email));`);
  for (const resource of Object.keys(RESOURCE_SCHEMAS) as Resource[]) {
    const publicCols = columns[resource].map((c) => `"${c.column}" ${c.kind === 'integer' || c.kind === 'boolean' ? 'INTEGER' : 'TEXT'}`);
    const internalCols = Object.values(INTERNAL_COLUMNS[resource]);
    db.exec(`CREATE TABLE IF NOT EXISTS ${resource} (seq INTEGER PRIMARY KEY, env TEXT NOT NULL, ${[...publicCols, ...internalCols].join(', ')})`);
    // A field added to the description after the database was made: add its column.
    const existing = new Set((db.prepare(`PRAGMA table_info(${resource})`).all() as any[]).map((r) => r.name));
    for (const [i, c] of columns[resource].entries()) if (!existing.has(c.column)) db.exec(`ALTER TABLE ${resource} ADD COLUMN ${publicCols[i]}`);
    db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS ${resource}_id ON ${resource} (env, id)`);
  }
  for (const index of INDEXES) db.exec(index);
  // cases grow with the data: index-ordered pages for every sortable field (D-48); the others are small per scope
  const existingIndexes = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index'`).all() as any[]).map((r) => r.name));
  const caseIndexes = listIndexes(spec, 'cases', RESOURCE_SCHEMAS.cases, ['customer_org', 'contract']);
  const missing = caseIndexes.filter((i) => !existingIndexes.has(i.name));
  // a count filtered on one column reads only that column's index: value and scope are in its entries (D-48)
  const countIndexOf = new Map(caseIndexes.filter((i) => !i.descending).map((i) => [i.column, i.name]));
  for (const index of missing) db.exec(`CREATE INDEX ${index.name} ON cases ${index.sql}`);
  const sortIndexes = new Set(caseIndexes.map((i) => i.name));
  // statistics for the planner (which index is selective, which only orders), sampled so it stays quick at 1M rows
  if (missing.length > 0 || !db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'`).get()) db.exec('PRAGMA analysis_limit = 400; ANALYZE');
  createCaseCounts(db);
  createContractRefs(db);
  const contractRefs = contractRefStatements(db);

  // Everything but attachment bytes, which only attachmentContent() reads.
  const recordColumns = {} as Record<Resource, string>;
  for (const resource of Object.keys(RESOURCE_SCHEMAS) as Resource[]) {
    const internal = Object.keys(INTERNAL_COLUMNS[resource]).filter((key) => key !== 'content').map(snake);
    recordColumns[resource] = [...columns[resource].map((c) => `"${c.column}"`), ...internal].join(', ');
  }

  const caseMemory: CaseMemory | undefined = options.caseLists === 'sql' ? undefined : openCaseMemory(spec, sqliteCaseRows(db, columns.cases), { load: options.caseMemoryLoad, ...options.caseMemorySizes });
  /** A statement wrote case `id`: the column engine reads it back once committed. */
  const touched = (resource: Resource, env: string, id: unknown) => {
    if (resource === 'cases' && caseMemory && typeof id === 'string') caseMemory.touched(env, id);
  };

  let memoryFailed = false;
  /** The engine's answer, or why SQL answers; should it ever throw, SQL answers instead (a list must not become a 500), said once. */
  function memoryList(env: string, scope: Scope, query: ListQuery): ReturnType<CaseMemory['list']> {
    if (memoryFailed && options.caseLists !== 'memory-only') return { refused: 'it failed earlier (its error was printed then)' };
    try {
      return caseMemory!.list(env, scope, query);
    } catch (error) {
      if (options.caseLists === 'memory-only') throw error;
      memoryFailed = true;
      process.stderr.write(`care-sandbox: the case column engine failed, SQL answers lists from now on (D-84): ${(error as Error).stack}\n`);
      return { refused: 'it failed (its error is printed above)' };
    }
  }
  /** Who answered a list of cases and how, to `onListPlan` (`--explain-lists`). */
  const explain = (answer: ListAnswer, env: string, scope: Scope, query: ListQuery) => options.onListPlan?.(answer, { env, scope, query });

  /**
   * The page's records by rowid (one lookup each, no index), in the order given, as JSON text that SQLite writes (the
   * same JSON as the records' own, see recordJsonSql); `ids` checks each is the case meant.
   */
  function casesJsonByRowid(ids: string[], rowids: number[]): JsonText {
    if (ids.length === 0) return new JsonText('[]', 0);
    const rows = prepare(`SELECT seq, "id", ${recordJsonSql(columns.cases)} FROM cases WHERE seq IN (SELECT value FROM json_each(?))`)
      .raw(true)
      .all(JSON.stringify(rowids)) as Array<[number, string, string]>;
    const bySeq = new Map(rows.map((row) => [Number(row[0]), row]));
    const records = rowids.map((rowid, i) => {
      const row = bySeq.get(rowid);
      if (!row || row[1] !== ids[i]) throw new Error(`case ${ids[i]} of a memory page is not in the database as rowid ${rowid}`);
      return row[2];
    });
    return new JsonText(`[${records.join(',')}]`, records.length);
  }

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

  /**
   * A cases list answered by the column engine (D-84), keyed by the query itself: no SQL is written for it. Undefined
   * while the engine cannot answer.
   */
  function memoryListResult(env: string, scope: Scope, query: ListQuery): ListResult | undefined {
    const answer = memoryList(env, scope, query);
    if ('refused' in answer) {
      if (options.caseLists === 'memory-only') throw new Error(`the case column engine did not answer: ${answer.refused}`);
      explain({ by: 'sql', why: `the engine refused: ${answer.refused}` }, env, scope, query);
      return undefined;
    }
    explain({ by: 'engine', plan: answer.plan, outcome: answer.outcome }, env, scope, query);
    const json = answer.json === undefined ? casesJsonByRowid(answer.ids, answer.rowids) : new JsonText(answer.json, answer.ids.length);
    return writtenListResult(json, answer.totalCount);
  }

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

  /** A list from SQL, or for cases from the column engine when it answers (D-84); cached by `lists` below. */
function list(resource: Resource, env: string, scope: Scope, query: ListQuery): ListResult {
    const hidden = scope.customerView ? customerViewSql(resource) : null; // D-79
    // D-84: cases from the column engine; SQL while it cannot answer
    if (resource === 'cases' && caseMemory && !hidden) {
      const answered = memoryListResult(env, scope, query);
      if (answered) return answered;
    } else if (resource === 'cases') explain({ by: 'sql', why: caseMemory ? 'a list the customer view narrows (D-79)' : '--case-lists sql' }, env, scope, query);
    const s = scopeSql(scope);
    const w = whereSql(query.filters, columnOf(resource), spec.operators);
    const where = `env = ? AND ${s.sql}${hidden ? ` AND ${hidden}` : ''}${w.sql ? ` AND ${w.sql}` : ''}`;
    // D-75: contracts as the viewing account sees them (its own externalReference)
    const from = resource === 'contracts' && scope.viewer
      ? contractsAsSeenBy(columns.contracts, Object.keys(INTERNAL_COLUMNS.contracts).map(snake), scope.viewer)
      : { sql: resource, params: [] };
    const params = [...from.params, env, ...s.params, ...w.params];
    const cols = columns[resource];
    const select = cols.map((c) => `"${c.column}"`).join(', ');
    const order = orderSql(query, columnOf(resource), 'seq');
    const offset = (query.page.number - 1) * query.page.size;
    let totalCount: number | undefined;
    // D-49/D-50: a cases count that needs no row scan is taken first, so the page can be planned with it
    const countCtx: CaseCountContext | undefined = resource === 'cases' && !hidden && (scope.by === 'customerOrg' || scope.by === 'contract')
      ? {
          scopeWhere: `env = ? AND ${s.sql}`,
          scopeParams: [env, ...s.params],
          columnOf: columnOf(resource),
          operators: spec.operators,
          indexOf: (column) => countIndexOf.get(column),
          get: (sql, p) => prepare(sql).pluck(true).get(...p) as number,
        }
      : undefined;
    const countRows = (hint: string | undefined) =>
      (prepare(`SELECT count(*) AS n FROM ${from.sql}${hint ? ` INDEXED BY ${hint}` : ''} WHERE ${where}`).get(...params) as any).n as number;
    // only cases have the per-column indexes; contracts may be read through the viewer's view (D-75)
    const hint = resource === 'cases' ? countIndexOf.get(filteredColumn(query, columnOf(resource), spec.operators) ?? '') : undefined;
    if (countCtx) {
      // counted before the page even when rows must be read: a page past the end (frequent for a selective filter)
      // is then not read at all, and the page is planned with the count; only a first page shorter than its size
      // would have given the count for free
      totalCount = planCaseCount(query.filters, countCtx) ?? countRows(hint);
    }
    let items: Record<string, any>[];
    if (totalCount !== undefined && offset >= totalCount) items = []; // past the end: nothing to read
    else {
      const pageIndex = totalCount !== undefined && countCtx ? sortIndexFor(query, totalCount, offset, countCtx, sortIndexes) : undefined;
      const sql = `SELECT ${select} FROM ${from.sql}${pageIndex ? ` INDEXED BY ${pageIndex}` : ''} WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`;
      // raw rows (arrays): building the records ourselves is about twice as fast as named row objects
      const rows = prepare(sql).raw(true).all(...params, query.page.size, offset) as unknown[][];
      items = rows.map((row) => {
        const record: Record<string, any> = {};
        for (let i = 0; i < cols.length; i++) record[cols[i].field] = fromSql(cols[i].kind, row[i]);
        return record;
      });
    }
    if (totalCount === undefined) {
      if (offset === 0 && items.length < query.page.size) totalCount = items.length; // the whole result is on this page
      else totalCount = countRows(hint);
    }
    return objectsListResult(items, totalCount);
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
