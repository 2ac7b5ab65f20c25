// The physical floor of a list request (issue 8): the same rows held in this process as plain objects, one scan with
// the grammar's evaluator, the exact count, and a bounded top-k of page.number x page.size by the sort. No HTTP, no
// JSON, no storage engine: what a request costs at least when every row is looked at.
import Database from 'better-sqlite3';
import { compareBySort, matchesFilters } from '../src/grammar/evaluate.ts';
import type { ListQuery } from '../src/grammar/types.ts';
import { fromSql, resourceColumns } from '../src/sandbox/store/columns.ts';
import type { CareSpec } from '../src/spec/types.ts';

export interface FloorRow {
  record: Record<string, any>;
  customerOrg: string | null;
  contract: string | null;
}

/** The sandbox environment's cases of a sandbox database file, read once. */
export function loadCases(spec: CareSpec, file: string, where?: { sql: string; params: unknown[]; limit?: number }): FloorRow[] {
  const db = new Database(file, { readonly: true });
  const columns = resourceColumns(spec, 'Case');
  const rows = db.prepare(`SELECT ${columns.map((c) => `"${c.column}"`).join(', ')}, customer_org, contract FROM cases WHERE env = 'sandbox'${where ? ` AND ${where.sql} ORDER BY seq${where.limit ? ` LIMIT ${where.limit}` : ''}` : ''}`).raw(true).all(...(where?.params ?? [])) as unknown[][];
  db.close();
  return rows.map((row) => {
    const record: Record<string, any> = {};
    columns.forEach((c, i) => (record[c.field] = fromSql(c.kind, row[i])));
    return { record, customerOrg: row[columns.length] as string | null, contract: row[columns.length + 1] as string | null };
  });
}

export type FloorScope = { by: 'customerOrg' | 'contract'; values: string[] };

/** One scan: count every match, keep the best `page.number * page.size` in a max-heap, return the page. */
export function floorList(rows: FloorRow[], scope: FloorScope, query: ListQuery): { items: Record<string, any>[]; totalCount: number } {
  const k = query.page.number * query.page.size;
  const sort = [...query.sort, { field: 'id', descending: false }];
  const worse = (a: Record<string, any>, b: Record<string, any>) => compareBySort(a, b, sort) > 0;
  const heap: Record<string, any>[] = [];
  const scopeValues = new Set(scope.values);
  let totalCount = 0;
  for (const row of rows) {
    const key = scope.by === 'customerOrg' ? row.customerOrg : row.contract;
    if (key === null || !scopeValues.has(key)) continue;
    if (query.filters.length > 0 && !matchesFilters(row.record, query.filters)) continue;
    totalCount++;
    const item = row.record;
    if (heap.length < k) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i], heap[parent])) break;
        [heap[i], heap[parent]] = [heap[parent], heap[i]];
        i = parent;
      }
    } else if (worse(heap[0], item)) {
      heap[0] = item;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let top = i;
        if (l < heap.length && worse(heap[l], heap[top])) top = l;
        if (r < heap.length && worse(heap[r], heap[top])) top = r;
        if (top === i) break;
        [heap[i], heap[top]] = [heap[top], heap[i]];
        i = top;
      }
    }
  }
  heap.sort((a, b) => compareBySort(a, b, sort));
  return { items: heap.slice((query.page.number - 1) * query.page.size), totalCount };
}
