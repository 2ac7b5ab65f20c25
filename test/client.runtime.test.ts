// The client's own behaviour against a real loopback HTTP server standing in for the service and its auth server:
// base URLs, tokens (fixed, provider, refresh on expiry and once on 401, API-key exchange), pagination, errors,
// attachments as multipart and downloads.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { baseUrlFor, CareApiError, CareTokenError, createCareClient, DEFAULT_AUTH_URL, DEFAULT_HOST } from '../src/client/index.ts';
import { loadSpec } from '../src/spec/index.ts';

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  body: Buffer;
}

let server: Server;
let origin = '';
let seen: Seen[] = [];
let tokenRequests: URLSearchParams[] = [];
/** Tokens the fake service refuses with 401. */
let refusedTokens = new Set<string>();
let tokenLifetime = 3600;
const items = Array.from({ length: 7 }, (_, i) => ({ id: `CS00100${40 + i}` }));
let listBehaviour: 'honest' | 'stuck' | 'inflated' = 'honest';
const uploads: Array<{ field: string; filename: string; mimeType: string; bytes: Buffer }> = [];

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'X-CareAPI-Env': 'Sandbox', ...headers });
  res.end(JSON.stringify(body));
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url!, origin);
  if (url.pathname === '/auth/v2/oauth/token') {
    const form = new URLSearchParams((await readAll(req)).toString());
    tokenRequests.push(form);
    if (form.get('client_secret') !== 'ck_secret') return json(res, 401, { error: 'invalid_client', error_description: 'bad secret' });
    return json(res, 200, { access_token: `${form.get('audience')}-token-${tokenRequests.length}`, token_type: 'Bearer', expires_in: tokenLifetime });
  }
  const authorization = req.headers.authorization;
  if (url.pathname.endsWith('/attachments') && req.method === 'POST') {
    seen.push({ method: 'POST', url: url.href, authorization, body: Buffer.alloc(0) });
    const parser = busboy({ headers: req.headers });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => uploads.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) }));
    });
    parser.on('close', () => {
      const last = uploads.at(-1)!;
      json(res, 201, { meta: {}, data: { id: 'AT0030003', fileName: last.filename, contentType: last.mimeType, size: last.bytes.length } });
    });
    req.pipe(parser);
    return;
  }
  const body = await readAll(req);
  seen.push({ method: req.method!, url: url.href, authorization, body });
  const token = authorization?.replace(/^Bearer /, '');
  if (!token || refusedTokens.has(token)) {
    return json(res, 401, { meta: {}, errors: [{ status: '401', title: 'Unauthorized', detail: 'header.Authorization: invalid token', code: 'unauthorized' }] }, { 'WWW-Authenticate': 'Bearer' });
  }
  if (url.pathname.endsWith('/download')) {
    res.writeHead(200, { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="error-49.png"', 'X-CareAPI-Env': 'Sandbox' });
    return res.end(Buffer.from([137, 80, 78, 71, 13, 10]));
  }
  if (url.pathname.endsWith('/forbidden')) {
    return json(res, 403, {
      meta: {},
      errors: [
        { status: '403', title: 'Forbidden', detail: 'body.contract: contract CT9 is not yours', code: 'contract_forbidden' },
        { status: '403', title: 'Forbidden', detail: 'body.watchList.0: not a contact', code: 'contract_forbidden' },
      ],
    });
  }
  if (url.pathname.endsWith('/busy')) {
    return json(res, 429, { meta: {}, errors: [{ status: '429', title: 'Too Many Requests', detail: 'request: slow down', code: 'rate_limited' }] }, { 'Retry-After': '7' });
  }
  if (url.pathname.endsWith('/broken')) {
    res.writeHead(502, { 'content-type': 'text/plain' });
    return res.end('upstream down');
  }
  if (url.pathname.endsWith('/cases')) {
    const number = Number(url.searchParams.get('page[number]') ?? 1);
    const size = Number(url.searchParams.get('page[size]') ?? 50);
    const slice = items.slice((number - 1) * size, number * size);
    const page = { number: listBehaviour === 'stuck' ? 1 : number, size, count: slice.length, totalCount: listBehaviour === 'inflated' ? 100 : items.length };
    return json(res, 200, { meta: { page }, data: slice });
  }
  if (req.method === 'POST' && url.pathname.endsWith('/comments')) return json(res, 201, { meta: {}, data: JSON.parse(body.toString()) });
  return json(res, 200, { meta: {}, data: { id: url.pathname.split('/').at(-1) } });
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen = [];
  tokenRequests = [];
  refusedTokens = new Set();
  tokenLifetime = 3600;
  listBehaviour = 'honest';
});

