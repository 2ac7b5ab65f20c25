// Issue 48: the client fails closed on every odd input. Each case below passed (or looped, or waited forever) on
// a4d64de; now each ends with a typed error that says why, against the fake servers of
// test/support/misbehaving-server.ts.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CareApiError,
  CarePaginationError,
  CareTokenError,
  createCareClient,
  verifyWebhook,
  verifyWebhookRequest,
  WebhookVerificationError,
  type CareClientOptions,
} from '../src/client/index.ts';
import { API, clientOf, failure, getCase } from './support/misbehaving-client.ts';
import { behave, startMisbehavingServer, type Behaviour, type MisbehavingServer } from './support/misbehaving-server.ts';

const TOKEN = '/auth/v2/oauth/token';
const CASE = `${API}/cases/CS0010042`;
const caseBody = { meta: {}, data: { id: 'CS0010042' } };
const apiKey = { keyId: 'AK0000007', secret: 'ck_secret' };

let servers: MisbehavingServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(routes: Record<string, Behaviour>): Promise<MisbehavingServer> {
  const server = await startMisbehavingServer(routes);
  servers.push(server);
  return server;
}


describe('paginate ends on a server that goes round in a cycle', () => {
  const pageA = [{ id: 'CS0010040' }, { id: 'CS0010041' }];
  const pageB = [{ id: 'CS0010042' }, { id: 'CS0010043' }];
  /** Pages 1, 3, 5, ... are A and 2, 4, 6, ... are B, under a totalCount of 600: 4 distinct items, 300 pages. */
  const alternating: Behaviour = (req, res, body) => {
    const number = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page[number]') ?? 1);
    behave.json(200, { meta: { page: { number, size: 2, totalCount: 600 } }, data: number % 2 === 1 ? pageA : pageB })(req, res, body);
  };

  it('two pages answered in turn: stops at page 3 with a CarePaginationError', async () => {
    const server = await serve({ [`${API}/cases`]: alternating });
    const ids: string[] = [];
    const walk = async () => {
      for await (const item of clientOf(server).paginate('/cases', { params: { query: { page: { size: 2 } } } })) {
        ids.push(item.id);
        if (ids.length > 20) throw new Error('paginate did not end');
      }
    };
    const error = await failure(walk());
    expect(error).toBeInstanceOf(CarePaginationError);
    expect(error.message).toMatch(/page 3 has the same items as page 1 \(the server goes round in a cycle\)/);
    expect(ids).toEqual([...pageA, ...pageB].map((i) => i.id));
    expect(server.requests).toHaveLength(3);
  });

  it('a page size that changes during the walk (items would be skipped)', async () => {
    const items = Array.from({ length: 9 }, (_, i) => ({ id: `CS00100${50 + i}` }));
    const growing = behave.list(items, (h, asked) => ({ ...h, size: asked.number === 1 ? 2 : 4 }), {
      data: (_slice, asked) => (asked.number === 1 ? items.slice(0, 2) : items.slice(4, 8)),
    });
    const server = await serve({ [`${API}/cases`]: growing });
    const ids: string[] = [];
    const error = await failure((async () => {
      for await (const item of clientOf(server).paginate('/cases', { params: { query: { page: { size: 2 } } } })) ids.push(item.id);
    })());
    expect(error).toBeInstanceOf(CarePaginationError);
    expect(error.message).toMatch(/meta\.page\.size is 4, the first page's was 2/);
    expect(ids).toHaveLength(2);
  });
});

describe('verifyWebhook refuses to judge without a usable tolerance, clock or authorization', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const now = Date.UTC(2026, 10, 3, 14, 2, 11);
  const yearAgo = now - 365 * 24 * 3600 * 1000;
  const payload = JSON.stringify({ meta: { eventType: 'case.updated', eventId: 'EV0050001' }, data: { id: 'CS0010042' } });
  const signed = (body: string, sentAt = now) => ({
    body,
    headers: {
      'webhook-id': 'EV0050001',
      'webhook-timestamp': String(Math.floor(sentAt / 1000)),
      'webhook-signature': new Webhook(secret).sign('EV0050001', new Date(sentAt), body),
    },
  });
  const reasonOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(WebhookVerificationError);
      return [(error as WebhookVerificationError).reason, (error as Error).message] as const;
    }
    throw new Error('the delivery was accepted');
  };

  it.each([
    ['NaN', NaN],
    ['Number(process.env.UNSET)', Number(process.env.CARE_SURELY_UNSET_VARIABLE)],
    ["Number('5m')", Number('5m')],
    ["'abc'", 'abc'],
    ['Infinity', Infinity],
    ['a negative number', -1],
    ['more than a day', 86_401],
  ])('toleranceSeconds %s: a delivery signed a year ago is refused as misconfigured', (_what, tolerance) => {
    const [reason, message] = reasonOf(() => verifyWebhook(signed(payload, yearAgo), { secret, toleranceSeconds: tolerance as number, now: () => now }));
    expect(reason).toBe('misconfigured');
    expect(message).toMatch(/toleranceSeconds must be a number of seconds from 0 to 86400/);
  });

  it('a clock that gives no number is refused as misconfigured', () => {
    const [reason, message] = reasonOf(() => verifyWebhook(signed(payload, yearAgo), { secret, now: () => NaN }));
    expect(reason).toBe('misconfigured');
    expect(message).toMatch(/now\(\) must give milliseconds/);
  });

  it('a valid tolerance still accepts a fresh delivery and refuses an old one', () => {
    expect(verifyWebhook(signed(payload), { secret, toleranceSeconds: 0, now: () => now }).id).toBe('EV0050001');
    expect(reasonOf(() => verifyWebhook(signed(payload, yearAgo), { secret, toleranceSeconds: 300, now: () => now }))[0]).toBe('timestamp_out_of_tolerance');
  });

  it.each([
    ['an empty list', []],
    ['an unknown type', { type: 'digest', value: 'x' }],
    ['a bearer without token', { type: 'bearer' }],
    ['a header without value', [{ type: 'header', name: 'X-Hook-Key' }]],
  ])('authorization of %s is refused as misconfigured, not compared with "Bearer undefined"', (_what, authorization) => {
    const delivery = signed(payload);
    const headers = { ...delivery.headers, authorization: 'Bearer undefined', 'x-hook-key': 'undefined' };
    const [reason] = reasonOf(() => verifyWebhook({ body: delivery.body, headers }, { secret, authorization: authorization as never, now: () => now }));
    expect(reason).toBe('misconfigured');
  });

  it('keeps a leading byte order mark: the signature covers the bytes as sent', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    // Signed without the mark, delivered with it: the bytes differ from what was signed.
    const withoutMark = signed(payload);
    const bytes = Buffer.concat([bom, Buffer.from(payload)]);
    expect(reasonOf(() => verifyWebhook({ body: bytes, headers: withoutMark.headers }, { secret, now: () => now }))[0]).toBe('bad_signature');
    const request = new Request('http://127.0.0.1/hook', { method: 'POST', body: bytes, headers: withoutMark.headers });
    await expect(verifyWebhookRequest(request, { secret, now: () => now })).rejects.toMatchObject({ reason: 'bad_signature' });
    // Signed with the mark (the bytes as sent): accepted, and the payload is read past the mark.
    const withMark = signed(`\uFEFF${payload}`);
    expect(verifyWebhook({ body: bytes, headers: withMark.headers }, { secret, now: () => now }).eventType).toBe('case.updated');
  });
});

