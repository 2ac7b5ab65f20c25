// The SQLite storage of the sandbox (better-sqlite3): WAL, one table per resource with columns derived from the
// description (sqlite-schema.ts), lists filtered, sorted and paged in SQL (sqlite-list.ts) and cases by the column
// engine when it answers (D-84, sqlite-case-lists.ts), every list answer cached until its table is written
// (list-cache.ts); rows of the resource tables in sqlite-records.ts, the small tables in sqlite-settings.ts. Here the
// parts are put together: the versions the writes move, the transactions, the choice between engine and SQL.
import type Database from 'better-sqlite3';
import type { ListQuery } from '../../grammar/types.ts';
import type { CareSpec } from '../../spec/types.ts';
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
import { columnOf, recordRows, scopeSql } from './sqlite-records.ts';
import { settingRows } from './sqlite-settings.ts';
import type { ListAnswer, ListResult, Resource, Scope, Storage } from './types.ts';

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
  /** A statement wrote the row `id`: its table's version moves; a case, the column engine reads back once committed. */
  const wrote = (resource: Resource, env: string, id: unknown) => {
    bump(resource);
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

  const sql: SqlListContext = {
    operators: spec.operators,
    prepare,
    columns,
    columnOf: (resource) => columnOf(byField, resource),
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
    ...settingRows(prepare),
    ...recordRows({ prepare, columns, byField, recordColumns, wrote }),
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