const baseUrl = () => `${origin}/care/v0/sandbox`;
const jwt = (expiresIn: string) => new UnsecuredJWT({ sub: 'acct' }).setExpirationTime(expiresIn).encode();

describe('base URL', () => {
  it('follows the environment and host', () => {
    expect(baseUrlFor('production')).toBe('https://api.care.example/care/v0');
    expect(baseUrlFor('sandbox', 'care.acme.example')).toBe('https://care.acme.example/care/v0/sandbox');
    expect(createCareClient({ environment: 'sandbox', token: 't' }).baseUrl).toBe('https://api.care.example/care/v0/sandbox');
    expect(createCareClient({ environment: 'production', baseUrl: 'http://127.0.0.1:4010/', token: 't' }).baseUrl).toBe('http://127.0.0.1:4010');
    expect(() => baseUrlFor('staging' as never)).toThrow(/production.*sandbox/);
  });

  it('uses the defaults the description declares', () => {
    const { document } = loadSpec();
    expect(document.servers.every((s: any) => s.variables.host.default === DEFAULT_HOST)).toBe(true);
    expect(document.components.securitySchemes.apiKeyExchange.flows.clientCredentials.tokenUrl).toBe(`${DEFAULT_AUTH_URL}/oauth/token`);
    const paths = document.servers.map((s: any) => new URL(s.url.replace('{host}', DEFAULT_HOST)).href);
    expect(paths.sort()).toEqual([baseUrlFor('production'), baseUrlFor('sandbox')].sort());
  });
});

