// Contracts (seed section 4; D-11): the account's own, 403 for any other or unknown one. `externalReference` is each
// account's own (D-75): a customer and its partner sharing a contract do not see or overwrite each other's.
import { requireContract } from '../access.ts';
import { after } from '../context.ts';
import type { Ctx, Handler } from '../context.ts';
import type { Stored } from '../store/types.ts';
import { listReply, readListQuery } from './common.ts';

/** The contract as the calling account sees it: its own reference; `updatedAt` moves with its own change too. */
function asSeen(ctx: Ctx, stored: Stored): Record<string, any> {
  const own = ctx.svc.store.contractReference(ctx.env, stored.record.id, ctx.account.id);
  const updatedAt = own && own.updatedAt > stored.record.updatedAt ? own.updatedAt : stored.record.updatedAt;
  return { ...stored.record, externalReference: own?.reference ?? null, updatedAt };
}

export const contractHandlers: Record<string, Handler> = {
  listContracts(ctx) {
    const by = ctx.account.kind === 'partner' ? 'partnerOrg' : 'customerOrg';
    return listReply(ctx, 'contracts', { by, values: [ctx.account.id], viewer: ctx.account.id }, readListQuery(ctx));
  },
  getContract(ctx) {
    return { status: 200, data: asSeen(ctx, requireContract(ctx.svc.store, ctx.env, ctx.account, ctx.params.contractId, 'path.contractId')) };
  },
  async updateContract(ctx) {
    const own = () => requireContract(ctx.svc.store, ctx.env, ctx.account, ctx.params.contractId, 'path.contractId');
    own();
    const body = await ctx.body();
    // Decided on the contract as stored once the body has arrived (D-88), and answered as stored.
    return ctx.svc.store.transaction(() => {
      const stored = own();
      const updatedAt = after(asSeen(ctx, stored).updatedAt, ctx.svc.now());
      ctx.svc.store.setContractReference(ctx.env, stored.record.id, ctx.account.id, body.externalReference ?? null, updatedAt);
      return { status: 200, data: asSeen(ctx, own()) };
    });
  },
};
