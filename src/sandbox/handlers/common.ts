// Helpers shared by the handlers: reading a list query, answering a page, 400 for a set of problems.
import { parseListQuery } from '../../grammar/parse.ts';
import type { ListQuery } from '../../grammar/types.ts';
import { controlledContracts } from '../access.ts';
import type { Ctx, Reply } from '../context.ts';
import { ApiError, forbidden } from '../http/envelope.ts';
import { basePaths } from '../../spec/routes.ts';
import type { Problem } from '../http/envelope.ts';
import type { Resource, Scope } from '../store/types.ts';

/** The page, sort and filters of a list request (grammar of seed section 1), or 400 with one error per problem. */
export function readListQuery(ctx: Ctx): ListQuery {
  const list = ctx.op.list;
  if (!list) throw new Error(`${ctx.op.operationId} is not a list operation`);
  const parsed = parseListQuery(ctx.query, list, ctx.svc.spec.operators);
  if (parsed.errors.length > 0) {
    throw new ApiError(400, parsed.errors.map((e) => ({ detail: `${e.location}: ${e.problem}`, code: e.code })));
  }
  return parsed.query;
}

/** D-30: `filter[contract]`, `[eq]` or `[in]` naming a contract the account does not control is 403. */
export function checkContractFilters(ctx: Ctx, query: ListQuery): void {
  const named = query.filters.filter((f) => f.field === 'contract' && (f.operator === 'eq' || f.operator === 'in'));
  if (named.length === 0) return;
  const controlled = new Set(controlledContracts(ctx.svc.store, ctx.env, ctx.account));
  for (const clause of named) {
    for (const value of clause.values) {
      if (!controlled.has(String(value))) {
        throw forbidden(`query.filter.contract.${clause.operator}: contract ${String(value)} is not accessible to this account`);
      }
    }
  }
}

export function listReply(ctx: Ctx, resource: Resource, scope: Scope, query: ListQuery, present?: (item: Record<string, any>) => unknown): Reply {
  const result = ctx.svc.store.list(resource, ctx.env, scope, query);
  const page = { number: query.page.number, size: query.page.size, count: result.count, totalCount: result.totalCount };
  if (!present) return { status: 200, records: result, page };
  const data = result.items.map(present);
  return { status: 200, data, page: { ...page, count: data.length } };
}

export function throwIfProblems(problems: Array<Problem | null>): void {
  const real = problems.filter((p): p is Problem => p !== null);
  if (real.length > 0) throw new ApiError(400, real);
}

/** Deep equality of JSON values, to tell which fields an update changed. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * 201 with `Location` as an absolute path that includes the environment's base path (D-74): resolved against the
 * request URL (RFC 9110 section 10.2.2) it names the new resource, in the same environment.
 */
export function created(ctx: Ctx, data: Record<string, any>, ...segments: string[]): Reply {
  const path = segments.map((s) => '/' + encodeURIComponent(s)).join('');
  return { status: 201, data, headers: { Location: basePaths(ctx.svc.spec.document)[ctx.env] + path } };
}
