// D-107: a webhook secret sent back as `********` (the mask answers show) keeps the stored secret of the same scheme;
// where none is stored the mask is 400, never stored. Read from the store itself: answers always show the mask.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers/sandbox.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const stored = (id: string) => h.sandbox.svc.store.get('webhooks', 'sandbox', id)!.record.authorization;
const url = 'http://127.0.0.1:9/masked';

describe('a masked secret sent back (D-107)', () => {
  it('keeps each stored secret of a list, by type and header name, and replaces the ones sent in clear', async () => {
    const auth = [{ type: 'basic', username: 'u', password: 'pw-1' }, { type: 'header', name: 'X-Key', value: 'v-1' }, { type: 'header', name: 'X-Other', value: 'o-1' }];
    const created = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url, enabled: false, authorization: auth });
    expect(created.status, created.text).toBe(201);
    const id = created.json.data.id;
    const answered = (await h.call('sandbox', 'customer', 'GET', `/webhooks/${id}`)).json.data.authorization;
    expect(answered.map((s: any) => s.password ?? s.value)).toEqual(['********', '********', '********']);
    // Sent back in another order (the header names say which is which), the basic password changed in clear.
    const sentBack = [answered[2], answered[1], { type: 'basic', username: 'u', password: 'pw-2' }];
    const up = await h.call('sandbox', 'customer', 'PATCH', `/webhooks/${id}`, { authorization: sentBack });
    expect(up.status, up.text).toBe(200);
    expect(stored(id)).toEqual([{ type: 'header', name: 'X-Other', value: 'o-1' }, { type: 'header', name: 'X-Key', value: 'v-1' }, { type: 'basic', username: 'u', password: 'pw-2' }]);
  });

  it('a single scheme sent back keeps its secret; a mask with nothing stored for its scheme is 400 and changes nothing', async () => {
    const created = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url, enabled: false, authorization: { type: 'bearer', token: 'secret-b' } });
    const id = created.json.data.id;
    const kept = await h.call('sandbox', 'customer', 'PATCH', `/webhooks/${id}`, { authorization: { type: 'bearer', token: '********' }, enabled: false });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json.data.authorization).toEqual({ type: 'bearer', token: '********' });
    expect(stored(id)).toEqual({ type: 'bearer', token: 'secret-b' });
    const other = await h.call('sandbox', 'customer', 'PATCH', `/webhooks/${id}`, { authorization: { type: 'header', name: 'X-New', value: '********' } });
    expect(other.status).toBe(400);
    expect(other.json.errors.map((e: any) => [e.code, e.detail.split(':')[0]])).toEqual([['value_error', 'body.authorization.value']]);
    expect(stored(id)).toEqual({ type: 'bearer', token: 'secret-b' });
    const fresh = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url, enabled: false, authorization: [{ type: 'basic', username: 'u', password: '********' }] });
    expect(fresh.status).toBe(400);
    expect(fresh.json.errors[0].detail).toMatch(/^body\.authorization\.0\.password: '\*{8}' stands for a stored secret/);
  });
});
