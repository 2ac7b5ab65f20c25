// The exact totalCount of a cases list without counting the rows where it can be avoided (decision D-49):
// - `exists` is true on every row (D-05) and `notExists` on none: they are dropped / answer 0;
// - filters on status/priority only: the sum of the maintained per-group counts (case_counts, kept by triggers in
//   the same transaction as every write);
// - one negative filter whose positive reads an index range (`ne`, `notIn`, `notBetween`, `notNull`, `notEmpty`):
//   the scope's total from case_counts minus the count of the positive over that index range. The SQL of a negative
//   clause is `NOT COALESCE(positive, 0)`, so the two counts partition the scope exactly (null rows included).
// - one `empty` filter on an indexed text column: its null range plus its '' range;
// Anything else: undefined, and the caller counts the rows.
import { semanticsOf } from '../../grammar/operators.ts';
import type { SemanticsKind } from '../../grammar/operators.ts';
import type { FilterClause } from '../../grammar/types.ts';
import type { OperatorSpec } from '../../spec/types.ts';
import type { Column } from './columns.ts';
import { whereSql } from './list-sql.ts';

const AGGREGATE_FIELDS = new Set(['status', 'priority']);
/** Operators (and their negations) a GROUP BY count answers: comparisons of the value (grammar/operators.ts kinds). */
const AGGREGATE_KINDS = new Set<SemanticsKind>(['equal', 'member', 'order', 'range']);
/** Negative operators whose positive is an index range on the field's column (of arrays only notNull). */
const RANGE_COMPLEMENT_KINDS = new Set<SemanticsKind>(['equal', 'member', 'range', 'null', 'empty']);

export interface CaseCountContext {
  /** `env = ? AND <scope>`, and its parameters. */
  scopeWhere: string;
  scopeParams: unknown[];
  columnOf(field: string): Column;
  operators: Record<string, OperatorSpec>;
  /** The covering index of a column (`(env, column, seq, customer_org, contract)`), if there is one. */
  indexOf(column: string): string | undefined;
  get(sql: string, params: unknown[]): number;
}

/** The exact count, or undefined when only counting the rows can tell. Scope must be by customerOrg or contract. */
export function planCaseCount(filters: FilterClause[], ctx: CaseCountContext): number | undefined {
  const of = (f: FilterClause) => semanticsOf(f.operator, ctx.operators);
  const aggregate = (f: FilterClause) => AGGREGATE_FIELDS.has(f.field) && AGGREGATE_KINDS.has(of(f).semantics.kind);
  const presence = (f: FilterClause) => of(f).semantics.kind === 'presence';
  if (filters.some((f) => presence(f) && of(f).negated)) return 0;
  const rest = filters.filter((f) => !presence(f));
  const fromGroups = (clauses: FilterClause[]) => {
    const w = whereSql(clauses, ctx.columnOf, ctx.operators);
    return ctx.get(`SELECT coalesce(sum(n), 0) FROM case_counts WHERE ${ctx.scopeWhere}${w.sql ? ` AND ${w.sql}` : ''}`, [...ctx.scopeParams, ...w.params]);
  };
  if (rest.every(aggregate)) return fromGroups(rest);
  // arrays: only null and notNull are ranges of their JSON text's index
  const array = rest.length === 1 && rest[0].type === 'stringArray';
  const indexed = rest.length === 1 && !array ? ctx.indexOf(ctx.columnOf(rest[0].field).column) : undefined;
  /** The count of one positive clause over its column's index. */
  const rangeCount = (clause: FilterClause, index: string | undefined) => {
    if (index && of(clause).semantics.kind === 'empty') {
      // `IS NULL OR = ''`: two disjoint ranges of the column's index, counted one by one (one forced index would
      // otherwise be scanned whole)
      const col = `"${ctx.columnOf(clause.field).column}"`;
      const range = (test: string) => ctx.get(`SELECT count(*) FROM cases INDEXED BY ${index} WHERE ${ctx.scopeWhere} AND ${test}`, ctx.scopeParams);
      return range(`${col} IS NULL`) + range(`${col} = ''`);
    }
    const w = whereSql([clause], ctx.columnOf, ctx.operators);
    return ctx.get(`SELECT count(*) FROM cases${index ? ` INDEXED BY ${index}` : ''} WHERE ${ctx.scopeWhere} AND ${w.sql}`, [...ctx.scopeParams, ...w.params]);
  };
  const only = rest.length === 1 ? of(rest[0]) : undefined;
  if (indexed && only && !only.negated && only.semantics.kind === 'empty') return rangeCount(rest[0], indexed);
  if (only?.negated && RANGE_COMPLEMENT_KINDS.has(only.semantics.kind) && (!array || only.semantics.kind === 'null')) {
    const clause: FilterClause = { ...rest[0], operator: only.positive };
    return fromGroups([]) - rangeCount(clause, ctx.indexOf(ctx.columnOf(clause.field).column));
  }
  return undefined;
}
