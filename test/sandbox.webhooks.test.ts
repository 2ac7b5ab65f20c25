// Webhooks end to end: a local receiver gets events with the configured authorization, Standard Webhooks signatures
// and payloads valid against the description; the event log has them; failures are retried; 410 disables; a hanging
// receiver stalls nobody else; the delivery rules of seed section 6 in production and sandbox.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatorFor } from '../src/spec/index.ts';
import { send, spec, startHarness } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
  /** Held (unanswered) requests whose connection was still open when this one arrived. */
  heldOpen: number;
}

/** A receiver whose answer per path is scripted; waiters resolve when matching requests have arrived. */
function receiver() {
  const received: Received[] = [];
  const scripts = new Map<string, Array<(res: ServerResponse) => void>>();
  const waiters: Array<{ test: () => boolean; resolve: () => void }> = [];
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const heldOpen = held.filter((r) => !r.writableEnded && !r.socket?.destroyed).length;
      received.push({ path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body), heldOpen });
      const script = scripts.get(req.url ?? '');
      const answer = script && script.length > 0 ? script.shift()! : (r: ServerResponse) => r.writeHead(204).end();
      answer(res);
      for (const w of [...waiters]) if (w.test()) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  return {
    received,
    server,
    held,
    url: '',
    script(path: string, ...answers: Array<(res: ServerResponse) => void>) {
      scripts.set(path, answers);
    },
    until(test: () => boolean): Promise<void> {
      if (test()) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
    on(path: string) {
      return received.filter((r) => r.path === path);
    },
  };
}

let h: Harness;
let rx: ReturnType<typeof receiver>;
const status = (code: number, headers: Record<string, string> = {}) => (res: ServerResponse) => res.writeHead(code, headers).end();

beforeAll(async () => {
  rx = receiver();
  await new Promise<void>((resolve) => rx.server.listen(0, '127.0.0.1', () => resolve()));
  rx.url = `http://127.0.0.1:${(rx.server.address() as AddressInfo).port}`;
  h = await startHarness({ webhooks: { retryDelaysMs: [10, 20, 40], timeoutMs: 30_000, jitter: 0 } });
});
afterAll(async () => {
  for (const res of rx?.held ?? []) res.destroy();
  await h?.close();
  rx?.server.closeAllConnections();
  await new Promise((resolve) => rx?.server.close(resolve));
});

async function subscribe(env: 'sandbox' | 'production', who: 'customer' | 'partner', path: string, extra: Record<string, unknown> = {}) {
  // production wants https (D-32): production subscriptions are made through the store-level path below
  const answer = await h.call(env, who, 'POST', '/webhooks', { url: rx.url + path, ...extra });
  expect(answer.status, answer.text).toBe(201);
  return answer.json.data as { id: string; signingSecret: string };
}

/** Production refuses http URLs; point a https subscription at the local receiver by rewriting its url in storage. */
async function subscribeProduction(who: 'customer' | 'partner', path: string, extra: Record<string, unknown> = {}) {
  const answer = await h.call('production', who, 'POST', '/webhooks', { url: 'https://receiver.example' + path, ...extra });
  expect(answer.status, answer.text).toBe(201);
  h.sandbox.svc.store.update('webhooks', 'production', answer.json.data.id, { url: rx.url + path });
  return answer.json.data as { id: string; signingSecret: string };
}

const sharedContract = () => h.sandbox.demo.sandbox.customer.contracts[0];

async function aCase(env: 'sandbox' | 'production', who: 'customer' | 'partner', contract: string) {
  const list = await h.call(env, who, 'GET', `/cases?page[size]=1&filter[contract]=${contract}`);
  return list.json.data[0];
}

function schemaOfWebhook(eventType: string) {
  return (spec.document.webhooks[eventType].post.requestBody.content['application/json'].schema) as object;
}