describe('tokens', () => {
  it('sends a fixed token and does not retry a 401 it cannot refresh', async () => {
    const client = createCareClient({ environment: 'sandbox', baseUrl: baseUrl(), token: 'fixed' });
    await client.GET('/cases/{caseId}', { params: { path: { caseId: 'CS0010042' } } });
    expect(seen[0].authorization).toBe('Bearer fixed');
    refusedTokens.add('fixed');
    await expect(client.GET('/cases/{caseId}', { params: { path: { caseId: 'CS0010042' } } })).rejects.toMatchObject({ status: 401 });
    expect(seen).toHaveLength(2);
  });

  it('caches a provider token until its JWT expires', async () => {
    let calls = 0;
    const lasting = createCareClient({ environment: 'sandbox', baseUrl: baseUrl(), getToken: async () => (calls++, jwt('1h')) });
    for (let i = 0; i < 3; i++) await lasting.GET('/contracts/{contractId}', { params: { path: { contractId: 'CT0000101' } } });
    expect(calls).toBe(1);

    let shortCalls = 0;
    const expiring = createCareClient({ environment: 'sandbox', baseUrl: baseUrl(), getToken: () => (shortCalls++, jwt('20s')) });
    for (let i = 0; i < 3; i++) await expiring.GET('/contracts/{contractId}', { params: { path: { contractId: 'CT0000101' } } });
    expect(shortCalls).toBe(1); // a life shorter than the 30 s margin is refreshed half-way through it, not per request
  });

  it('refreshes once on a 401 and replays the request with its body', async () => {
    const tokens = ['stale', 'fresh'];
    let calls = 0;
    refusedTokens.add('stale');
    const client = createCareClient({ environment: 'sandbox', baseUrl: baseUrl(), getToken: () => tokens[calls++] ?? 'later' });
    const { data, response } = await client.POST('/cases/{caseId}/comments', {
      params: { path: { caseId: 'CS0010042' } },
      body: { text: 'Replaced the fuser unit.', contact: 'ana.silva@customer.example', partnerComment: false },
    });
    expect(response.status).toBe(201);
    expect(calls).toBe(2);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer stale', 'Bearer fresh']);
    expect(seen[1].body.toString()).toBe(seen[0].body.toString());
    expect((data as any).data.text).toBe('Replaced the fuser unit.');
  });

  it('gives up after one refresh', async () => {
    let calls = 0;
    refusedTokens = new Set(['t1', 't2', 't3']);
    const client = createCareClient({ environment: 'sandbox', baseUrl: baseUrl(), getToken: () => `t${++calls}` });
    const error = await client.GET('/cases').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CareApiError);
    expect(calls).toBe(2);
    expect(seen).toHaveLength(2);
  });

  it('exchanges an API key for tokens with the audience of the environment (D-13)', async () => {
    const client = createCareClient({
      environment: 'sandbox',
      baseUrl: baseUrl(),
      apiKey: { keyId: 'AK0000007', secret: 'ck_secret' },
      authUrl: `${origin}/auth/v2`,
    });
    for (let i = 0; i < 2; i++) await client.GET('/contracts/{contractId}', { params: { path: { contractId: 'CT0000101' } } });
    expect(tokenRequests).toHaveLength(1);
    expect(Object.fromEntries(tokenRequests[0])).toEqual({
      grant_type: 'client_credentials',
      client_id: 'AK0000007',
      client_secret: 'ck_secret',
      audience: 'sandbox',
    });
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer sandbox-token-1', 'Bearer sandbox-token-1']);
  });

  it('refuses a token that is expired when given, keeps a short-lived one, and reports a failed exchange', async () => {
    tokenLifetime = 0; // expired as soon as it is given: refused (issue 48), not exchanged again on every request
    const client = createCareClient({ environment: 'production', baseUrl: baseUrl(), apiKey: { keyId: 'AK1', secret: 'ck_secret' }, authUrl: `${origin}/auth/v2` });
    for (let i = 0; i < 2; i++) {
      const expired = await client.GET('/contracts/{contractId}', { params: { path: { contractId: 'CT0000101' } } }).catch((e: unknown) => e);
      expect(expired).toBeInstanceOf(CareTokenError);
      expect((expired as Error).message).toMatch(/expires_in 0: the token is already expired/);
    }
    expect(tokenRequests.map((f) => f.get('audience'))).toEqual(['production', 'production']);

    tokenRequests = [];
    tokenLifetime = 20; // shorter than the 30 s margin: kept for half its life, not exchanged per request
    const shortLived = createCareClient({ environment: 'production', baseUrl: baseUrl(), apiKey: { keyId: 'AK1', secret: 'ck_secret' }, authUrl: `${origin}/auth/v2` });
    for (let i = 0; i < 3; i++) await shortLived.GET('/contracts/{contractId}', { params: { path: { contractId: 'CT0000101' } } });
    expect(tokenRequests).toHaveLength(1);

    const wrong = createCareClient({ environment: 'production', baseUrl: baseUrl(), apiKey: { keyId: 'AK1', secret: 'nope' }, authUrl: `${origin}/auth/v2` });
    const failed = await wrong.GET('/cases').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(CareTokenError);
    expect(failed).toMatchObject({ reason: 'token', status: 401, body: { error: 'invalid_client', error_description: 'bad secret' } });
    expect((failed as Error).message).toMatch(/API key exchange .* failed: bad secret/);
  });

  it('gives the raw openapi-fetch client the same auth, without throwing', async () => {
    const tokens = ['stale', 'fresh'];
    let calls = 0;
    refusedTokens.add('stale');
    const client = createCareClient({ environment: 'sandbox', baseUrl: baseUrl(), getToken: () => tokens[calls++] ?? 'later' });
    const ok = await client.raw.POST('/cases/{caseId}/comments', {
      params: { path: { caseId: 'CS0010042' } },
      body: { text: 'Replaced the fuser unit.', contact: 'ana.silva@customer.example', partnerComment: false },
    });
    expect(ok.response.status).toBe(201);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer stale', 'Bearer fresh']);
    expect(seen[1].body.toString()).toBe(seen[0].body.toString());
    const failed = await client.raw.GET('/cases/{caseId}', { params: { path: { caseId: 'forbidden' } } });
    expect(failed.response.status).toBe(403);
    expect(failed.error?.errors).toHaveLength(2);
  });

  it('refuses ambiguous credentials', () => {
    expect(() => createCareClient({ environment: 'sandbox', token: 'a', getToken: () => 'b' })).toThrow(/one of/);
  });
});