describe('a timeout or an abort while the body is read says so', () => {
  it('the client timeout while a 200 body is being read is `timeout`, with the status', async () => {
    const server = await serve({ [CASE]: behave.stallBody(200) });
    const error = await failure(getCase(clientOf(server, { timeoutMs: 300 })));
    expect(error).toMatchObject({ reason: 'timeout', status: 200 });
    expect(error.message).toMatch(/timed out while reading the answer/);
  });

  it('the same for an error answer whose body stalls', async () => {
    const server = await serve({ [CASE]: behave.stallBody(503) });
    const error = await failure(getCase(clientOf(server, { timeoutMs: 300 })));
    expect(error).toMatchObject({ reason: 'timeout', status: 503 });
  });

  it("the caller's abort once the headers are in is `aborted`", async () => {
    const server = await serve({ [CASE]: behave.stallBody(200) });
    const controller = new AbortController();
    // Abort as soon as the answer's headers arrive, before its body is read: no timing involved.
    const fetchThenAbort = async (request: Request) => {
      const response = await globalThis.fetch(request);
      controller.abort();
      return response;
    };
    const error = await failure(getCase(clientOf(server, { fetch: fetchThenAbort }), { signal: controller.signal }));
    expect(error).toMatchObject({ reason: 'aborted', status: 200 });
    expect(error.message).toMatch(/was aborted while reading the answer/);
  });
});

describe('timeoutMs is a number of milliseconds a timer can keep', () => {
  const make = (timeoutMs: unknown) => () => createCareClient({ environment: 'sandbox', baseUrl: 'http://127.0.0.1:9', timeoutMs: timeoutMs as number });

  it.each([
    [2 ** 31, RangeError],
    [2 ** 32, RangeError],
    [NaN, RangeError],
    [-1, RangeError],
    [0.5, RangeError],
    ['500', TypeError],
  ])('%s is refused, naming timeoutMs', (value, type) => {
    expect(make(value)).toThrow(type);
    expect(make(value)).toThrow(/timeoutMs must be a number of milliseconds from 1 to 2147483647/);
  });

  it('2^31 - 1, 0, Infinity and absent are accepted', () => {
    for (const value of [2 ** 31 - 1, 0, Infinity, undefined, 1]) expect(make(value)).not.toThrow();
  });

  it('the longest accepted timeout does not end a call at once', async () => {
    const server = await serve({ [CASE]: behave.json(200, caseBody) });
    const { data } = await getCase(clientOf(server, { timeoutMs: 2 ** 31 - 1 }));
    expect(data.data.id).toBe('CS0010042');
  });
});

