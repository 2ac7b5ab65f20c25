// The client against servers that misbehave on purpose (issue 40, test/support/misbehaving-server.ts): every failure
// is a typed CareApiError with status and body, every call ends (token included), pagination ends on any meta.page.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CareApiError,
  CarePaginationError,
  CareTokenError,
  createCareClient,
  DEFAULT_TIMEOUT_MS,
  type CareClientOptions,
} from '../src/client/index.ts';
import { loadSpec } from '../src/spec/index.ts';
import { API, clientOf, failure, getCase } from './support/misbehaving-client.ts';
import { behave, startMisbehavingServer, startSilentServer, type Behaviour, type MisbehavingServer } from './support/misbehaving-server.ts';

const TOKEN = '/auth/v2/oauth/token';
const caseBody = { meta: {}, data: { id: 'CS0010042' } };

let servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(routes: Record<string, Behaviour>, fallback?: Behaviour): Promise<MisbehavingServer> {
  const server = await startMisbehavingServer(routes, fallback);
  servers.push(server);
  return server;
}


const tokenAnswer = (expiresIn = 3600) => behave.json(200, { access_token: 'key-token', token_type: 'Bearer', expires_in: expiresIn });
const apiKey = { keyId: 'AK0000007', secret: 'ck_secret' };

describe('a 2xx whose body cannot be read is a CareApiError with status and body', () => {
  it.each([
    ['text', behave.text(200, 'all good'), 'all good'],
    ['HTML', behave.html(200), expect.stringContaining('<html>')],
    ['truncated JSON', behave.truncatedJson(200), '{"meta":{"page":{"number":1,'],
  ])('%s', async (_kind, behaviour, body) => {
    const server = await serve({ [`${API}/cases/CS0010042`]: behaviour });
    const error = await failure(getCase(clientOf(server)));
    expect(error).toMatchObject({ reason: 'unreadable_body', status: 200, environment: 'Sandbox', body });
    expect(error.message).toMatch(/200 OK with a body that is not JSON/);
    expect(error.response?.status).toBe(200);
  });

  it('a connection cut mid-body', async () => {
    const server = await serve({ [`${API}/cases/CS0010042`]: behave.cutConnection(200) });
    const error = await failure(getCase(clientOf(server)));
    expect(error).toMatchObject({ reason: 'unreadable_body', status: 200, body: undefined });
    expect(error.message).toMatch(/body could not be read/);
  });

  it.each([
    ['Content-Length: 0', behave.empty(200)],
    ['chunked with no chunk', behave.empty(200, { chunked: true })],
    ['a 201', behave.empty(201)],
  ])('an empty body where one is declared (%s)', async (_kind, behaviour) => {
    const server = await serve({ [`${API}/cases/CS0010042`]: behaviour, [`${API}/cases`]: behaviour });
    const error = await failure(getCase(clientOf(server)));
    expect(error).toMatchObject({ reason: 'empty_body', body: '' });
    expect(error.status).toBeGreaterThanOrEqual(200);
    expect(error.message).toMatch(/empty body/);
  });

  it('every 2xx of the description but 204 declares a body, so an empty one is always an error', () => {
    const { document } = loadSpec();
    const withoutBody: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation?.responses ?? {})) {
          if (!/^2/.test(status)) continue;
          const resolved = response.$ref ? document.components.responses[response.$ref.split('/').pop()] : response;
          if (!resolved.content) withoutBody.push(`${status} ${method} ${path}`);
        }
      }
    }
    expect(withoutBody.length).toBeGreaterThan(0);
    expect(withoutBody.every((line) => line.startsWith('204 '))).toBe(true);
  });

  it('an empty download is an empty file, not an error (its body is any bytes)', async () => {
    const server = await serve({ [`${API}/cases/CS0010042/attachments/AT0030003/download`]: behave.empty(200, { contentType: 'text/plain' }) });
    const { data } = await clientOf(server).downloadAttachment('CS0010042', 'AT0030003');
    expect(data).toHaveLength(0);
  });
});