describe('paginate', () => {
  const client = () => createCareClient({ environment: 'sandbox', baseUrl: baseUrl(), token: 'fixed' });

  it('yields every item across pages, driven by meta.page', async () => {
    const ids: string[] = [];
    for await (const item of client().paginate('/cases', { params: { query: { page: { size: 3 }, filter: { status: 10 } } } })) ids.push(item.id);
    expect(ids).toEqual(items.map((i) => i.id));
    expect(seen.map((s) => new URL(s.url).searchParams.get('page[number]'))).toEqual(['1', '2', '3']);
    expect(seen.every((s) => new URL(s.url).searchParams.get('filter[status]') === '10')).toBe(true);
  });

  it('gives each page with its meta.page and environment', async () => {
    const seenPages: Array<[number, number, string | null]> = [];
    for await (const page of client().pages('/cases', { params: { query: { page: { size: 3 } } } })) {
      seenPages.push([page.data.meta.page.number, page.data.data.length, page.environment]);
    }
    expect(seenPages).toEqual([[1, 3, 'Sandbox'], [2, 3, 'Sandbox'], [3, 1, 'Sandbox']]);
  });

  it('starts at the page asked for', async () => {
    const ids: string[] = [];
    for await (const item of client().paginate('/cases', { params: { query: { page: { number: 2, size: 3 } } } })) ids.push(item.id);
    expect(ids).toEqual(items.slice(3).map((i) => i.id));
  });

  it('stops at an empty page even when totalCount says more', async () => {
    listBehaviour = 'inflated';
    const ids: string[] = [];
    for await (const item of client().paginate('/cases', { params: { query: { page: { size: 3 } } } })) ids.push(item.id);
    expect(ids).toHaveLength(7);
    expect(seen).toHaveLength(3); // the third page is short: the last one
  });

  it('refuses a server that goes backwards instead of looping', async () => {
    listBehaviour = 'stuck';
    const run = async () => {
      for await (const _ of client().paginate('/cases', { params: { query: { page: { size: 3 } } } }));
    };
    await expect(run()).rejects.toThrow(/asked for page 2, the answer says page 1/);
    expect(seen.length).toBeLessThanOrEqual(2);
  });
});

