// Issue 13, domain half: Location with the full base (D-74), externalReference per account (D-75), contacts
// re-validated on a contract change (D-47), webhook authorization headers (D-76), and the smaller rules of item 8
// (D-77..D-81). Real sandbox over HTTP, in-memory SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCareClient, createdLocation } from '../src/client/index.ts';
import { startHarness } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const demo = () => h.sandbox.demo.sandbox;
const acme = () => demo().customer.contracts[0];
const hook = 'http://127.0.0.1:9/hook';

async function newCase(body: Record<string, unknown> = {}, who: 'customer' | 'partner' = 'customer') {
  const answer = await h.call('sandbox', who, 'POST', '/cases', { contract: acme(), shortDescription: 'hardening', ...body });
  expect(answer.status, answer.text).toBe(201);
  return answer;
}

describe('Location (D-74)', () => {
  it('is an absolute path with the full base; a GET on it, resolved against the request URL, answers the resource', async () => {
    const c = await newCase();
    const comment = await h.call('sandbox', 'customer', 'POST', `/cases/${c.json.data.id}/comments`, { text: 'x', contact: 'ana.silva@customer.example' });
    const key = await h.call('sandbox', 'customer', 'POST', '/apikeys', { label: 'location' });
    const webhook = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: hook, enabled: false });
    const form = new FormData();
    form.append('file', new Blob(['hello']), 'hello.txt');
    const attachment = await h.call('sandbox', 'customer', 'POST', `/cases/${c.json.data.id}/attachments`, form);
    const production = await h.call('production', 'customer', 'POST', '/apikeys', { label: 'location' });
    for (const [answer, base] of [[c, '/care/v0/sandbox'], [comment, '/care/v0/sandbox'], [key, '/care/v0/sandbox'], [webhook, '/care/v0/sandbox'], [attachment, '/care/v0/sandbox'], [production, '/care/v0']] as const) {
      expect(answer.status).toBe(201);
      const location = answer.headers.get('location')!;
      expect(location.startsWith(`${base}/`), location).toBe(true);
      const requestUrl = `${h.origin}${base}/whatever/it/was`;
      const target = new URL(location, requestUrl).href;
      const env = base === '/care/v0' ? 'Production' : 'Sandbox';
      const got = await fetch(target, { headers: { authorization: `Bearer ${h.tokens[env === 'Production' ? 'production' : 'sandbox'].customer}` } });
      expect(got.status, target).toBe(200);
      expect((await got.json()).data.id).toBe(answer.json.data.id);
    }
  });
});

describe('client: createdLocation (D-74)', () => {
  it('resolves Location against the request URL to the created resource', async () => {
    const care = createCareClient({ environment: 'sandbox', baseUrl: `${h.origin}/care/v0/sandbox`, token: h.tokens.sandbox.customer });
    const { data, response } = await care.POST('/cases', { body: { contract: acme(), shortDescription: 'client location' } });
    const url = createdLocation(response);
    expect(url).toBe(`${h.origin}/care/v0/sandbox/cases/${data.data.id}`);
    const got = await fetch(url!, { headers: { authorization: `Bearer ${h.tokens.sandbox.customer}` } });
    expect((await got.json()).data.id).toBe(data.data.id);
    expect(createdLocation(new Response(null, { headers: { location: '/care/v0/cases/CS1' } }), 'https://api.care.example/care/v0/cases')).toBe('https://api.care.example/care/v0/cases/CS1');
    expect(createdLocation(new Response(null))).toBeNull();
  });
});

describe('externalReference per account (D-75)', () => {
  it('keeps the customer and the partner reference of a shared contract apart, in get, list, filter and sort', async () => {
    const customer = await h.call('sandbox', 'customer', 'PATCH', `/contracts/${acme()}`, { externalReference: 'CUST-1' });
    expect(customer.json.data.externalReference).toBe('CUST-1');
    const partner = await h.call('sandbox', 'partner', 'PATCH', `/contracts/${acme()}`, { externalReference: 'PART-1' });
    expect(partner.json.data.externalReference).toBe('PART-1');
    expect((await h.call('sandbox', 'customer', 'GET', `/contracts/${acme()}`)).json.data.externalReference).toBe('CUST-1');
    expect((await h.call('sandbox', 'partner', 'GET', `/contracts/${acme()}`)).json.data.externalReference).toBe('PART-1');
    const customerList = await h.call('sandbox', 'customer', 'GET', '/contracts?filter[externalReference]=CUST-1');
    expect(customerList.json.data.map((c: any) => c.id)).toEqual([acme()]);
    expect((await h.call('sandbox', 'partner', 'GET', '/contracts?filter[externalReference]=CUST-1')).json.data).toEqual([]);
    const partnerList = await h.call('sandbox', 'partner', 'GET', '/contracts?filter[externalReference][startswith]=PART');
    expect(partnerList.json.data.map((c: any) => [c.id, c.externalReference])).toEqual([[acme(), 'PART-1']]);
    const sorted = await h.call('sandbox', 'partner', 'GET', '/contracts?sort=-externalReference');
    const refs = sorted.json.data.map((c: any) => c.externalReference);
    expect(refs[0]).toBe('PART-1');
    expect(refs).not.toContain('CUST-1');
    // clearing one's own reference leaves the other's
    await h.call('sandbox', 'partner', 'PATCH', `/contracts/${acme()}`, { externalReference: null });
    expect((await h.call('sandbox', 'customer', 'GET', `/contracts/${acme()}`)).json.data.externalReference).toBe('CUST-1');
  });
});