describe('other failures are CareApiErrors too', () => {
  it('an error answer cut mid-body keeps its status', async () => {
    const server = await serve({ [`${API}/cases/CS0010042`]: behave.cutConnection(502) });
    const error = await failure(getCase(clientOf(server)));
    expect(error).toMatchObject({ reason: 'status', status: 502, body: undefined });
    expect(error.message).toMatch(/502.*could not be read/);
  });

  it('an HTML error page keeps its status and text', async () => {
    const server = await serve({ [`${API}/cases/CS0010042`]: behave.html(503) });
    const error = await failure(getCase(clientOf(server)));
    expect(error).toMatchObject({ reason: 'status', status: 503, errors: [] });
    expect(error.body).toMatch(/<html>/);
  });

  it('a connection closed without an answer is a network failure', async () => {
    const server = await serve({ [`${API}/cases/CS0010042`]: behave.hangUp() });
    const error = await failure(getCase(clientOf(server)));
    expect(error).toMatchObject({ reason: 'network', status: 0, response: undefined });
    expect(error.message).toContain(server.url);
  });

  it.each([
    ['1.5', 1.5],
    ['7', 7],
    ['-5', null],
    ['soon', null],
    ['Thu, 01 Jan 1970 00:00:00 GMT', 0],
  ])('reads Retry-After %j as %j', async (value, seconds) => {
    const busy = behave.json(429, { meta: {}, errors: [{ status: '429', title: 'Too Many Requests', detail: 'request: slow down', code: 'rate_limited' }] }, { 'Retry-After': value });
    const server = await serve({ [`${API}/cases/CS0010042`]: busy });
    const error = await failure(getCase(clientOf(server)));
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBe(seconds);
  });
});

describe('every call ends: the signal and timeoutMs cover the whole call, token included', () => {
  it('has a documented default timeout', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    expect(readFileSync(new URL('../docs/client.md', import.meta.url), 'utf8')).toMatch(/`timeoutMs`[^\n]*30 000/);
  });

  it('a hanging token service does not hang a call that has AbortSignal.timeout', async () => {
    const server = await serve({ [TOKEN]: behave.silent(), [`${API}/cases/CS0010042`]: behave.json(200, caseBody) });
    const client = clientOf(server, { token: undefined, apiKey });
    const error = await failure(getCase(client, { signal: AbortSignal.timeout(300) }));
    expect(error).toMatchObject({ reason: 'timeout', status: 0 });
    expect(error.message).toMatch(/while getting a token/);
    expect(server.requests.map((r) => r.url)).toEqual([TOKEN]); // the call itself was never sent
  });

  it('the client timeout covers a hanging token service without any signal', async () => {
    const server = await serve({ [TOKEN]: behave.silent() });
    const error = await failure(getCase(clientOf(server, { token: undefined, apiKey, timeoutMs: 300 })));
    // The call's timer started before the token's own (same length), so the call's ends it first.
    expect(error).toMatchObject({ reason: 'timeout', status: 0 });
    expect(error.message).toMatch(/timed out while getting a token/);
  });

  it('the client timeout covers a server that never answers', async () => {
    const silent = await startSilentServer();
    servers.push(silent);
    const error = await failure(getCase(clientOf(silent, { timeoutMs: 300 })));
    expect(error).toMatchObject({ reason: 'timeout', status: 0 });
    expect(silent.connections).toBe(1);
  });

  it('a hanging getToken fails once and is asked again by the next call', async () => {
    const server = await serve({ [`${API}/cases/CS0010042`]: behave.json(200, caseBody) });
    let calls = 0;
    const client = clientOf(server, {
      token: undefined,
      timeoutMs: 1000,
      getToken: () => (++calls === 1 ? new Promise<string>(() => undefined) : 'second'),
    });
    await failure(getCase(client));
    const { data } = await getCase(client);
    expect(data.data.id).toBe('CS0010042');
    expect(calls).toBe(2);
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer second');
  });

  it("one caller's abort ends only its own wait for a shared token", async () => {
    let release!: () => void;
    let asked!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const tokenAsked = new Promise<void>((resolve) => (asked = resolve));
    const slowToken: Behaviour = async (req, res, body) => {
      asked();
      await gate;
      tokenAnswer()(req, res, body);
    };
    const server = await serve({ [TOKEN]: slowToken, [`${API}/cases/CS0010042`]: behave.json(200, caseBody) });
    const client = clientOf(server, { token: undefined, apiKey });
    const controller = new AbortController();
    const first = getCase(client, { signal: controller.signal });
    const second = getCase(client);
    await tokenAsked;
    controller.abort();
    expect(await failure(first)).toMatchObject({ reason: 'aborted' });
    release();
    expect((await second).data.data.id).toBe('CS0010042');
    expect(server.requests.filter((r) => r.url === TOKEN)).toHaveLength(1);
  });
});