describe('errors', () => {
  const client = () => createCareClient({ environment: 'sandbox', baseUrl: baseUrl(), token: 'fixed' });

  it('turns an error envelope into a CareApiError with every error object and the environment', async () => {
    const error = (await client().GET('/cases/{caseId}', { params: { path: { caseId: 'forbidden' } } }).catch((e: unknown) => e)) as CareApiError;
    expect(error).toBeInstanceOf(CareApiError);
    expect(error.status).toBe(403);
    expect(error.environment).toBe('Sandbox');
    expect(error.errors.map((e) => e.detail)).toEqual(['body.contract: contract CT9 is not yours', 'body.watchList.0: not a contact']);
    expect(error.message).toContain('contract CT9 is not yours');
  });

  it('keeps a body that is not an envelope', async () => {
    const error = (await client().GET('/cases/{caseId}', { params: { path: { caseId: 'broken' } } }).catch((e: unknown) => e)) as CareApiError;
    expect(error.status).toBe(502);
    expect(error.errors).toEqual([]);
    expect(error.environment).toBeNull();
    expect(error.body).toBe('upstream down');
  });

  it('reads Retry-After of a 429', async () => {
    const error = (await client().GET('/cases/{caseId}', { params: { path: { caseId: 'busy' } } }).catch((e: unknown) => e)) as CareApiError;
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBe(7);
    expect(error.errors[0].code).toBe('rate_limited');
  });

  it('refuses an empty in list before sending anything', async () => {
    await expect(client().GET('/cases', { params: { query: { filter: { priority: { in: [] } } } } })).rejects.toThrow(/at least one value/);
    expect(seen).toHaveLength(0);
  });

  it('passes an AbortSignal through to fetch', async () => {
    const aborted = client().GET('/cases/{caseId}', { params: { path: { caseId: 'CS0010042' } }, signal: AbortSignal.abort() });
    const error = await aborted.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CareApiError);
    expect(error).toMatchObject({ reason: 'aborted', status: 0, cause: { name: 'AbortError' } });
    expect(seen).toHaveLength(0);
  });

  it('tells which environment served a success', async () => {
    const { environment } = await client().GET('/cases/{caseId}', { params: { path: { caseId: 'CS0010042' } } });
    expect(environment).toBe('Sandbox');
  });
});

describe('attachments', () => {
  const client = () => createCareClient({ environment: 'sandbox', baseUrl: baseUrl(), token: 'fixed' });
  const bytes = Buffer.from('%PDF-1.7 fake but binary \u0000\u00ff', 'latin1');

  it.each([
    ['Buffer', () => bytes],
    ['Blob', () => new Blob([bytes], { type: 'application/pdf' })],
    ['Node stream', () => Readable.from([bytes.subarray(0, 5), bytes.subarray(5)])],
    ['web stream', () => Readable.toWeb(Readable.from([bytes])) as ReadableStream<Uint8Array>],
  ])('uploads from a %s as multipart part "file"', async (_kind, source) => {
    const { data, response } = await client().uploadAttachment('CS0010042', source(), { filename: 'invoice.pdf', contentType: 'application/pdf' });
    expect(response.status).toBe(201);
    const last = uploads.at(-1)!;
    expect(last).toMatchObject({ field: 'file', filename: 'invoice.pdf', mimeType: 'application/pdf' });
    expect(last.bytes.equals(bytes)).toBe(true);
    expect(data.data.fileName).toBe('invoice.pdf');
  });

  it('takes the name and type of a File', async () => {
    await client().uploadAttachment('CS0010042', new File([bytes], 'screen.png', { type: 'image/png' }));
    expect(uploads.at(-1)).toMatchObject({ filename: 'screen.png', mimeType: 'image/png' });
  });

  it('needs a filename for nameless sources', async () => {
    await expect(client().uploadAttachment('CS0010042', bytes)).rejects.toThrow(/filename/);
  });

  it('downloads as bytes or as a stream', async () => {
    const asBytes = await client().downloadAttachment('CS0010042', 'AT0030003');
    expect([...asBytes.data]).toEqual([137, 80, 78, 71, 13, 10]);
    expect(asBytes).toMatchObject({ contentType: 'image/png', fileName: 'error-49.png', environment: 'Sandbox' });
    const asStream = await client().downloadAttachment('CS0010042', 'AT0030003', { as: 'stream' });
    const streamed = Buffer.from(await new Response(asStream.data).arrayBuffer());
    expect([...streamed]).toEqual([137, 80, 78, 71, 13, 10]);
  });
});
