// A list answered by SQL (the SQLite storage's; its answers are cached by list-cache.ts): the scope, the filters and the
// customer view as WHERE, the sort as ORDER BY; a cases count that needs no row scan first (case-count.ts, D-49/D-50),
// so a page past the end is not read and the page's index is chosen with the count (page-plan.ts, D-48).
import type Database from 'better-sqlite3';
import { semanticsOf } from '../../grammar/operators.ts';
import type { ListQuery } from '../../grammar/types.ts';
import type { OperatorSpec } from '../../spec/types.ts';
import { planCaseCount } from './case-count.ts';
import type { CaseCountContext } from './case-count.ts';
import { fromSql } from './columns.ts';
import type { Column } from './columns.ts';
import { contractsAsSeenBy } from './contract-refs.ts';
import { orderSql, whereSql } from './list-sql.ts';
import { objectsListResult } from './list-result.ts';
import { sortIndexFor } from './page-plan.ts';
import type { ListResult, Resource, Scope } from './types.ts';

/** What the SQL list reads of the storage: its statements, columns and indexes. */
export interface SqlListContext {
  operators: Record<string, OperatorSpec>;
  prepare(sql: string): Database.Statement;
  columns: Record<Resource, Column[]>;
  columnOf(resource: Resource): (field: string) => Column;
  scopeSql(scope: Scope): { sql: string; params: unknown[] };
  /** cases: the index a count filtered on one column reads, by column (D-48). */
  countIndexOf: Map<string, string>;
  /** cases: the indexes that order a page. */
  sortIndexes: Set<string>;
  /** contracts: the internal columns, for the view of one account (D-75). */
  contractsInternal: string[];
}

/** The list's page and exact count from SQL; `hidden` narrows it to the customer's view (D-79). */
export function sqlList(ctx: SqlListContext, resource: Resource, env: string, scope: Scope, query: ListQuery, hidden: string | null): ListResult {
  const { prepare, columns, columnOf, scopeSql, countIndexOf, sortIndexes } = ctx;
  const s = scopeSql(scope);
  const w = whereSql(query.filters, columnOf(resource), ctx.operators);
  const where = `env = ? AND ${s.sql}${hidden ? ` AND ${hidden}` : ''}${w.sql ? ` AND ${w.sql}` : ''}`;
  // D-75: contracts as the viewing account sees them (its own externalReference)
  const from = resource === 'contracts' && scope.viewer
    ? contractsAsSeenBy(columns.contracts, ctx.contractsInternal, scope.viewer)
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
        operators: ctx.operators,
        indexOf: (column) => countIndexOf.get(column),
        get: (sql, p) => prepare(sql).pluck(true).get(...p) as number,
      }
    : undefined;
  const countRows = (hint: string | undefined) =>
    (prepare(`SELECT count(*) AS n FROM ${from.sql}${hint ? ` INDEXED BY ${hint}` : ''} WHERE ${where}`).get(...params) as any).n as number;
  // only cases have the per-column indexes; contracts may be read through the viewer's view (D-75)
  const hint = resource === 'cases' ? countIndexOf.get(filteredColumn(query, columnOf(resource), ctx.operators) ?? '') : undefined;
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

/** The one column every filter of the query reads (sameas reads two), or undefined. */
function filteredColumn(query: ListQuery, columnOf: (field: string) => Column, operators: Record<string, OperatorSpec>): string | undefined {
  const read = new Set<string>();
  for (const f of query.filters) {
    read.add(columnOf(f.field).column);
    if (semanticsOf(f.operator, operators).semantics.kind === 'same') read.add(columnOf(String(f.values[0])).column);
  }
  return read.size === 1 ? [...read][0] : undefined;
}