describe('getting a token fails typed, saying what happened', () => {
  it.each([
    ['200 with HTML', behave.html(200), 200, /200 OK with a body that is not JSON \(text\/html\)/],
    ['200 with truncated JSON', behave.truncatedJson(200), 200, /not JSON/],
    ['200 without access_token', behave.json(200, { token_type: 'Bearer' }), 200, /without an access_token/],
    ['200 with an empty body', behave.empty(200), 200, /without an access_token/],
    ['500 with text', behave.text(500, 'auth down'), 500, /500 Internal Server Error with a body that is not JSON/],
    ['a cut connection', behave.cutConnection(200), 200, /body unreadable/],
    ['a hang-up', behave.hangUp(), 0, /no answer/],
  ])('the API-key exchange answering %s', async (_kind, behaviour, status, message) => {
    const server = await serve({ [TOKEN]: behaviour });
    const error = await failure(getCase(clientOf(server, { token: undefined, apiKey })));
    expect(error).toBeInstanceOf(CareTokenError);
    expect(error).toMatchObject({ reason: 'token', status });
    expect(error.message).toMatch(/API key exchange at .*\/oauth\/token failed/);
    expect(error.message).toMatch(message);
    expect(server.requests.map((r) => r.url)).toEqual([TOKEN]);
  });

  it('keeps the body of the exchange answer', async () => {
    const server = await serve({ [TOKEN]: behave.html(200) });
    const error = await failure(getCase(clientOf(server, { token: undefined, apiKey })));
    expect(error.body).toMatch(/<html>/);
  });

  it('a getToken that throws, or returns nothing', async () => {
    const server = await serve({});
    const thrown = await failure(getCase(clientOf(server, { token: undefined, getToken: () => Promise.reject(new Error('vault sealed')) })));
    expect(thrown).toBeInstanceOf(CareTokenError);
    expect(thrown.message).toMatch(/vault sealed/);
    expect((thrown.cause as Error).message).toBe('vault sealed');
    const empty = await failure(getCase(clientOf(server, { token: undefined, getToken: () => '' })));
    expect(empty).toBeInstanceOf(CareTokenError);
    expect(server.requests).toHaveLength(0);
  });

  it('a lifetime under the 30 s margin is kept, not exchanged per request; 50 parallel calls share one exchange', async () => {
    // A 20 s life is under the 30 s margin: the token is kept for 10 s, not exchanged per request.
    const server = await serve({ [TOKEN]: tokenAnswer(20), [`${API}/cases/CS0010042`]: behave.json(200, caseBody) });
    const client = clientOf(server, { token: undefined, apiKey });
    await Promise.all(Array.from({ length: 50 }, () => getCase(client)));
    for (let i = 0; i < 5; i++) await getCase(client);
    expect(server.requests.filter((r) => r.url === TOKEN)).toHaveLength(1);
    expect(server.requests.filter((r) => r.url !== TOKEN).every((r) => r.headers.authorization === 'Bearer key-token')).toBe(true);
  });
});

describe('what already worked stays', () => {
  it('a redirect to another origin never carries the token', async () => {
    const elsewhere = await serve({}, behave.json(200, caseBody));
    const server = await serve({
      [`${API}/cases/CS0010042`]: (_req, res) => {
        res.writeHead(307, { location: `${elsewhere.url}${API}/cases/CS0010042` });
        res.end();
      },
    });
    const { data } = await getCase(clientOf(server, { token: 'secret-token' }));
    expect(data.data.id).toBe('CS0010042');
    expect(server.requests[0].headers.authorization).toBe('Bearer secret-token');
    expect(elsewhere.requests).toHaveLength(1);
    expect(elsewhere.requests[0].headers.authorization).toBeUndefined();
  });
});