describe('sandbox triggers', () => {
  it('deliver to the calling account with authorization, signature, headers and a valid payload, and log the event', async () => {
    const hook = await subscribe('sandbox', 'customer', '/triggered', {
      eventTypes: ['case.updated'],
      authorization: [{ type: 'bearer', token: 'tok-123' }, { type: 'header', name: 'X-Receiver-Key', value: 'k-9' }],
    });
    const c = await aCase('sandbox', 'customer', sharedContract());
    const trigger = await h.call('sandbox', 'customer', 'POST', '/events/case.updated', { caseId: c.id, updated: ['status', 'priority'] });
    expect(trigger.status).toBe(202);
    const eventId = trigger.json.data.id;
    await rx.until(() => rx.on('/triggered').length >= 1);
    const [got] = rx.on('/triggered');
    expect(got.headers.authorization).toBe('Bearer tok-123');
    expect(got.headers['x-receiver-key']).toBe('k-9');
    expect(got.headers['x-careapi-env']).toBe('Sandbox');
    expect(got.headers['user-agent']).toBe('CareAPI-Webhooks/0');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe(eventId);
    new Webhook(hook.signingSecret).verify(got.body, got.headers as Record<string, string>);
    const validate = validatorFor(spec, schemaOfWebhook('case.updated'));
    expect(validate(got.json), JSON.stringify(validate.errors)).toBe(true);
    expect(got.json.meta).toMatchObject({ eventId, eventType: 'case.updated', triggered: true, updated: ['status', 'priority'], webhookId: hook.id, environment: 'Sandbox', caseId: c.id });
    expect(got.json.data.id).toBe(c.id);
    const logged = await h.call('sandbox', 'customer', 'GET', `/events/${eventId}`);
    expect(logged.status).toBe(200);
    expect(logged.json.data.payload.meta.eventId).toBe(eventId);
    expect(logged.json.data.payload.meta.webhookId).toBeUndefined();
    const partnerView = await h.call('sandbox', 'partner', 'GET', `/events?filter[id]=${eventId}`);
    expect(partnerView.json.data.map((e: any) => e.id)).toEqual([eventId]);
  });

  it('never fire by themselves: an update in sandbox records no event', async () => {
    const before = (await h.call('sandbox', 'customer', 'GET', '/events?page[size]=1')).json.meta.page.totalCount;
    const c = await aCase('sandbox', 'partner', sharedContract());
    expect((await h.call('sandbox', 'partner', 'PATCH', `/cases/${c.id}`, { priority: 2 })).status).toBe(200);
    const agent = await send(`${h.origin}/_agent/sandbox/cases/${c.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ incident: 'INC0099' }) });
    expect(agent.status).toBe(200);
    expect(agent.json.data.incident).toBe('INC0099');
    const after = (await h.call('sandbox', 'customer', 'GET', '/events?page[size]=1')).json.meta.page.totalCount;
    expect(after).toBe(before);
  });

  it('404 for an unknown comment or attachment, 400 for an unknown field name', async () => {
    const c = await aCase('sandbox', 'customer', sharedContract());
    expect((await h.call('sandbox', 'customer', 'POST', '/events/case.comment.created', { caseId: c.id, commentId: 'CC9999999' })).status).toBe(404);
    expect((await h.call('sandbox', 'customer', 'POST', '/events/case.attachment.created', { caseId: c.id, attachmentId: 'AT9999999' })).status).toBe(404);
    expect((await h.call('sandbox', 'customer', 'POST', '/events/case.updated', { caseId: c.id, updated: ['colour'] })).status).toBe(400);
  });
});

describe('production delivery rules', () => {
  it('an account\'s own action fires for the other account on the contract, not for itself; agents fire for both', async () => {
    const customerHook = await subscribeProduction('customer', '/p-customer');
    const partnerHook = await subscribeProduction('partner', '/p-partner');
    const contract = h.sandbox.demo.production.customer.contracts[0];
    const c = await aCase('production', 'customer', contract);
    const patch = await h.call('production', 'partner', 'PATCH', `/cases/${c.id}`, { priority: c.priority === 1 ? 2 : 1, shortDescription: c.shortDescription });
    expect(patch.status).toBe(200);
    await rx.until(() => rx.on('/p-customer').length >= 1);
    const [update] = rx.on('/p-customer');
    expect(update.json.meta).toMatchObject({ eventType: 'case.updated', updated: ['priority'], triggered: false, environment: 'Production', webhookId: customerHook.id });
    const eventId = update.json.meta.eventId;
    const deliveries = await send(`${h.origin}/_agent/production/events/${eventId}/deliveries`);
    expect(deliveries.json.data.map((d: any) => d.webhookId)).toEqual([customerHook.id]);

    const agent = await send(`${h.origin}/_agent/production/cases/${c.id}/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Agent here', contact: 'desk@care.example' }),
    });
    expect(agent.status).toBe(201);
    await rx.until(() => rx.on('/p-customer').some((r) => r.json.meta.eventType === 'case.comment.created') && rx.on('/p-partner').some((r) => r.json.meta.eventType === 'case.comment.created'));
    const comment = rx.on('/p-partner').find((r) => r.json.meta.eventType === 'case.comment.created')!;
    new Webhook(partnerHook.signingSecret).verify(comment.body, comment.headers as Record<string, string>);
    expect(validatorFor(spec, schemaOfWebhook('case.comment.created'))(comment.json)).toBe(true);
  });

  it('moving a case to a contract the customer does not control: unassigned (case before) to the customer, assigned to the partner', async () => {
    const demo = h.sandbox.demo.production;
    const c = await aCase('production', 'customer', demo.customer.contracts[0]);
    const moved = await send(`${h.origin}/_agent/production/cases/${c.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contract: demo.partner.contracts[1] }),
    });
    expect(moved.status).toBe(200);
    const isFor = (type: string) => (r: Received) => r.json.meta.eventType === type && r.json.meta.caseId === c.id;
    await rx.until(() => rx.on('/p-customer').some(isFor('case.contract.unassigned')) && rx.on('/p-partner').some(isFor('case.contract.assigned')));
    const unassigned = rx.on('/p-customer').find(isFor('case.contract.unassigned'))!;
    expect(unassigned.json.data.contract).toBe(demo.customer.contracts[0]);
    expect(unassigned.json.meta.contract).toBe(demo.customer.contracts[0]);
    expect(validatorFor(spec, schemaOfWebhook('case.contract.unassigned'))(unassigned.json)).toBe(true);
    const assigned = rx.on('/p-partner').find(isFor('case.contract.assigned'))!;
    expect(assigned.json.data.contract).toBe(demo.partner.contracts[1]);
    expect((await h.call('production', 'customer', 'GET', `/cases/${c.id}`)).status).toBe(403);
  });

  it('a case created by the customer fires case.contract.assigned for the partner', async () => {
    const contract = h.sandbox.demo.production.customer.contracts[0];
    const created = await h.call('production', 'customer', 'POST', '/cases', { contract, shortDescription: 'Created in production' });
    expect(created.status).toBe(201);
    const isIt = (r: Received) => r.json.meta.eventType === 'case.contract.assigned' && r.json.meta.caseId === created.json.data.id;
    await rx.until(() => rx.on('/p-partner').some(isIt));
    const customerCopies = rx.on('/p-customer').filter(isIt);
    expect(customerCopies).toEqual([]);
  });
});

describe('retries', () => {
  it('retries failures with the same webhook-id, honours Retry-After, stops at success', async () => {
    rx.script('/flaky', status(500), status(503, { 'Retry-After': '0' }), status(200));
    await subscribe('sandbox', 'customer', '/flaky', { eventTypes: ['case.contract.*'] });
    const c = await aCase('sandbox', 'customer', sharedContract());
    const trigger = await h.call('sandbox', 'customer', 'POST', '/events/case.contract.assigned', { caseId: c.id });
    await rx.until(() => rx.on('/flaky').length >= 3);
    const ids = rx.on('/flaky').map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([trigger.json.data.id, trigger.json.data.id, trigger.json.data.id]);
    // the third attempt succeeded: the delivery is done after exactly three attempts (bounded wait for the bookkeeping)
    let state: any;
    for (let i = 0; i < 200 && state?.state !== 'delivered'; i++) {
      const deliveries = await send(`${h.origin}/_agent/sandbox/events/${trigger.json.data.id}/deliveries`);
      state = deliveries.json.data[0];
    }
    expect(state).toMatchObject({ state: 'delivered', attempt: 3, lastStatus: 'HTTP 200' });
  });

  it('410 disables the subscription', async () => {
    rx.script('/gone', status(410));
    const hook = await subscribe('sandbox', 'customer', '/gone', { eventTypes: ['case.comment.created'] });
    const c = await aCase('sandbox', 'customer', sharedContract());
    const comment = await h.call('sandbox', 'customer', 'POST', `/cases/${c.id}/comments`, { text: 'hi', contact: 'ana.silva@customer.example' });
    await h.call('sandbox', 'customer', 'POST', '/events/case.comment.created', { caseId: c.id, commentId: comment.json.data.id });
    await rx.until(() => rx.on('/gone').length >= 1);
    // the disabling happens right after the answer: wait for it through the API, bounded
    let enabled = true;
    for (let i = 0; i < 200 && enabled; i++) {
      enabled = (await h.call('sandbox', 'customer', 'GET', `/webhooks/${hook.id}`)).json.data.enabled;
    }
    expect(enabled).toBe(false);
  });

  it('a hanging receiver does not stall another subscription', async () => {
    rx.script('/hang', (res) => rx.held.push(res));
    await subscribe('sandbox', 'partner', '/hang', { eventTypes: ['case.updated'] });
    await subscribe('sandbox', 'partner', '/quick', { eventTypes: ['case.updated'] });
    const c = await aCase('sandbox', 'partner', sharedContract());
    await h.call('sandbox', 'partner', 'POST', '/events/case.updated', { caseId: c.id, updated: ['status'] });
    await rx.until(() => rx.on('/hang').length >= 1 && rx.on('/quick').length >= 1);
    // the quick receiver was served while the hanging one held its request open (the attempt times out only after 30 s)
    const hangFirst = rx.received.indexOf(rx.on('/hang')[0]) < rx.received.indexOf(rx.on('/quick')[0]);
    if (hangFirst) expect(rx.on('/quick')[0].heldOpen).toBeGreaterThanOrEqual(1);
    expect(rx.held.filter((res) => !res.socket?.destroyed).length).toBeGreaterThanOrEqual(1);
  });
});
