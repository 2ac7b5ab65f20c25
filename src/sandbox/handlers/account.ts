// Contracts, API keys, webhook subscriptions, the event log and the sandbox triggers.
import { randomBytes } from 'node:crypto';
import { controlledContracts, requireCase, requireContract } from '../access.ts';
import { hashSecret, newSecret } from '../auth.ts';
import { after, iso } from '../context.ts';
import type { Ctx, Handler, Reply } from '../context.ts';
import { patternMatches, queueDeliveries, recordEvent } from '../events.ts';
import type { EventType } from '../events.ts';
import { ApiError, badRequest, forbidden, notFound } from '../http/envelope.ts';
import type { Problem } from '../http/envelope.ts';
import type { Stored } from '../store/types.ts';
import { checkContractFilters, listReply, readListQuery, throwIfProblems } from './common.ts';

const MASK = '********';

/** A subscription as answered: secrets of `authorization` masked (D-16). */
export function presentWebhook(record: Record<string, any>): Record<string, any> {
  const mask = (scheme: any) => {
    if (!scheme || typeof scheme !== 'object') return scheme;
    if (scheme.type === 'basic') return { ...scheme, password: MASK };
    if (scheme.type === 'bearer') return { ...scheme, token: MASK };
    if (scheme.type === 'header') return { ...scheme, value: MASK };
    return scheme;
  };
  const authorization = Array.isArray(record.authorization) ? record.authorization.map(mask) : mask(record.authorization ?? null);
  return { ...record, authorization };
}

function ownApiKey(ctx: Ctx): Stored {
  const stored = ctx.svc.store.get('apikeys', ctx.env, ctx.params.keyId);
  if (!stored || stored.internal.account !== ctx.account.id) throw notFound(`path.keyId: API key ${ctx.params.keyId} not found`);
  return stored;
}

function ownWebhook(ctx: Ctx): Stored {
  const stored = ctx.svc.store.get('webhooks', ctx.env, ctx.params.webhookId);
  if (!stored || stored.internal.account !== ctx.account.id) throw notFound(`path.webhookId: webhook ${ctx.params.webhookId} not found`);
  return stored;
}

function checkFuture(ctx: Ctx, value: unknown, where: string): Problem | null {
  if (typeof value === 'string' && Date.parse(value) <= ctx.svc.now()) return { detail: `${where}: Input should be in the future`, code: 'datetime_future' };
  return null;
}

/** URL scheme (D-32), exact contract ids controlled (403), event-type patterns that match something (400). */
function checkWebhookBody(ctx: Ctx, body: Record<string, any>): void {
  const problems: Array<Problem | null> = [];
  if (typeof body.url === 'string') {
    let protocol = '';
    try {
      protocol = new URL(body.url).protocol;
    } catch {
      problems.push({ detail: 'body.url: Input should be a valid URL', code: 'url_parsing' });
    }
    const allowed = ctx.env === 'production' ? ['https:'] : ['https:', 'http:'];
    if (protocol && !allowed.includes(protocol)) {
      problems.push({ detail: `body.url: URL scheme should be ${allowed.map((p) => `'${p.slice(0, -1)}'`).join(' or ')}`, code: 'url_scheme' });
    }
  }
  if (Array.isArray(body.eventTypes)) {
    const types: string[] = ctx.svc.spec.resolve('#/components/schemas/EventType').enum;
    body.eventTypes.forEach((pattern: string, i: number) => {
      if (!types.some((t) => patternMatches(pattern, t))) problems.push({ detail: `body.eventTypes.${i}: '${pattern}' matches no event type`, code: 'value_error' });
    });
  }
  throwIfProblems(problems);
  if (Array.isArray(body.contracts)) {
    const controlled = new Set(controlledContracts(ctx.svc.store, ctx.env, ctx.account));
    body.contracts.forEach((pattern: string, i: number) => {
      if (!pattern.includes('*') && !controlled.has(pattern)) throw forbidden(`body.contracts.${i}: contract ${pattern} is not accessible to this account`);
    });
  }
}

function eventScope(ctx: Ctx) {
  return { by: 'contract' as const, values: controlledContracts(ctx.svc.store, ctx.env, ctx.account) };
}

/** A sandbox trigger (D-20): record the event and deliver it to the calling account's own subscriptions. */
function trigger(type: EventType): Handler {
  return async (ctx) => {
    const body = await ctx.body();
    const { store } = ctx.svc;
    const caseStored = requireCase(store, ctx.env, ctx.account, body.caseId, 'body.caseId');
    const contract: string | null = caseStored.record.contract;
    if (!contract || !controlledContracts(store, ctx.env, ctx.account).includes(contract)) {
      throw forbidden(`body.caseId: case ${body.caseId} has no contract this account controls`);
    }
    let data: Record<string, any> = caseStored.record;
    let updated: string[] | undefined;
    if (type === 'case.updated') {
      const fields = Object.keys(caseStored.record);
      throwIfProblems(
        (body.updated as string[]).map((name, i) => (fields.includes(name) ? null : { detail: `body.updated.${i}: '${name}' is not a field of a case`, code: 'value_error' })),
      );
      updated = [...new Set(body.updated as string[])];
    }
    for (const [key, resource, label] of [
      ['attachmentId', 'attachments', 'attachment'],
      ['commentId', 'comments', 'comment'],
    ] as const) {
      if (body[key] === undefined) continue;
      const child = store.get(resource, ctx.env, body[key]);
      if (!child || child.record.case !== caseStored.record.id) throw notFound(`body.${key}: ${label} ${body[key]} not found on case ${caseStored.record.id}`);
      data = child.record;
    }
    const event = store.transaction(() => {
      const recorded = recordEvent(ctx.svc, ctx.env, { type, caseId: caseStored.record.id, contract, data, updated, triggered: true }, ctx.account.id);
      queueDeliveries(ctx.svc, ctx.env, recorded, [ctx.account.id]);
      return recorded;
    });
    ctx.svc.dispatcher.wake();
    return { status: 202, data: event };
  };
}