describe('contacts on a contract change (D-47)', () => {
  it("refuses moving a case to another customer's contract while it keeps the first customer's contacts", async () => {
    const globex = demo().partner.contracts[1];
    const c = await newCase({ contact: 'ana.silva@customer.example', watchList: ['marc.dubois@customer.example', 'jonas.berg@partner.example'] }, 'partner');
    const moved = await h.call('sandbox', 'partner', 'PATCH', `/cases/${c.json.data.id}`, { contract: globex });
    expect(moved.status).toBe(400);
    expect(moved.json.errors).toEqual([
      expect.objectContaining({ code: 'contact_not_allowed', detail: expect.stringMatching(/^body\.contact: /) }),
      expect.objectContaining({ code: 'contact_not_allowed', detail: expect.stringMatching(/^body\.watchList\.0: /) }),
    ]);
    expect((await h.call('sandbox', 'partner', 'GET', `/cases/${c.json.data.id}`)).json.data.contract).toBe(acme());
    const ok = await h.call('sandbox', 'partner', 'PATCH', `/cases/${c.json.data.id}`, {
      contract: globex,
      contact: 'hank.scorpio@globex.example',
      watchList: ['jonas.berg@partner.example'],
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.data).toMatchObject({ contract: globex, contact: 'hank.scorpio@globex.example', watchList: ['jonas.berg@partner.example'] });
  });
});

describe('webhook authorization headers (D-76)', () => {
  const bad: Array<[string, unknown]> = [
    ['CR LF in a value', { type: 'header', name: 'X-A', value: 'a\r\nX-Injected: 1' }],
    ['LF in a value', { type: 'header', name: 'X-A', value: 'a\nb' }],
    ['NUL in a value', { type: 'header', name: 'X-A', value: 'a\u0000b' }],
    ['CR LF in a bearer token', { type: 'bearer', token: 't\r\nX-Injected: 1' }],
    ['Content-Type', { type: 'header', name: 'Content-Type', value: 'text/plain' }],
    ['content-length', { type: 'header', name: 'content-length', value: '1' }],
    ['Host', { type: 'header', name: 'Host', value: 'evil.example' }],
    ['webhook-signature', { type: 'header', name: 'Webhook-Signature', value: 'v1,x' }],
    ['webhook-id', { type: 'header', name: 'webhook-id', value: 'x' }],
    ['X-CareAPI-Env', { type: 'header', name: 'X-CareAPI-Env', value: 'Production' }],
    ['Authorization next to bearer', [{ type: 'bearer', token: 't' }, { type: 'header', name: 'authorization', value: 'x' }]],
    ['the same header twice', [{ type: 'header', name: 'X-A', value: '1' }, { type: 'header', name: 'x-a', value: '2' }]],
  ];
  for (const [name, authorization] of bad) {
    it(`refuses ${name} with 400 at create and update`, async () => {
      const created = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: hook, authorization, enabled: false });
      expect(created.status, created.text).toBe(400);
      expect(created.json.errors[0].detail).toMatch(/^body\.authorization/);
      const ok = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: hook, enabled: false });
      const updated = await h.call('sandbox', 'customer', 'PATCH', `/webhooks/${ok.json.data.id}`, { authorization });
      expect(updated.status, updated.text).toBe(400);
    });
  }
  it('accepts a custom header, and Authorization as a header when no basic or bearer scheme sets it', async () => {
    for (const authorization of [{ type: 'header', name: 'X-Receiver-Key', value: 'k 1\t2' }, { type: 'header', name: 'Authorization', value: 'ApiKey abc' }]) {
      const created = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: hook, authorization, enabled: false });
      expect(created.status, created.text).toBe(201);
    }
  });
});

