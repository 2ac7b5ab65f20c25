// The seed's rules, as the sandbox applies them: authentication (D-13..D-15), contract scoping (sections 1, 5; D-30,
// D-37), contacts (section 2, D-08), partner comments (D-09), API keys (D-12), webhooks input (D-16, D-32).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, send, startHarness, tokenFor } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';

let h: Harness;
let now = Date.parse('2026-11-22T04:00:00.000Z');
beforeAll(async () => {
  h = await startHarness({ now: () => now });
});
afterAll(() => h?.close());

const demo = () => h.sandbox.demo.sandbox;

async function someCase(who: 'customer' | 'partner', filter = '') {
  const list = await h.call('sandbox', who, 'GET', `/cases?page[size]=1${filter}`);
  return list.json.data[0];
}

describe('authentication', () => {
  it('exchanges form or JSON credentials for a bearer JWT of one environment', async () => {
    const form = await exchange(h.origin, demo().customer.apiKeyId, demo().customer.apiKeySecret, 'sandbox');
    expect(form.status).toBe(200);
    const body = await form.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(body.access_token.split('.')).toHaveLength(3);
    const json = await send(`${h.origin}/auth/v2/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: demo().partner.apiKeyId, client_secret: demo().partner.apiKeySecret, audience: 'sandbox' }),
    });
    expect(json.status).toBe(200);
  });

  it('refuses wrong secrets, other-environment keys, revoked keys, unknown grants', async () => {
    expect((await exchange(h.origin, demo().customer.apiKeyId, 'ck_wrong', 'sandbox')).status).toBe(401);
    expect((await exchange(h.origin, demo().customer.apiKeyId, demo().customer.apiKeySecret, 'production')).status).toBe(401);
    expect((await exchange(h.origin, demo().revokedApiKey.apiKeyId, demo().revokedApiKey.apiKeySecret, 'sandbox')).status).toBe(401);
    const grant = await send(`${h.origin}/auth/v2/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password' }) });
    expect(grant.status).toBe(400);
    expect(grant.json.error).toBe('unsupported_grant_type');
  });

  it('answers 401 with WWW-Authenticate for missing, malformed, foreign-environment and expired tokens', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['malformed', { authorization: 'Bearer not-a-jwt' }],
      ['scheme', { authorization: `Basic ${h.tokens.sandbox.customer}` }],
      ['other environment', { authorization: `Bearer ${h.tokens.production.customer}` }],
    ];
    for (const [name, headers] of cases) {
      const answer = await send(`${h.origin}/care/v0/sandbox/cases`, { headers });
      expect(answer.status, name).toBe(401);
      expect(answer.headers.get('www-authenticate'), name).toMatch(/^Bearer/);
      expect(answer.headers.get('x-careapi-env'), name).toBe('Sandbox');
      expect(answer.json.errors[0].code, name).toBe('unauthorized');
    }
    const token = await tokenFor(h.origin, demo().customer.apiKeyId, demo().customer.apiKeySecret, 'sandbox');
    now += 3601_000;
    try {
      expect((await h.call('sandbox', { token }, 'GET', '/cases')).status).toBe(401);
    } finally {
      now -= 3601_000;
    }
  });

  it('refuses tokens of a key once it is revoked or expired, and keeps the record', async () => {
    const created = await h.call('sandbox', 'customer', 'POST', '/apikeys', { label: 'short-lived', expiresAt: new Date(now + 60_000).toISOString() });
    expect(created.status).toBe(201);
    expect(created.json.data.secret).toMatch(/^ck_/);
    expect(created.headers.get('location')).toBe(`/care/v0/sandbox/apikeys/${created.json.data.id}`);
    const token = await tokenFor(h.origin, created.json.data.id, created.json.data.secret, 'sandbox');
    expect((await h.call('sandbox', { token }, 'GET', '/cases')).status).toBe(200);
    now += 61_000;
    try {
      expect((await h.call('sandbox', { token }, 'GET', '/cases')).status).toBe(401);
      expect((await exchange(h.origin, created.json.data.id, created.json.data.secret, 'sandbox')).status).toBe(401);
    } finally {
      now -= 61_000;
    }
    const second = await h.call('sandbox', 'customer', 'POST', '/apikeys', { label: 'to revoke' });
    const token2 = await tokenFor(h.origin, second.json.data.id, second.json.data.secret, 'sandbox');
    const revoked = await h.call('sandbox', 'customer', 'DELETE', `/apikeys/${second.json.data.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.json.data.revokedAt).toBeTypeOf('string');
    const again = await h.call('sandbox', 'customer', 'DELETE', `/apikeys/${second.json.data.id}`);
    expect(again.json.data).toEqual(revoked.json.data);
    expect((await h.call('sandbox', { token: token2 }, 'GET', '/cases')).status).toBe(401);
    const get = await h.call('sandbox', 'customer', 'GET', `/apikeys/${second.json.data.id}`);
    expect(get.status).toBe(200);
    expect(get.json.data.secret).toBeUndefined();
    const patch = await h.call('sandbox', 'customer', 'PATCH', `/apikeys/${second.json.data.id}`, { label: 'x' });
    expect(patch.status).toBe(400);
    expect((await h.call('sandbox', 'partner', 'GET', `/apikeys/${second.json.data.id}`)).status).toBe(404);
  });
});

describe('contract scoping', () => {
  it('answers 403 for a foreign or unknown contract given directly', async () => {
    for (const id of [demo().foreignContract, 'CT9999999']) {
      expect((await h.call('sandbox', 'customer', 'GET', `/contracts/${id}`)).status).toBe(403);
      const create = await h.call('sandbox', 'customer', 'POST', '/cases', { contract: id, shortDescription: 'x' });
      expect(create.status).toBe(403);
      expect(create.json.errors[0].code).toBe('contract_forbidden');
      expect((await h.call('sandbox', 'customer', 'GET', `/cases?filter[contract]=${id}`)).status).toBe(403);
      expect((await h.call('sandbox', 'customer', 'GET', `/cases?filter[contract][in]=${demo().customer.contracts[0]},${id}`)).status).toBe(403);
      expect((await h.call('sandbox', 'customer', 'GET', `/events?filter[contract][eq]=${id}`)).status).toBe(403);
      expect((await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/x', contracts: [id] })).status).toBe(403);
    }
    // other operators only scope (D-30)
    expect((await h.call('sandbox', 'customer', 'GET', `/cases?filter[contract][ne]=${demo().foreignContract}`)).status).toBe(200);
  });

  it('answers 403 for a case of a contract not controlled, by context, and 404 for an unknown case', async () => {
    const partnerOnly = await someCase('partner', `&filter[contract]=${demo().partner.contracts[1]}`);
    expect(partnerOnly).toBeDefined();
    for (const path of [`/cases/${partnerOnly.id}`, `/cases/${partnerOnly.id}/comments`, `/cases/${partnerOnly.id}/attachments`]) {
      expect((await h.call('sandbox', 'customer', 'GET', path)).status, path).toBe(403);
    }
    expect((await h.call('sandbox', 'customer', 'PATCH', `/cases/${partnerOnly.id}`, { priority: 1 })).status).toBe(403);
    expect((await h.call('sandbox', 'customer', 'GET', '/cases/CS9999999')).status).toBe(404);
    const trigger = await h.call('sandbox', 'customer', 'POST', '/events/case.updated', { caseId: partnerOnly.id, updated: ['status'] });
    expect(trigger.status).toBe(403);
  });

  it('shows cases without contract to the customer only (D-07)', async () => {
    const contractless = await someCase('customer', '&filter[contract][null]');
    expect(contractless.contract).toBeNull();
    expect((await h.call('sandbox', 'customer', 'GET', `/cases/${contractless.id}`)).status).toBe(200);
    expect((await h.call('sandbox', 'partner', 'GET', `/cases/${contractless.id}`)).status).toBe(403);
    const partnerList = await h.call('sandbox', 'partner', 'GET', '/cases?filter[contract][null]');
    expect(partnerList.json.meta.page.totalCount).toBe(0);
  });

  it('lets a customer move its contractless case to its contract, not to a foreign one', async () => {
    const contractless = await someCase('customer', '&filter[contract][null]');
    expect((await h.call('sandbox', 'customer', 'PATCH', `/cases/${contractless.id}`, { contract: demo().foreignContract })).status).toBe(403);
    const moved = await h.call('sandbox', 'customer', 'PATCH', `/cases/${contractless.id}`, { contract: demo().customer.contracts[0] });
    expect(moved.status).toBe(200);
    expect(moved.json.data.contract).toBe(demo().customer.contracts[0]);
    expect(moved.json.data.updatedAt > contractless.updatedAt).toBe(true);
    expect((await h.call('sandbox', 'partner', 'GET', `/cases/${contractless.id}`)).status).toBe(200);
  });
});

describe('contacts and partner comments', () => {
  it('checks e-mail syntax (value_error) before membership (contact_not_allowed)', async () => {
    const contract = demo().customer.contracts[0];
    const invalid = await h.call('sandbox', 'customer', 'POST', '/cases', { contract, shortDescription: 'x', contact: 'not an email' });
    expect(invalid.status).toBe(400);
    expect(invalid.json.errors).toEqual([expect.objectContaining({ detail: 'body.contact: value is not a valid email address', code: 'value_error' })]);
    const stranger = await h.call('sandbox', 'customer', 'POST', '/cases', { contract, shortDescription: 'x', contact: 'someone@else.example' });
    expect(stranger.json.errors).toEqual([expect.objectContaining({ code: 'contact_not_allowed' })]);
    const partnerAsContact = await h.call('sandbox', 'partner', 'POST', '/cases', { contract, shortDescription: 'x', contact: 'jonas.berg@partner.example' });
    expect(partnerAsContact.status).toBe(400);
  });

  it('allows partner contacts on watch lists for partner accounts only', async () => {
    const contract = demo().customer.contracts[0];
    const body = { contract, shortDescription: 'watch', watchList: ['ana.silva@customer.example', 'jonas.berg@partner.example'] };
    expect((await h.call('sandbox', 'partner', 'POST', '/cases', body)).status).toBe(201);
    const customer = await h.call('sandbox', 'customer', 'POST', '/cases', body);
    expect(customer.status).toBe(400);
    expect(customer.json.errors).toEqual([expect.objectContaining({ detail: expect.stringMatching(/^body\.watchList\.1: /), code: 'contact_not_allowed' })]);
  });

  it('keeps partner comments for partner accounts with partner contacts', async () => {
    const shared = await someCase('customer', `&filter[contract]=${demo().customer.contracts[0]}`);
    const path = `/cases/${shared.id}/comments`;
    const customer = await h.call('sandbox', 'customer', 'POST', path, { text: 'x', contact: 'ana.silva@customer.example', partnerComment: true });
    expect(customer.status).toBe(403);
    expect(customer.json.errors[0].code).toBe('partner_only');
    const wrongContact = await h.call('sandbox', 'partner', 'POST', path, { text: 'x', contact: 'ana.silva@customer.example', partnerComment: 'yes' });
    expect(wrongContact.status).toBe(400);
    expect(wrongContact.json.errors[0].code).toBe('contact_not_allowed');
    const ok = await h.call('sandbox', 'partner', 'POST', path, { text: 'x', contact: 'jonas.berg@partner.example', partnerComment: 'yes' });
    expect(ok.status).toBe(201);
    expect(ok.json.data.partnerComment).toBe(true);
    const customerComment = await h.call('sandbox', 'customer', 'POST', path, { text: 'x', contact: 'jonas.berg@partner.example' });
    expect(customerComment.status).toBe(400);
  });
});

describe('cases, attachments, webhooks', () => {
  it('creates cases with status 1, priority 3, ids and timestamps as decided', async () => {
    const answer = await h.call('sandbox', 'customer', 'POST', '/cases', { contract: demo().customer.contracts[0], shortDescription: 'Defaults' });
    expect(answer.status).toBe(201);
    const c = answer.json.data;
    expect(c).toMatchObject({ status: 1, priority: 3, incident: null, watchList: [], description: null, contact: null });
    expect(c.id).toMatch(/^CS\d{7}$/);
    expect(c.created).toBe(c.createdAt);
    expect(c.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(answer.headers.get('location')).toBe(`/care/v0/sandbox/cases/${c.id}`);
    const again = await h.call('sandbox', 'customer', 'PATCH', `/cases/${c.id}`, { status: 3 });
    const back = await h.call('sandbox', 'customer', 'PATCH', `/cases/${c.id}`, { status: 1 });
    expect(again.json.data.updatedAt > c.updatedAt).toBe(true);
    expect(back.json.data.updatedAt > again.json.data.updatedAt).toBe(true);
  });

  it('stores attachment bytes and answers them identical; 413 over 10 MiB', async () => {
    const c = await someCase('customer', `&filter[contract]=${demo().customer.contracts[0]}`);
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256));
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'Résumé final.pdf');
    const up = await h.call('sandbox', 'customer', 'POST', `/cases/${c.id}/attachments`, form);
    expect(up.status).toBe(201);
    expect(up.json.data).toMatchObject({ fileName: 'Résumé final.pdf', contentType: 'application/pdf', size: bytes.length });
    const down = await h.call('sandbox', 'customer', 'GET', `/cases/${c.id}/attachments/${up.json.data.id}/download`);
    expect(down.status).toBe(200);
    expect(Buffer.compare(down.bytes, bytes)).toBe(0);
    expect(down.headers.get('content-type')).toBe('application/pdf');
    expect(down.headers.get('content-length')).toBe(String(bytes.length));
    expect(down.headers.get('content-disposition')).toMatch(/^attachment; filename="/);
    const big = new FormData();
    big.append('file', new Blob([Buffer.alloc(10 * 1024 * 1024 + 1)]), 'big.bin');
    const tooBig = await h.call('sandbox', 'customer', 'POST', `/cases/${c.id}/attachments`, big);
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.errors[0].code).toBe('payload_too_large');
    const list = await h.call('sandbox', 'customer', 'GET', `/cases/${c.id}/attachments?filter[fileName][startswith]=big`);
    expect(list.json.data).toEqual([]);
  });

  it('validates webhook input: https in production, event-type patterns, masked secrets', async () => {
    const http = await h.call('production', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hook' });
    expect(http.status).toBe(400);
    const types = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', eventTypes: ['case.*', 'invoice.created'] });
    expect(types.status).toBe(400);
    expect(types.json.errors[0].detail).toMatch(/^body\.eventTypes\.1: /);
    const created = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', authorization: { type: 'bearer', token: 'secret-token' } });
    expect(created.status).toBe(201);
    expect(created.json.data.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(created.json.data.authorization).toEqual({ type: 'bearer', token: '********' });
    expect(created.json.data.contracts).toEqual(['*']);
    expect(created.text).not.toContain('secret-token');
    const got = await h.call('sandbox', 'customer', 'GET', `/webhooks/${created.json.data.id}`);
    expect(got.json.data.signingSecret).toBeUndefined();
    expect((await h.call('sandbox', 'partner', 'GET', `/webhooks/${created.json.data.id}`)).status).toBe(404);
    expect((await h.call('sandbox', 'customer', 'DELETE', `/webhooks/${created.json.data.id}`)).status).toBe(204);
    expect((await h.call('sandbox', 'customer', 'GET', `/webhooks/${created.json.data.id}`)).status).toBe(404);
  });
});

describe('rate limit (D-31), when switched on', () => {
  it('answers 429 with Retry-After in the envelope once the bucket is empty, and recovers', async () => {
    let clock = Date.parse('2026-11-22T04:00:00.000Z');
    const limited = await startHarness({ seedCases: 5, rateLimit: 3, now: () => clock });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await limited.call('sandbox', 'customer', 'GET', '/contracts')).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const refused = await limited.call('sandbox', 'customer', 'GET', '/contracts');
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('x-careapi-env')).toBe('Sandbox');
      expect(refused.json.errors[0].code).toBe('rate_limited');
      expect((await limited.call('sandbox', 'partner', 'GET', '/contracts')).status).toBe(200); // per key
      clock += 1000;
      expect((await limited.call('sandbox', 'customer', 'GET', '/contracts')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('agent API (outside the contract)', () => {
  const agent = (path: string, method: string, body?: unknown) =>
    send(`${h.origin}/_agent${path}`, {
      method,
      ...(body instanceof FormData ? { body } : body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });

  it('lists its routes, opens a phone case without contract, assigns it, attaches a file', async () => {
    const index = await agent('', 'GET');
    expect(index.status).toBe(200);
    expect(index.json.data.routes.length).toBeGreaterThanOrEqual(5);
    const phone = await agent('/sandbox/cases', 'POST', { contract: null, customer: demo().customer.org, shortDescription: 'Called the desk', incident: 'INC0000042' });
    expect(phone.status).toBe(201);
    expect(phone.json.data).toMatchObject({ contract: null, incident: 'INC0000042', status: 1 });
    const id = phone.json.data.id;
    expect((await h.call('sandbox', 'customer', 'GET', `/cases/${id}`)).status).toBe(200);
    expect((await h.call('sandbox', 'partner', 'GET', `/cases/${id}`)).status).toBe(403);
    const assigned = await agent(`/sandbox/cases/${id}`, 'PATCH', { contract: demo().customer.contracts[0], status: '10' });
    expect(assigned.json.data).toMatchObject({ contract: demo().customer.contracts[0], status: 10 });
    expect((await h.call('sandbox', 'partner', 'GET', `/cases/${id}`)).status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('desk notes')], { type: 'text/plain' }), 'notes.txt');
    const attached = await agent(`/sandbox/cases/${id}/attachments`, 'POST', form);
    expect(attached.status).toBe(201);
    const list = await h.call('sandbox', 'partner', 'GET', `/cases/${id}/attachments`);
    expect(list.json.data.map((a: any) => a.id)).toEqual([attached.json.data.id]);
  });

  it('refuses bad input in the envelope', async () => {
    expect((await agent('/sandbox/cases', 'POST', { shortDescription: 'no customer' })).status).toBe(400);
    expect((await agent('/sandbox/cases/CS9999999', 'PATCH', { status: 10 })).status).toBe(404);
    const bad = await agent('/sandbox/cases', 'POST', { contract: 'CT9999999', shortDescription: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-careapi-env')).toBe('Sandbox');
    expect((await agent('/moon/cases', 'GET')).status).toBe(404);
  });
});
