// Shared by the list areas: which list operations to exercise, with the path parameters they need.
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
