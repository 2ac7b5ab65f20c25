// The SQLite database of the sandbox's storage, opened and made current: pragmas, the two text functions SQL lacks,
// one table per resource with columns derived from the description (a field added since gets its column), the
// indexes (D-48), the case counts kept by triggers (D-49) and the contract references (D-75).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { compileLike, compileRegex } from '../../grammar/regex.ts';
import type { CareSpec } from '../../spec/types.ts';
import { resourceColumns } from './columns.ts';
import type { Column } from './columns.ts';
import { createContractRefs } from './contract-refs.ts';
import { listIndexes } from './list-indexes.ts';
import { RESOURCE_SCHEMAS } from './types.ts';
import type { Resource } from './types.ts';

export const INTERNAL_COLUMNS: Record<Resource, Record<string, string>> = {
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


export const snake = (name: string) => name.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());

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

export interface OpenedDatabase {
  db: Database.Database;
  columns: Record<Resource, Column[]>;
  byField: Record<Resource, Map<string, Column>>;
  /** cases: the index a count filtered on one column reads, by column (D-48). */
  countIndexOf: Map<string, string>;
  /** cases: the indexes that order a page. */
  sortIndexes: Set<string>;
  /** Per table, the columns a record is read from: everything but attachment bytes, which only attachmentContent() reads. */
  recordColumns: Record<Resource, string>;
}

export function openDatabase(spec: CareSpec, file: string): OpenedDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
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
  const recordColumns = {} as Record<Resource, string>;
  for (const resource of Object.keys(RESOURCE_SCHEMAS) as Resource[]) {
    const internal = Object.keys(INTERNAL_COLUMNS[resource]).filter((key) => key !== 'content').map(snake);
    recordColumns[resource] = [...columns[resource].map((c) => `"${c.column}"`), ...internal].join(', ');
  }

  return { db, columns, byField, countIndexOf, sortIndexes, recordColumns };
}
