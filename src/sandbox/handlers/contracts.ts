// Contracts (seed section 4; D-11): the account's own, 403 for any other or unknown one.
import { requireContract } from '../access.ts';
import { after } from '../context.ts';
import type { Handler } from '../context.ts';
import { listReply, readListQuery } from './common.ts';

export const contractHandlers: Record<string, Handler> = {
  listContracts(ctx) {
    const by = ctx.account.kind === 'partner' ? 'partnerOrg' : 'customerOrg';
    return listReply(ctx, 'contracts', { by, values: [ctx.account.id] }, readListQuery(ctx));
  },
  getContract(ctx) {
    return { status: 200, data: requireContract(ctx.svc.store, ctx.env, ctx.account, ctx.params.contractId, 'path.contractId').record };
  },
  async updateContract(ctx) {
    const stored = requireContract(ctx.svc.store, ctx.env, ctx.account, ctx.params.contractId, 'path.contractId');
    const body = await ctx.body();
    const changes = { externalReference: body.externalReference ?? null, updatedAt: after(stored.record.updatedAt, ctx.svc.now()) };
    ctx.svc.store.update('contracts', ctx.env, stored.record.id, changes);
    return { status: 200, data: { ...stored.record, ...changes } };
  },
};
