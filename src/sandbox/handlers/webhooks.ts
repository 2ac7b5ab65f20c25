// Webhook subscriptions (seed section 6; D-16, D-32): patterns, authorization masked in answers, signing secret once.
import { randomBytes } from 'node:crypto';
import { controlledContracts } from '../access.ts';
import { after, iso } from '../context.ts';
import type { Ctx, Handler, Reply } from '../context.ts';
import { forbidden, notFound } from '../http/envelope.ts';
import type { Problem } from '../http/envelope.ts';
import type { Stored } from '../store/types.ts';
import { webhookInputProblems } from '../webhook-input.ts';
import { created, listReply, readListQuery, throwIfProblems } from './common.ts';

const MASK = '********';
/** The member of each scheme that holds its secret (masked in answers, D-16). */
const SECRET_MEMBER: Record<string, string> = { basic: 'password', bearer: 'token', header: 'value' };

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

/**
 * D-107: a secret sent back as the mask answers show keeps the stored secret of the same scheme: the same type (and
 * for `header` the same name, in any case) at the same place, else the only stored scheme of that type and name. A
 * mask with no stored secret to keep (a create, a new scheme) is 400: the mask is never stored as a secret.
 */
function keepMaskedSecrets(sent: unknown, stored: unknown): { authorization: unknown; problems: Problem[] } {
  if (sent == null || typeof sent !== 'object') return { authorization: sent, problems: [] };
  const list = Array.isArray(sent);
  const schemes = (list ? sent : [sent]) as Array<Record<string, any>>;
  const before = (Array.isArray(stored) ? stored : stored ? [stored] : []) as Array<Record<string, any>>;
  const same = (a: Record<string, any> | undefined, b: Record<string, any>) =>
    a?.type === b.type && (b.type !== 'header' || String(a?.name).toLowerCase() === String(b.name).toLowerCase());
  const problems: Problem[] = [];
  const kept = schemes.map((scheme, i) => {
    const member = SECRET_MEMBER[scheme?.type];
    if (!member || scheme[member] !== MASK) return scheme;
    const candidates = before.filter((b) => same(b, scheme));
    const match = same(before[i], scheme) ? before[i] : candidates.length === 1 ? candidates[0] : undefined;
    const at = list ? `body.authorization.${i}.${member}` : `body.authorization.${member}`;
    if (!match) {
      problems.push({ detail: `${at}: '${MASK}' stands for a stored secret, and this subscription stores none for this ${scheme.type} scheme; send the secret itself`, code: 'value_error' });
      return scheme;
    }
    return { ...scheme, [member]: match[member] };
  });
  return { authorization: list ? kept : kept[0], problems };
}

function ownWebhook(ctx: Ctx): Stored {
  const stored = ctx.svc.store.get('webhooks', ctx.env, ctx.params.webhookId);
  if (!stored || stored.internal.account !== ctx.account.id) throw notFound(`path.webhookId: webhook ${ctx.params.webhookId} not found`);
  return stored;
}

/** Header names the service sets on every delivery, from the description (`x-care-reserved-names`, D-76). */
function reservedHeaderNames(ctx: Ctx): Set<string> {
  const name = ctx.svc.spec.resolve('#/components/schemas/WebhookAuthHeader').properties.name;
  return new Set((name['x-care-reserved-names'] as string[]).map((n) => n.toLowerCase()));
}

/** D-76: no reserved header name, and each header set by one scheme only (case-insensitive). */
function authorizationProblems(ctx: Ctx, authorization: unknown): Problem[] {
  if (authorization == null) return [];
  const list = Array.isArray(authorization);
  const schemes = (list ? authorization : [authorization]) as Array<Record<string, any>>;
  const reserved = reservedHeaderNames(ctx);
  const setBy = new Map<string, number>();
  const problems: Problem[] = [];
  schemes.forEach((scheme, i) => {
    const at = list ? `body.authorization.${i}` : 'body.authorization';
    const header = scheme.type === 'header' ? String(scheme.name) : 'Authorization';
    const key = header.toLowerCase();
    if (scheme.type === 'header' && reserved.has(key)) {
      problems.push({ detail: `${at}.name: '${header}' is set by the service on every delivery and cannot be configured`, code: 'value_error' });
      return;
    }
    const first = setBy.get(key);
    if (first !== undefined) {
      problems.push({ detail: `${at}: header '${header}' is already set by body.authorization.${first}`, code: 'value_error' });
      return;
    }
    setBy.set(key, i);
  });
  return problems;
}

/** URL scheme (D-32), authorization headers (D-76), exact event types known (400) and contract ids controlled (403). */
function checkWebhookBody(ctx: Ctx, body: Record<string, any>): void {
  const problems: Array<Problem | null> = [...authorizationProblems(ctx, body.authorization), ...webhookInputProblems(body)];
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
    // D-80: an exact name must be an event type; a pattern is a standing rule, accepted even if it matches none today.
    const types: string[] = ctx.svc.spec.resolve('#/components/schemas/EventType').enum;
    body.eventTypes.forEach((name: string, i: number) => {
      if (!name.includes('*') && !types.includes(name)) problems.push({ detail: `body.eventTypes.${i}: '${name}' is not an event type`, code: 'value_error' });
    });
  }
  throwIfProblems(problems);
  if (Array.isArray(body.contracts)) {
    // the same rule for contracts: an exact id must be controlled (403, seed section 5), a pattern may match none yet
    const controlled = new Set(controlledContracts(ctx.svc.store, ctx.env, ctx.account));
    body.contracts.forEach((id: string, i: number) => {
      if (!id.includes('*') && !controlled.has(id)) throw forbidden(`body.contracts.${i}: contract ${id} is not accessible to this account`);
    });
  }
}

export const webhookHandlers: Record<string, Handler> = {
  listWebhooks(ctx) {
    return listReply(ctx, 'webhooks', { by: 'account', values: [ctx.account.id] }, readListQuery(ctx), presentWebhook);
  },
  async createWebhook(ctx) {
    const body = await ctx.body();
    checkWebhookBody(ctx, body);
    throwIfProblems(keepMaskedSecrets(body.authorization, null).problems);
    const now = iso(ctx.svc.now());
    const record = {
      id: ctx.svc.store.nextId('WH', 1, ctx.env),
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
    return created(ctx, { ...presentWebhook(record), signingSecret }, 'webhooks', record.id);
  },
  getWebhook(ctx) {
    return { status: 200, data: presentWebhook(ownWebhook(ctx).record) };
  },
  async updateWebhook(ctx) {
    ownWebhook(ctx);
    const body = await ctx.body();
    // Decided on the subscription as stored once the body has arrived (D-86): one deleted meanwhile is a 404.
    return ctx.svc.store.transaction(() => {
      const stored = ownWebhook(ctx);
      checkWebhookBody(ctx, body);
      const changes: Record<string, unknown> = { ...body, updatedAt: after(stored.record.updatedAt, ctx.svc.now()) };
      if ('authorization' in body) {
        const { authorization, problems } = keepMaskedSecrets(body.authorization, stored.record.authorization);
        throwIfProblems(problems);
        changes.authorization = authorization;
      }
      ctx.svc.store.update('webhooks', ctx.env, stored.record.id, changes);
      return { status: 200, data: presentWebhook(ownWebhook(ctx).record) };
    });
  },
  deleteWebhook(ctx): Reply {
    const stored = ownWebhook(ctx);
    ctx.svc.store.remove('webhooks', ctx.env, stored.record.id);
    return { status: 204 };
  },
};