export const accountHandlers: Record<string, Handler> = {
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

  listApiKeys(ctx) {
    return listReply(ctx, 'apikeys', { by: 'account', values: [ctx.account.id] }, readListQuery(ctx));
  },
  async createApiKey(ctx) {
    const body = await ctx.body();
    throwIfProblems([checkFuture(ctx, body.expiresAt, 'body.expiresAt')]);
    const secret = newSecret();
    const record = {
      id: ctx.svc.store.nextId('AK', 1),
      label: body.label,
      prefix: secret.slice(0, 12),
      createdAt: iso(ctx.svc.now()),
      expiresAt: body.expiresAt ?? null,
      revokedAt: null,
    };
    ctx.svc.store.insert('apikeys', ctx.env, record, { account: ctx.account.id, secretHash: hashSecret(secret) });
    return { status: 201, data: { ...record, secret }, headers: { Location: `/apikeys/${record.id}` } };
  },
  getApiKey(ctx) {
    return { status: 200, data: ownApiKey(ctx).record };
  },
  async updateApiKey(ctx) {
    const stored = ownApiKey(ctx);
    const body = await ctx.body();
    if (stored.record.revokedAt) throw badRequest(`path.keyId: API key ${stored.record.id} is revoked and cannot be changed`, 'key_revoked');
    throwIfProblems([checkFuture(ctx, body.expiresAt, 'body.expiresAt')]);
    ctx.svc.store.update('apikeys', ctx.env, stored.record.id, body);
    return { status: 200, data: { ...stored.record, ...body } };
  },
  revokeApiKey(ctx) {
    const stored = ownApiKey(ctx);
    if (stored.record.revokedAt) return { status: 200, data: stored.record };
    const revokedAt = after(stored.record.createdAt, ctx.svc.now());
    ctx.svc.store.update('apikeys', ctx.env, stored.record.id, { revokedAt });
    return { status: 200, data: { ...stored.record, revokedAt } };
  },

  listWebhooks(ctx) {
    return listReply(ctx, 'webhooks', { by: 'account', values: [ctx.account.id] }, readListQuery(ctx), presentWebhook);
  },
  async createWebhook(ctx) {
    const body = await ctx.body();
    checkWebhookBody(ctx, body);
    const now = iso(ctx.svc.now());
    const record = {
      id: ctx.svc.store.nextId('WH', 1),
      url: body.url,
      contracts: body.contracts ?? ['*'],
      eventTypes: body.eventTypes ?? ['*'],
      authorization: body.authorization ?? null,
      enabled: body.enabled ?? true,
      createdAt: now,
      updatedAt: now,
    };
    const signingSecret = 'whsec_' + randomBytes(24).toString('base64');
    ctx.svc.store.insert('webhooks', ctx.env, record, { account: ctx.account.id, signingSecret });
    return { status: 201, data: { ...presentWebhook(record), signingSecret }, headers: { Location: `/webhooks/${record.id}` } };
  },
  getWebhook(ctx) {
    return { status: 200, data: presentWebhook(ownWebhook(ctx).record) };
  },
  async updateWebhook(ctx) {
    const stored = ownWebhook(ctx);
    const body = await ctx.body();
    checkWebhookBody(ctx, body);
    const changes = { ...body, updatedAt: after(stored.record.updatedAt, ctx.svc.now()) };
    ctx.svc.store.update('webhooks', ctx.env, stored.record.id, changes);
    return { status: 200, data: presentWebhook({ ...stored.record, ...changes }) };
  },
  deleteWebhook(ctx): Reply {
    const stored = ownWebhook(ctx);
    ctx.svc.store.remove('webhooks', ctx.env, stored.record.id);
    return { status: 204 };
  },

  listEvents(ctx) {
    const query = readListQuery(ctx);
    checkContractFilters(ctx, query);
    return listReply(ctx, 'events', eventScope(ctx), query);
  },
  getEvent(ctx) {
    const stored = ctx.svc.store.get('events', ctx.env, ctx.params.eventId);
    if (!stored) throw notFound(`path.eventId: event ${ctx.params.eventId} not found`);
    if (!eventScope(ctx).values.includes(stored.record.contract)) {
      throw forbidden(`path.eventId: event ${ctx.params.eventId} belongs to a contract that is not accessible to this account`);
    }
    return { status: 200, data: stored.record };
  },

  triggerCaseContractAssigned: trigger('case.contract.assigned'),
  triggerCaseContractUnassigned: trigger('case.contract.unassigned'),
  triggerCaseUpdated: trigger('case.updated'),
  triggerCaseAttachmentCreated: trigger('case.attachment.created'),
  triggerCaseCommentCreated: trigger('case.comment.created'),
};

export { ApiError };