describe('paginate and pages end on any server behaviour', () => {
  const items = Array.from({ length: 7 }, (_, i) => ({ id: `CS00100${40 + i}` }));

  /** Walks the list, but never more than 50 items: a walk that would go on forever fails instead of hanging. */
  async function walk(list: Behaviour, size = 3): Promise<{ ids: string[]; error?: CarePaginationError; server: MisbehavingServer }> {
    const server = await serve({ [`${API}/cases`]: list });
    const ids: string[] = [];
    try {
      for await (const item of clientOf(server).paginate('/cases', { params: { query: { page: { size } } } })) {
        ids.push(item.id);
        if (ids.length > 50) throw new Error('paginate did not end');
      }
    } catch (error) {
      expect(error).toBeInstanceOf(CarePaginationError);
      return { ids, error: error as CarePaginationError, server };
    }
    return { ids, server };
  }

  const ignoresNumber = { data: (_slice: unknown[], asked: { size: number }) => items.slice(0, asked.size) };

  it.each([
    ['totalCount is missing', (h: any) => ({ ...h, totalCount: undefined }), /meta\.page\.totalCount is missing/],
    ['size is missing', (h: any) => ({ ...h, size: undefined }), /meta\.page\.size is missing/],
    ['number is missing', (h: any) => ({ ...h, number: undefined }), /meta\.page\.number is missing/],
  ])('%s (and the server ignores page[number])', async (_what, meta, why) => {
    const { error, ids } = await walk(behave.list(items, meta, ignoresNumber));
    expect(error?.message).toMatch(why);
    expect(error).toMatchObject({ reason: 'pagination', pageNumber: 1, status: 200 });
    expect(ids).toEqual([]);
  });

  it('repeated pages under a lying totalCount', async () => {
    const { error, ids, server } = await walk(behave.list(items, (h) => ({ ...h, totalCount: 1_000_000 }), ignoresNumber));
    expect(error?.message).toMatch(/page 2 has the same items as page 1/);
    expect(error?.pageNumber).toBe(2);
    expect(ids).toHaveLength(3);
    expect(server.requests).toHaveLength(2);
  });

  it('a string page number, which would skip pages', async () => {
    const { error, ids } = await walk(behave.list(items, (h) => ({ ...h, number: String(h.number) })));
    expect(error?.message).toMatch(/meta\.page\.number is "1"/);
    expect(ids).toEqual([]);
  });

  it('a page number other than the one asked for', async () => {
    const { error } = await walk(behave.list(items, (h, asked) => ({ ...h, number: asked.number + 1 })));
    expect(error?.message).toMatch(/asked for page 1, the answer says page 2/);
  });

  it('more items than size, or a first page with more items than totalCount', async () => {
    const oversized = await walk(behave.list(items, (h) => ({ ...h, size: 2 })));
    expect(oversized.error?.message).toMatch(/3 items, more than meta\.page\.size 2/);
    const undercounted = await walk(behave.list(items, (h) => ({ ...h, totalCount: 1 })));
    expect(undercounted.error?.message).toMatch(/3 items, more than meta\.page\.totalCount 1/);
  });

  it('an answer without a data list or meta.page', async () => {
    // Without `data` the answer is not the declared body: the call itself fails (issue 48), before paginate judges it.
    const server = await serve({ [`${API}/cases`]: behave.json(200, { meta: { page: { number: 1, size: 3, totalCount: 7 } } }) });
    const noData = await failure(clientOf(server).paginate('/cases').next());
    expect(noData).toMatchObject({ reason: 'unreadable_body', status: 200 });
    expect(noData.message).toMatch(/not the declared body: no `data`/);
    const notAList = await walk(behave.json(200, { meta: { page: { number: 1, size: 3, totalCount: 7 } }, data: { id: 'CS0010042' } }));
    expect(notAList.error?.message).toMatch(/no `data` list/);
    const noMeta = await walk(behave.json(200, { meta: {}, data: items.slice(0, 3) }));
    expect(noMeta.error?.message).toMatch(/no `meta\.page`/);
  });

  it('ends normally on an empty page, a short page, or a totalCount that lies high', async () => {
    const honest = await walk(behave.list(items));
    expect(honest.ids).toEqual(items.map((i) => i.id));
    expect(honest.error).toBeUndefined();
    const inflated = await walk(behave.list(items, (h) => ({ ...h, totalCount: 100 })));
    expect(inflated.ids).toHaveLength(7);
    expect(inflated.error).toBeUndefined();
    const exact = await walk(behave.list(items.slice(0, 6), (h) => ({ ...h, totalCount: 100 })));
    expect(exact.ids).toHaveLength(6); // pages 1, 2 full, page 3 empty
    expect(exact.server.requests).toHaveLength(3);
  });

  it('stops at the last page the first totalCount announces, whatever later pages claim', async () => {
    const growing = await walk(behave.list(items, (h) => ({ ...h, totalCount: h.number === 1 ? 6 : 1000 + h.number })));
    expect(growing.ids).toHaveLength(6);
    expect(growing.error).toBeUndefined();
  });

  it('pages() stops the same way', async () => {
    const server = await serve({ [`${API}/cases`]: behave.list(items, (h) => ({ ...h, size: undefined }), ignoresNumber) });
    const run = async () => {
      for await (const _ of clientOf(server).pages('/cases', { params: { query: { page: { size: 3 } } } }));
    };
    await expect(run()).rejects.toBeInstanceOf(CarePaginationError);
  });
});
