// Area "webhooks": in sandbox, subscriptions with each kind of authorization and with contract and event-type
// patterns; each trigger makes a delivery to the suite's receiver that carries the authorization, a valid
// Standard Webhooks signature and a payload valid for its event type; non-matching subscriptions receive nothing;
// the event log holds each event; the account's own API actions fire nothing.
import { Webhook } from 'standardwebhooks';
import { send } from '../http.ts';
import { validatorFor } from '../../spec/index.ts';
import { expect, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { MARK } from '../context.ts';
import type { Delivery } from '../receiver.ts';

interface Sub {
  id: string;
  path: string;
  secret: string;
  authorization: any;
}

const AUTH: Record<string, any> = {
  basic: { type: 'basic', username: 'conformance', password: 'basic-pw-' },
  bearer: { type: 'bearer', token: 'bearer-token-' },
  header: { type: 'header', name: 'X-Conformance-Key', value: 'header-value-' },
  list: [{ type: 'basic', username: 'conformance-list', password: 'list-pw-' }, { type: 'header', name: 'X-Conformance-List', value: 'list-value-' }],
};

/** The event types, from the description's webhooks. */
const eventTypes = (ctx: Context) => Object.keys(ctx.spec.document.webhooks ?? {});

function triggerOf(ctx: Context, type: string) {
  // The description ties a trigger to its event type by the last path segment (`…/case.updated`).
  const op = ctx.operations().find((o) => o.method === 'post' && o.path.endsWith(`/${type}`));
  if (!op) throw new Error(`no trigger operation for ${type} in the description`);
  return op;
}

/** A trigger body from the trigger's required members, filled with fixture data (D-20). */
export async function fire(ctx: Context, type: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const op = triggerOf(ctx, type);
  const schema = op.requestBody?.schema as any;
  const required: string[] = (schema?.$ref ? ctx.spec.resolve(schema.$ref) : schema)?.required ?? [];
  const body: Record<string, unknown> = {};
  for (const name of required) {
    if (name === 'caseId') body.caseId = await ctx.fixtures.caseId();
    else if (name === 'attachmentId') body.attachmentId = (await ctx.fixtures.attachment()).id;
    else if (name === 'commentId') body.commentId = await ctx.fixtures.commentId();
    else if (name === 'updated') body.updated = ['priority', 'status'];
    else throw new Error(`the suite does not know how to fill ${name} of ${op.operationId}`);
  }
  const x = await ctx.call(ctx.customer, op.operationId, {}, { json: { ...body, ...overrides } });
  expectStatus(x, 202, op.operationId);
  expect(typeof x.json?.data?.id === 'string', `${op.operationId} should answer the recorded event`, x);
  return x.json.data.id;
}

export const eventIdOf = (d: Delivery) => d.json?.meta?.eventId ?? d.headers['webhook-id'];

export async function subscribe(ctx: Context, name: string, body: Record<string, unknown>): Promise<Sub> {
  const { url, path } = await ctx.receiver.newUrl(ctx.options.listen, ctx.options.publicUrl);
  const x = await ctx.call(ctx.customer, 'createWebhook', {}, { json: { url, ...body } });
  expectStatus(x, 201, `createWebhook (${name})`);
  const id = x.json.data.id;
  ctx.onCleanup(`delete webhook ${id}`, () => ctx.call(ctx.customer, 'deleteWebhook', { webhookId: id }));
  return { id, path, secret: x.json.data.signingSecret, authorization: body.authorization };
}

function setup(ctx: Context) {
  return ctx.memo('webhook-subscriptions', async () => {
    const contract = await ctx.fixtures.contract();
    await ctx.fixtures.caseId();
    const subs: Record<string, Sub> = {};
    subs.all = await subscribe(ctx, 'all events', {});
    for (const [kind, auth] of Object.entries(AUTH)) {
      const secretised = JSON.parse(JSON.stringify(auth).replace(/-"/g, `${ctx.runTag}"`));
      subs[kind] = await subscribe(ctx, `${kind} authorization`, { eventTypes: ['case.updated'], authorization: secretised });
    }
    subs.contractExact = await subscribe(ctx, 'exact contract', { contracts: [contract], eventTypes: ['case.comment.created'] });
    subs.contractWild = await subscribe(ctx, 'contract pattern', { contracts: [`${contract.slice(0, Math.max(1, contract.length - 2))}*`], eventTypes: ['case.comment.*'] });
    subs.contractNone = await subscribe(ctx, 'non-matching contract pattern', { contracts: [`${contract}-conformance-none*`] });
    subs.typeNone = await subscribe(ctx, 'attachment events only', { eventTypes: ['case.attachment.*'] });
    return subs;
  });
}

async function waitAt(ctx: Context, sub: Sub, eventId: string, what: string): Promise<Delivery> {
  try {
    return await ctx.receiver.waitFor((d) => d.path === sub.path && eventIdOf(d) === eventId, ctx.options.deliveryTimeoutMs, `${what}: event ${eventId}`);
  } catch (err) {
    return ctx.fail((err as Error).message);
  }
}

export function verifySignature(ctx: Context, sub: Sub, d: Delivery, what: string) {
  const h = d.headers;
  try {
    new Webhook(sub.secret).verify(d.body, { 'webhook-id': String(h['webhook-id']), 'webhook-timestamp': String(h['webhook-timestamp']), 'webhook-signature': String(h['webhook-signature']) });
  } catch (err) {
    ctx.fail(`${what}: the webhook-signature does not verify with the subscription's signing secret (${(err as Error).message})`);
  }
  expect(h['webhook-id'] === d.json?.meta?.eventId, `${what}: webhook-id (${h['webhook-id']}) should be meta.eventId (${d.json?.meta?.eventId})`);
  expect(h['x-careapi-env'] === ctx.envHeader, `${what}: the delivery should carry X-CareAPI-Env: ${ctx.envHeader}, got ${h['x-careapi-env']}`);
}

function expectAuthorization(ctx: Context, auth: any, d: Delivery, what: string) {
  const schemes = Array.isArray(auth) ? auth : [auth];
  for (const s of schemes) {
    if (s.type === 'basic') {
      const want = `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;
      expect(d.headers.authorization === want, `${what}: the delivery should carry the basic Authorization of the subscription, got ${d.headers.authorization ? 'another value' : 'none'}`);
    } else if (s.type === 'bearer') {
      expect(d.headers.authorization === `Bearer ${s.token}`, `${what}: the delivery should carry the bearer Authorization of the subscription, got ${d.headers.authorization ? 'another value' : 'none'}`);
    } else {
      expect(d.headers[s.name.toLowerCase()] === s.value, `${what}: the delivery should carry the header ${s.name} of the subscription, got ${d.headers[s.name.toLowerCase()] ? 'another value' : 'none'}`);
    }
  }
}

const NEEDS = ['writes', 'sandbox', 'webhooks'] as const;

export const webhookChecks: Check[] = [
  {
    id: 'webhooks.own-actions',
    area: 'webhooks',
    title: 'The account\'s own API actions fire nothing (in sandbox nothing fires by itself)',
    statements: ['S6.own-actions', 'S1.sandbox-no-auto-events', 'S6.sandbox-triggers', 'D-41.own-account'],
    needs: [...NEEDS],
    async run(ctx) {
      const { all } = await setup(ctx);
      const caseId = await ctx.fixtures.caseId();
      const contact = ctx.config.customer.contacts[0];
      expectStatus(await ctx.call(ctx.customer, 'updateCase', { caseId }, { json: { priority: 4 } }), 200, 'updateCase (own action)');
      if (contact) expectStatus(await ctx.call(ctx.customer, 'createCaseComment', { caseId }, { json: { text: `${MARK} own action`, contact } }), 201, 'createCaseComment (own action)');
      const created = await ctx.call(ctx.customer, 'createCase', {}, { json: { contract: await ctx.fixtures.contract(), shortDescription: `${MARK} own action` } });
      expectStatus(created, 201, 'createCase (own action)');
      // An agent's change fires nothing in sandbox either (rule 4); the agent API exists on the reference sandbox only.
      let agent = '';
      if (ctx.config.agentUrl) {
        const x = await send('PATCH', `${ctx.config.agentUrl.replace(/\/$/, '')}/sandbox/cases/${encodeURIComponent(caseId)}`, { 'content-type': 'application/json' }, JSON.stringify({ priority: 2 }), ctx.counter);
        expectStatus(x, 200, 'an agent updating the case (agent API)');
        agent = ', an agent update';
      }
      // The marker: a trigger made after the actions. If any action had fired, its delivery would come first.
      const marker = await fire(ctx, 'case.updated');
      await waitAt(ctx, all, marker, 'the catch-all subscription');
      const first = ctx.receiver.at(all.path)[0];
      expect(eventIdOf(first) === marker, `the first delivery after own actions${agent} should be the triggered ${marker}, got ${eventIdOf(first)} (${first.json?.meta?.eventType}, triggered: ${first.json?.meta?.triggered})`);
      return `case update, comment and case creation${agent}: nothing fired`;
    },
  },
  {
    id: 'webhooks.authorization',
    area: 'webhooks',
    title: 'Deliveries carry the subscription\'s authorization (basic, bearer, header, list) and a valid signature',
    statements: ['S6.delivery-authorization', 'S6.sandbox-triggers', 'D-17.signing'],
    needs: [...NEEDS],
    cases: () => Object.keys(AUTH),
    async run(ctx, kind) {
      const subs = await setup(ctx);
      const eventId = await ctx.memo('auth-event', () => fire(ctx, 'case.updated'));
      const sub = subs[kind!];
      const d = await waitAt(ctx, sub, eventId, `the ${kind} subscription`);
      expectAuthorization(ctx, sub.authorization, d, `the ${kind} subscription`);
      verifySignature(ctx, sub, d, `the ${kind} subscription`);
    },
  },
  {
    id: 'webhooks.payloads',
    area: 'webhooks',
    title: 'Each trigger delivers a payload valid for its event type, signed, and logged in the event log',
    statements: ['S6.event-payloads', 'S6.sandbox-triggers', 'S6.event-log', 'S4.triggers', 'S4.event-log', 'D-18.event-meta', 'D-20.trigger-bodies'],
    needs: [...NEEDS],
    cases: eventTypes,
    async run(ctx, type) {
      const { all } = await setup(ctx);
      const eventId = await fire(ctx, type!);
      const d: Delivery & { json: any } = await waitAt(ctx, all, eventId, 'the catch-all subscription');
      verifySignature(ctx, all, d, type!);
      const schema = ctx.spec.document.webhooks[type!].post.requestBody.content['application/json'].schema;
      const validate = validatorFor(ctx.spec, schema);
      expect((validate as (x: unknown) => boolean)(d.json), `the ${type} payload does not match its schema: ${(validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`);
      const meta = d.json.meta;
      const caseId = await ctx.fixtures.caseId();
      expect(meta.eventType === type && meta.triggered === true && meta.caseId === caseId && meta.webhookId === all.id, `${type}: meta should name the event type, triggered true, the case ${caseId} and the subscription ${all.id}`);
      expect(meta.environment === ctx.envHeader, `${type}: meta.environment should be ${ctx.envHeader}`);
      const current = await ctx.call(ctx.customer, 'getCase', { caseId });
      expect(meta.contract === current.json?.data?.contract, `${type}: meta.contract should be the case's contract ${current.json?.data?.contract}, got ${meta.contract}`);
      if (type === 'case.updated') expect(JSON.stringify(meta.updated) === '["priority","status"]', `case.updated: meta.updated should name the fields given to the trigger, got ${JSON.stringify(meta.updated)}`);
      if (type!.startsWith('case.contract.')) {
        // The trigger changes nothing (D-20): "the case as before the change" is the case as it is.
        expect(JSON.stringify(d.json.data) === JSON.stringify(current.json.data), `${type}: data should be the case as it is (nothing changed), got a different case body`, current);
      }
      if (type === 'case.attachment.created') expect(d.json.data.id === (await ctx.fixtures.attachment()).id, `${type}: data should be the attachment`);
      if (type === 'case.comment.created') expect(d.json.data.id === (await ctx.fixtures.commentId()), `${type}: data should be the comment`);
      const logged = await ctx.call(ctx.customer, 'getEvent', { eventId });
      expectStatus(logged, 200, `getEvent ${eventId}`);
      const { webhookId: _omit, ...metaWithout } = meta;
      expect(logged.json.data.type === type && JSON.stringify(logged.json.data.payload) === JSON.stringify({ ...d.json, meta: metaWithout }),
        `the event log entry of ${eventId} should hold the delivered payload (without meta.webhookId)`, logged);
    },
  },
  {
    id: 'webhooks.contract-filter',
    area: 'webhooks',
    title: 'Contract filters with exact ids and patterns deliver matching events; a non-matching one receives nothing',
    statements: ['S6.delivery-filters', 'S6.controlled-contracts', 'D-16.patterns'],
    needs: [...NEEDS],
    async run(ctx) {
      const subs = await setup(ctx);
      const e1 = await fire(ctx, 'case.comment.created');
      await waitAt(ctx, subs.contractExact, e1, 'the exact-contract subscription');
      await waitAt(ctx, subs.contractWild, e1, 'the contract-pattern subscription');
      // Make the non-matching subscription match, fire again: its first delivery must be the second event.
      expectStatus(await ctx.call(ctx.customer, 'updateWebhook', { webhookId: subs.contractNone.id }, { json: { contracts: ['*'] } }), 200, 'updateWebhook contracts ["*"]');
      const e2 = await fire(ctx, 'case.comment.created');
      await waitAt(ctx, subs.contractNone, e2, 'the formerly non-matching subscription');
      const got = ctx.receiver.at(subs.contractNone.path).map(eventIdOf);
      expect(got[0] === e2, `a subscription whose contract pattern matched nothing received ${got[0]} before ${e2}`);
    },
  },
  {
    id: 'webhooks.event-type-filter',
    area: 'webhooks',
    title: 'Event-type filters with exact names and patterns deliver only matching types',
    statements: ['S6.delivery-filters', 'D-16.patterns'],
    needs: [...NEEDS],
    async run(ctx) {
      const subs = await setup(ctx);
      await fire(ctx, 'case.updated');
      await fire(ctx, 'case.comment.created');
      const marker = await fire(ctx, 'case.attachment.created');
      const d = await waitAt(ctx, subs.typeNone, marker, 'the case.attachment.* subscription');
      await waitAt(ctx, subs.all, marker, 'the catch-all subscription');
      const types = (s: Sub) => ctx.receiver.at(s.path).map((x) => x.json?.meta?.eventType as string);
      expect(types(subs.typeNone).every((t) => t === 'case.attachment.created') && types(subs.typeNone)[0] === d.json.meta.eventType,
        `the case.attachment.* subscription received ${[...new Set(types(subs.typeNone))].join(', ')}`);
      for (const kind of Object.keys(AUTH)) {
        expect(types(subs[kind]).every((t) => t === 'case.updated'), `the case.updated subscription (${kind}) received ${[...new Set(types(subs[kind]))].join(', ')}`);
      }
      expect(types(subs.contractWild).every((t) => t.startsWith('case.comment.')), `the case.comment.* subscription received ${[...new Set(types(subs.contractWild))].join(', ')}`);
    },
  },
  {
    id: 'webhooks.event-log',
    area: 'webhooks',
    title: 'The event log lists every triggered event, filterable by type',
    statements: ['S6.event-log', 'S4.event-log', 'D-19.event-log'],
    needs: [...NEEDS],
    async run(ctx) {
      const id = await fire(ctx, 'case.updated');
      const r = await ctx.listAll(ctx.customer, 'listEvents', {}, 'filter[type]=case.updated&sort=-createdAt', 200);
      expect(r.items.some((e) => e.id === id), `listEvents filter[type]=case.updated should hold ${id}`);
      expect(r.items.every((e) => e.type === 'case.updated'), 'listEvents filter[type]=case.updated returned other types');
    },
  },
];

