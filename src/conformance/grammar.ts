// The suite's use of the shared grammar (src/grammar): read back its own query strings into typed clauses and
// sort keys, so returned items are judged by the same semantics the description's decisions define.
import { parseListQuery } from '../grammar/index.ts';
import type { FilterClause, SortKey } from '../grammar/types.ts';
import type { Context } from './context.ts';

function parsed(ctx: Context, operationId: string, query: string) {
  const list = ctx.spec.operation(operationId).list;
  if (!list) throw new Error(`${operationId} is not a list operation`);
  const result = parseListQuery(query, list, ctx.spec.operators);
  if (result.errors.length) {
    throw new Error(`the suite built a query its grammar refuses (${query}): ${result.errors.map((e) => `${e.location}: ${e.problem}`).join('; ')}`);
  }
  return result.query;
}

export function clausesOf(ctx: Context, operationId: string, query: string): FilterClause[] {
  return parsed(ctx, operationId, query).filters;
}

export function sortKeysOf(ctx: Context, operationId: string, query: string): SortKey[] {
  return parsed(ctx, operationId, query).sort;
}
