// Each account's own `externalReference` of a contract (D-75): a customer and its partner share the contract but not
// their references. Kept in `contract_refs` keyed by (environment, contract, account); lists read contracts through a
// view of the table joined with the caller's references, so filters and sorting on `externalReference` (and
// `updatedAt`, which moves with the caller's own change) apply to what that account sees.
import type Database from 'better-sqlite3';
import type { Column } from './columns.ts';

/** Create the table; a database from before D-75 gives its shared reference to both accounts of each contract. */
export function createContractRefs(db: Database.Database): void {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'contract_refs'`).get();
  if (exists) return;
  db.exec(`
    CREATE TABLE contract_refs (env TEXT NOT NULL, contract TEXT NOT NULL, account TEXT NOT NULL, reference TEXT,
      updated_at TEXT NOT NULL, PRIMARY KEY (env, contract, account)) WITHOUT ROWID;
    INSERT INTO contract_refs SELECT env, id, customer_org, external_reference, updated_at FROM contracts
      WHERE external_reference IS NOT NULL AND customer_org IS NOT NULL;
    INSERT INTO contract_refs SELECT env, id, partner_org, external_reference, updated_at FROM contracts
      WHERE external_reference IS NOT NULL AND partner_org IS NOT NULL;
    UPDATE contracts SET external_reference = NULL;`);
}

/**
 * `FROM` source for the contracts as `viewer` sees them: a derived table named `contracts` with the same columns, its
 * `external_reference` the viewer's and its `updated_at` the later of the contract's and the viewer's change.
 */
export function contractsAsSeenBy(columns: Column[], internal: string[], viewer: string): { sql: string; params: unknown[] } {
  const select = columns.map((c) => {
    if (c.column === 'external_reference') return 'r.reference AS external_reference';
    if (c.column === 'updated_at') return 'max(c.updated_at, coalesce(r.updated_at, c.updated_at)) AS updated_at';
    return `c."${c.column}"`;
  });
  const sql = `(SELECT c.seq, c.env, ${[...select, ...internal.map((i) => `c.${i}`)].join(', ')} FROM contracts c
    LEFT JOIN contract_refs r ON r.env = c.env AND r.contract = c.id AND r.account = ?) AS contracts`;
  return { sql, params: [viewer] };
}

export function contractRefStatements(db: Database.Database) {
  const get = db.prepare('SELECT reference, updated_at FROM contract_refs WHERE env = ? AND contract = ? AND account = ?');
  const set = db.prepare(`INSERT INTO contract_refs (env, contract, account, reference, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (env, contract, account) DO UPDATE SET reference = excluded.reference, updated_at = excluded.updated_at`);
  return {
    get(env: string, contract: string, account: string): { reference: string | null; updatedAt: string } | undefined {
      const row = get.get(env, contract, account) as { reference: string | null; updated_at: string } | undefined;
      return row ? { reference: row.reference, updatedAt: row.updated_at } : undefined;
    },
    set(env: string, contract: string, account: string, reference: string | null, updatedAt: string): void {
      set.run(env, contract, account, reference, updatedAt);
    },
  };
}