describe('a success without the declared body is an error', () => {
  it.each([
    ['204', behave.empty(204), 'empty_body', /204 No Content, where the operation declares a JSON body/],
    ['null', behave.json(200, null), 'unreadable_body', /not the declared body: an object with `meta` and `data` is required/],
    ['{}', behave.json(200, {}), 'unreadable_body', /not the declared body: no `meta` or `data`/],
    ['no data', behave.json(200, { meta: {} }), 'unreadable_body', /not the declared body: no `data`/],
  ])('%s where GET /cases/{caseId} declares a JSON body', async (_what, behaviour, reason, message) => {
    const server = await serve({ [CASE]: behaviour });
    const error = await failure(getCase(clientOf(server)));
    expect(error).toMatchObject({ reason, status: expect.any(Number) });
    expect(error.message).toMatch(message);
  });

  it('a 204 where the operation declares one (DELETE /webhooks/{webhookId}) is a success', async () => {
    const server = await serve({ [`${API}/webhooks/WH0000001`]: behave.empty(204) });
    const { data, response } = await clientOf(server).DELETE('/webhooks/{webhookId}', { params: { path: { webhookId: 'WH0000001' } } });
    expect(response.status).toBe(204);
    expect(data).toBeUndefined();
  });

  it('a 200 with an empty body on DELETE /apikeys/{keyId}, which declares a body, is an error', async () => {
    const server = await serve({ [`${API}/apikeys/AK0000007`]: behave.empty(200) });
    const error = await failure(clientOf(server).DELETE('/apikeys/{keyId}', { params: { path: { keyId: 'AK0000007' } } }));
    expect(error.reason).toBe('empty_body');
  });
});

describe('retryAfterSeconds is at most one day', () => {
  it.each([
    ['99999999999999999999', 86_400],
    ['Fri, 31 Dec 9999 23:59:59 GMT', 86_400],
    ['86400', 86_400],
    ['86401', 86_400],
    ['120', 120],
  ])('Retry-After %s gives %d', async (value, seconds) => {
    const busy = behave.json(429, { meta: {}, errors: [{ status: '429', title: 'Too Many Requests', detail: 'slow down', code: 'rate_limited' }] }, { 'Retry-After': value });
    const server = await serve({ [CASE]: busy });
    const error = await failure(getCase(clientOf(server)));
    expect(error.retryAfterSeconds).toBe(seconds);
  });
});

describe('a token that is already expired when it arrives is refused, not fetched again per request', () => {
  const jwt = (exp: number) => new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(new TextEncoder().encode('k'.repeat(32)));

  it.each([0, -30])('the API-key exchange answering expires_in %d', async (expiresIn) => {
    const server = await serve({
      [TOKEN]: behave.json(200, { access_token: 'key-token', token_type: 'Bearer', expires_in: expiresIn }),
      [CASE]: behave.json(200, caseBody),
    });
    const error = await failure(getCase(clientOf(server, { token: undefined, apiKey })));
    expect(error).toBeInstanceOf(CareTokenError);
    expect(error.message).toMatch(new RegExp(`expires_in ${expiresIn}: the token is already expired`));
    expect(server.requests.map((r) => r.url)).toEqual([TOKEN]); // the call was never sent with it
  });

  it('a getToken that returns an expired JWT', async () => {
    const server = await serve({ [CASE]: behave.json(200, caseBody) });
    const expired = await jwt(Math.floor(Date.now() / 1000) - 60);
    const error = await failure(getCase(clientOf(server, { token: undefined, getToken: () => expired })));
    expect(error).toBeInstanceOf(CareTokenError);
    expect(error.message).toMatch(/returned a token that had already expired/);
    expect(server.requests).toHaveLength(0);
  });

  it('expiresAt given in seconds, or not a time', async () => {
    const server = await serve({ [CASE]: behave.json(200, caseBody) });
    const inSeconds = Math.floor(Date.now() / 1000) + 3600;
    const seconds = await failure(getCase(clientOf(server, { token: undefined, getToken: () => ({ token: 't', expiresAt: inSeconds }) })));
    expect(seconds.message).toMatch(/expiresAt looks like seconds since 1970: give milliseconds or a Date/);
    const invalid = await failure(getCase(clientOf(server, { token: undefined, getToken: () => ({ token: 't', expiresAt: new Date('soon') }) })));
    expect(invalid.message).toMatch(/expiresAt that is not a time/);
    expect(server.requests).toHaveLength(0);
  });

  it('a token valid for an hour is fetched once for many calls', async () => {
    const server = await serve({ [CASE]: behave.json(200, caseBody) });
    let calls = 0;
    const valid = await jwt(Math.floor(Date.now() / 1000) + 3600);
    const client = clientOf(server, { token: undefined, getToken: () => (calls++, valid) });
    for (let i = 0; i < 3; i++) await getCase(client);
    expect(calls).toBe(1);
  });
});
