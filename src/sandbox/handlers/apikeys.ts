// API keys (seed section 4; D-12): company-scoped, secret shown once and stored hashed, revoking is a soft delete.
import { hashSecret, newSecret } from '../auth.ts';
import { after, iso } from '../context.ts';
import type { Ctx, Handler } from '../context.ts';
import { badRequest, notFound } from '../http/envelope.ts';
import type { Problem } from '../http/envelope.ts';
import type { Stored } from '../store/types.ts';
import { created, listReply, readListQuery, throwIfProblems } from './common.ts';

function ownApiKey(ctx: Ctx): Stored {
  const stored = ctx.svc.store.get('apikeys', ctx.env, ctx.params.keyId);
  if (!stored || stored.internal.account !== ctx.account.id) throw notFound(`path.keyId: API key ${ctx.params.keyId} not found`);
  return stored;
}

function checkFuture(ctx: Ctx, value: unknown, where: string): Problem | null {
  if (typeof value === 'string' && Date.parse(value) <= ctx.svc.now()) return { detail: `${where}: Input should be in the future`, code: 'datetime_future' };
  return null;
}

export const apiKeyHandlers: Record<string, Handler> = {
  listApiKeys(ctx) {
    return listReply(ctx, 'apikeys', { by: 'account', values: [ctx.account.id] }, readListQuery(ctx));
  },
  async createApiKey(ctx) {
    const body = await ctx.body();
    throwIfProblems([checkFuture(ctx, body.expiresAt, 'body.expiresAt')]);
    const secret = newSecret();
    const record = {
      id: ctx.svc.store.nextId('AK', 1, ctx.env),
      label: body.label,
      prefix: secret.slice(0, 12),
      createdAt: iso(ctx.svc.now()),
      expiresAt: body.expiresAt ?? null,
      revokedAt: null,
    };
    ctx.svc.store.insert('apikeys', ctx.env, record, { account: ctx.account.id, secretHash: hashSecret(secret) });
    return created(ctx, { ...record, secret }, 'apikeys', record.id);
  },
  getApiKey(ctx) {
    return { status: 200, data: ownApiKey(ctx).record };
  },
  async updateApiKey(ctx) {
    ownApiKey(ctx);
    const body = await ctx.body();
    // Decided on the key as stored once the body has arrived (D-86): one revoked meanwhile stays unchanged (D-12).
    return ctx.svc.store.transaction(() => {
      const stored = ownApiKey(ctx);
      if (stored.record.revokedAt) throw badRequest(`path.keyId: API key ${stored.record.id} is revoked and cannot be changed`, 'key_revoked');
      throwIfProblems([checkFuture(ctx, body.expiresAt, 'body.expiresAt')]);
      ctx.svc.store.update('apikeys', ctx.env, stored.record.id, body);
      return { status: 200, data: ownApiKey(ctx).record };
    });
  },
  revokeApiKey(ctx) {
    const stored = ownApiKey(ctx);
    if (stored.record.revokedAt) return { status: 200, data: stored.record };
    const revokedAt = after(stored.record.createdAt, ctx.svc.now());
    ctx.svc.store.update('apikeys', ctx.env, stored.record.id, { revokedAt });
    return { status: 200, data: { ...stored.record, revokedAt } };
  },
};
