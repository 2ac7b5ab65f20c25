// Indexes of the list queries, derived from the sortable fields the description declares (decision D-48): a field
// made sortable in openapi/ gets its indexes on the next start, without a second list here.
//
// For each sortable field of a resource two indexes, `(env, field, seq, <scope columns>)` ascending and
// `(env, field DESC, seq, <scope columns>)`: their entry order is exactly the list order (the key, then `seq` = id
// ascending as the tie-break of D-28, in both directions), so a sorted page is read in index order and the walk stops
// after offset + size rows (no sort of the whole result); the scope columns in the entry let SQLite test the
// account's scope without reading the row. A field that is filterable but not sortable (arrays included) gets the ascending one only:
// its filters' ranges and counts are read from it.
import type { CareSpec } from '../../spec/types.ts';
import { columnName } from './columns.ts';

export interface ListIndex {
  name: string;
  sql: string;
  /** The column the index is ordered by, and whether descending. */
  column: string;
  descending: boolean;
}

/**
 * Index definitions for `table`, whose resource schema is `schema` and whose scope columns are `scopeColumns`.
 * Only resources that can grow with the data get them (their list is scoped by a column that many rows share).
 */
export function listIndexes(spec: CareSpec, table: string, schema: string, scopeColumns: string[]): ListIndex[] {
  const sortable = new Set<string>();
  const filterable = new Set<string>();
  for (const op of spec.operations) {
    if (op.list?.itemSchema !== schema) continue;
    for (const f of op.list.sortFields) sortable.add(f);
    // arrays too: their JSON text orders nothing, but `null` and its complement are ranges of it
    for (const f of Object.values(op.list.filterFields)) filterable.add(f.name);
  }
  const scope = scopeColumns.map((c) => `, ${c}`).join('');
  const out: ListIndex[] = [];
  for (const field of sortable) {
    const column = columnName(field);
    out.push({ name: `${table}_sort_${column}`, sql: `(env, "${column}", seq${scope})`, column, descending: false });
    out.push({ name: `${table}_sort_${column}_desc`, sql: `(env, "${column}" DESC, seq${scope})`, column, descending: true });
  }
  // filterable but not sortable: one index, for the ranges of its filters and their counts (read without the rows)
  for (const field of filterable) {
    if (sortable.has(field)) continue;
    const column = columnName(field);
    out.push({ name: `${table}_filter_${column}`, sql: `(env, "${column}", seq${scope})`, column, descending: false });
  }
  return out;
}
