// The query grammar of seed section 1, as data. Pure: no I/O.
import type { ValueType } from '../spec/types.ts';

/** One problem found while reading a request; becomes one error object (`detail` = `${location}: ${problem}`). */
export interface GrammarError {
  /** e.g. `query.filter.status.in`, `query.page.size`, `query.sort`, `body.priority`. */
  location: string;
  problem: string;
  /** Error `code` (decision D-25), e.g. `invalid_filter_field`, `invalid_filter_operator`, `int_parsing`. */
  code: string;
}

/** A typed, validated filter clause. `values` are already coerced to the field's type. */
export interface FilterClause {
  field: string;
  operator: string;
  type: ValueType;
  /** none: []; single: [v]; field: [fieldName]; list: [v1, ...]; pair: [lo, hi]. */
  values: Array<string | number | boolean>;
}

export interface SortKey {
  field: string;
  descending: boolean;
  /** The field's declared value type when it is also filterable (datetimes then sort by instant). */
  type?: ValueType;
}

export interface ListQuery {
  page: { number: number; size: number };
  sort: SortKey[];
  filters: FilterClause[];
}

/**
 * The filter object of the client API, e.g.
 * `{ status: 10, priority: { in: [1, 2] }, incident: { notNull: true }, createdAt: { between: ['2026-01-01', new Date()] } }`.
 */
export type FilterInput = Record<string, unknown>;