describe('item 8: smaller rules', () => {
  it('matches contacts with the domain case-insensitively and answers the domain in lower case (D-77)', async () => {
    const c = await newCase({ contact: 'ana.silva@Customer.EXAMPLE', watchList: 'marc.dubois@CUSTOMER.example' });
    expect(c.json.data.contact).toBe('ana.silva@customer.example');
    expect(c.json.data.watchList).toEqual(['marc.dubois@customer.example']);
    const local = await h.call('sandbox', 'customer', 'POST', '/cases', { contract: acme(), shortDescription: 'x', contact: 'ANA.SILVA@customer.example' });
    expect(local.status).toBe(400);
    expect(local.json.errors[0].code).toBe('contact_not_allowed');
  });

  it('clears a contact with contact: null (D-78)', async () => {
    const c = await newCase({ contact: 'ana.silva@customer.example' });
    const cleared = await h.call('sandbox', 'customer', 'PATCH', `/cases/${c.json.data.id}`, { contact: null });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.json.data.contact).toBeNull();
  });

  it('hides partner comments from the customer account (D-79)', async () => {
    const c = await newCase();
    const id = c.json.data.id;
    const internal = await h.call('sandbox', 'partner', 'POST', `/cases/${id}/comments`, { text: 'internal', contact: 'jonas.berg@partner.example', partnerComment: true });
    expect(internal.status).toBe(201);
    const open = await h.call('sandbox', 'partner', 'POST', `/cases/${id}/comments`, { text: 'public', contact: 'jonas.berg@partner.example' });
    const customerList = await h.call('sandbox', 'customer', 'GET', `/cases/${id}/comments`);
    expect(customerList.json.data.map((x: any) => x.id)).toEqual([open.json.data.id]);
    expect(customerList.json.meta.page.totalCount).toBe(1);
    expect((await h.call('sandbox', 'customer', 'GET', `/cases/${id}/comments/${internal.json.data.id}`)).status).toBe(404);
    const partnerList = await h.call('sandbox', 'partner', 'GET', `/cases/${id}/comments`);
    expect(partnerList.json.meta.page.totalCount).toBe(2);
    const seeded = await h.call('sandbox', 'customer', 'GET', '/cases?page[size]=200');
    for (const kase of seeded.json.data.slice(0, 30)) {
      const list = await h.call('sandbox', 'customer', 'GET', `/cases/${kase.id}/comments?filter[partnerComment]=true`);
      expect(list.json.data).toEqual([]);
    }
  });

  it("keeps the event of a partner comment out of the customer account's event log (D-79)", async () => {
    const c = await h.call('production', 'customer', 'POST', '/cases', { contract: h.sandbox.demo.production.customer.contracts[0], shortDescription: 'events' });
    const id = c.json.data.id;
    const internal = await h.call('production', 'partner', 'POST', `/cases/${id}/comments`, { text: 'internal', contact: 'jonas.berg@partner.example', partnerComment: true });
    await h.call('production', 'partner', 'POST', `/cases/${id}/comments`, { text: 'public', contact: 'jonas.berg@partner.example' });
    const query = `/events?filter[case]=${id}&filter[type]=case.comment.created`;
    const partner = await h.call('production', 'partner', 'GET', query);
    expect(partner.json.meta.page.totalCount).toBe(2);
    const customer = await h.call('production', 'customer', 'GET', query);
    expect(customer.json.data.map((e: any) => e.payload.data.partnerComment)).toEqual([false]);
    const hidden = partner.json.data.find((e: any) => e.payload.data.id === internal.json.data.id);
    expect((await h.call('production', 'customer', 'GET', `/events/${hidden.id}`)).status).toBe(404);
  });

  it('accepts contract and event-type patterns that match nothing yet, refuses exact names alike (D-80)', async () => {
    const patterns = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: hook, contracts: ['CT9*'], eventTypes: ['case.*', 'invoice.*'], enabled: false });
    expect(patterns.status, patterns.text).toBe(201);
    const exact = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: hook, eventTypes: ['case.*', 'invoice.created'] });
    expect(exact.status).toBe(400);
    // the description says it (D-91): a name without `*` must be an EventType, so the schema's enum speaks
    expect(exact.json.errors).toEqual([expect.objectContaining({ detail: expect.stringMatching(/^body\.eventTypes\.1: Input should be 'case\.contract\.assigned'/), code: 'enum' })]);
    expect((await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: hook, contracts: ['CT9999999'] })).status).toBe(403);
  });

  it('trims the elements of a comma-separated watch list (D-81)', async () => {
    const c = await newCase({ watchList: 'ana.silva@customer.example, marc.dubois@customer.example' });
    expect(c.json.data.watchList).toEqual(['ana.silva@customer.example', 'marc.dubois@customer.example']);
  });
});
