// Shared by the list areas: which list operations to exercise, with the path parameters they need.
import { expect, expectErrors, type Check } from '../check.ts';
import type { Context } from '../context.ts';

export function listOperations(ctx: Context): string[] {
  return ctx.operations().filter((op) => op.list && op.method === 'get').map((op) => op.operationId);
}

/** Make sure the fixture data exists before a list is judged (so lists are not trivially empty). */
export async function withData(ctx: Context, operationId: string): Promise<Record<string, string>> {
  if (ctx.canWrite) {
    await ctx.fixtures.cases();
    if (operationId === 'listCaseComments') await ctx.fixtures.commentId();
    if (operationId === 'listCaseAttachments') await ctx.fixtures.attachment();
    if (operationId === 'listWebhooks') await ctx.fixtures.webhookId();
    if (operationId === 'listApiKeys') await ctx.fixtures.keyId();
    if (operationId === 'listEvents' && ctx.environment === 'sandbox') await ctx.fixtures.eventId();
  }
  return ctx.fixtures.pathParams(operationId);
}

/**
 * A check run once per list operation, on a target that keeps state, with the fixture data in place first:
 * `run` gets the operation id and its path parameters.
 */
export function perListOperation(check: Omit<Check, 'needs' | 'cases' | 'run'> & {
  run(ctx: Context, operationId: string, params: Record<string, string>): Promise<string | void>;
}): Check {
  return {
    ...check,
    needs: ['state'],
    cases: listOperations,
    async run(ctx, operationId) {
      return check.run(ctx, operationId!, await withData(ctx, operationId!));
    },
  };
}

/** Each query on its own is refused: 400 with exactly one error object, whose detail starts with `location`. */
export async function expectEachRefused(ctx: Context, operationId: string, params: Record<string, string>, queries: string[], location: string): Promise<void> {
  for (const q of queries) {
    const x = await ctx.call(ctx.customer, operationId, params, { query: q });
    const [e] = expectErrors(x, 400, `${operationId}?${q}`, 1);
    expect(e.detail.startsWith(location), `${operationId}?${q}: the error detail should start with ${location}, got "${e.detail}"`, x);
  }
}
