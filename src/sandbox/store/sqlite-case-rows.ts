// The case-list engine's port (memory/source.ts) over SQLite: the cases table read in chunks and by id, the counts the
// triggers keep (case_counts), and the connection's page cache turned down while the engine's fill scans the table.
import type Database from 'better-sqlite3';
import { fromSql } from './columns.ts';
import type { Column } from './columns.ts';
import type { CaseRow, CaseRowReader, CaseRowSource } from './memory/source.ts';

/** The page cache while a fill scans the table (-N: N KiB), SQLite's own default; better-sqlite3 builds it with 16,000 KiB. */
const SCAN_CACHE_SIZE = -2000;

export function sqliteCaseRows(db: Database.Database, caseColumns: readonly Column[]): CaseRowSource {
  const byField = new Map(caseColumns.map((c) => [c.field, c]));
  const counts = db.prepare('SELECT env, sum(n) FROM case_counts GROUP BY env').raw(true);
  const maxSeq = db.prepare('SELECT max(seq) FROM cases').pluck(true);
  return {
    recordFields: caseColumns.map((c) => c.field),
    countsByEnv: () => counts.all() as Array<[string, number]>,
    // the largest seq bounds the row count without counting the rows
    maxCases: () => (maxSeq.get() as number | null) ?? 0,
    writing: () => db.inTransaction,
    reader(fields) {
      const columns = fields.map((field) => {
        const c = byField.get(field);
        if (!c) throw new Error(`cases have no field ${field}`);
        return c;
      });
      const idAt = 1 + fields.indexOf('id');
      if (idAt === 0) throw new Error('the rows of cases must carry their id');
      // only JSON and boolean columns differ from what SQLite gives (fromSql): the others are left as read
      const decoded = columns.flatMap((c, i) => (c.kind === 'json' || c.kind === 'boolean' ? [i + 1] : []));
      const decode = (row: unknown[]): CaseRow => {
        for (const at of decoded) row[at] = fromSql(columns[at - 1].kind, row[at]);
        return row;
      };
      const select = ['env', ...columns.map((c) => `"${c.column}"`), 'customer_org', 'seq'].join(', ');
      const after = db.prepare(`SELECT ${select} FROM cases WHERE (env, id) > (?, ?) ORDER BY env, id LIMIT ?`).raw(true);
      const one = db.prepare(`SELECT ${select} FROM cases WHERE env = ? AND id = ?`).raw(true);
      /** The connection's own page cache size, given back after each scan (read once: a scan left unfinished keeps its own). */
      const own = db.pragma('cache_size', { simple: true }) as number;
      const reader: CaseRowReader = {
        *scan(chunk) {
          // the scan reads each page of the table once: kept in the page cache, its pages would hold memory that no
          // later read uses (the engine answers the lists then)
          db.pragma(`cache_size = ${SCAN_CACHE_SIZE}`);
          try {
            let last: [string, string] = ['', ''];
            for (;;) {
              const rows = after.all(last[0], last[1], chunk) as unknown[][];
              if (rows.length === 0) return;
              if (decoded.length > 0) for (const row of rows) decode(row);
              const end = rows[rows.length - 1];
              last = [end[0] as string, end[idAt] as string];
              yield rows;
            }
          } finally {
            if (db.open) db.pragma(`cache_size = ${own}`);
          }
        },
        row(env, id) {
          const row = one.get(env, id) as unknown[] | undefined;
          return row && decode(row);
        },
      };
      return reader;
    },
  };
}
