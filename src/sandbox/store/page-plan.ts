// Which index a cases page is read through (decision D-50). With bound parameters SQLite cannot see how much of a
// filter's range matches, and for a range filter it prefers "read the range, then sort all of it" (a temporary
// B-tree of every matching row) over "walk the sort key's index, test each row, stop after offset + size". Once the
// exact count is known (taken first when it is cheap, D-49) the two costs can be compared:
//   range then sort: every matching row is read and sorted          ~ SORTED_ROW_COST x totalCount
//   sort-index walk: rows walked until offset + size have matched    ~ (offset + size) x scopeRows / totalCount
// and the walk is forced (INDEXED BY) when it is the cheaper one. The answer is the same either way (same SQL,
// same ORDER BY); only the access path changes.
import type { ListQuery } from '../../grammar/types.ts';
import { planCaseCount } from './case-count.ts';
import type { CaseCountContext } from './case-count.ts';

/** A row read, put in a temporary B-tree and sorted costs about this many rows walked in index order (measured at 100k). */
const SORTED_ROW_COST = 3;

export function sortIndexFor(query: ListQuery, totalCount: number, offset: number, ctx: CaseCountContext, indexes: Set<string>): string | undefined {
  // without a filter there is no range to prefer: SQLite walks the sort index by itself
  if (query.filters.length === 0 || query.sort.length === 0) return undefined;
  const first = query.sort[0];
  const name = `cases_sort_${ctx.columnOf(first.field).column}${first.descending ? '_desc' : ''}`;
  if (!indexes.has(name)) return undefined;
  const scopeRows = planCaseCount([], ctx)!;
  const walked = ((offset + query.page.size) * scopeRows) / Math.max(totalCount, 1);
  return walked <= SORTED_ROW_COST * totalCount ? name : undefined;
}
