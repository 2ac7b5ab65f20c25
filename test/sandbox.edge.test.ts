// Issue 47, the sandbox's edge over raw sockets and fetch: one Host naming this sandbox (a rebinding name 421, two
// lines 400), the demo keys and the agent API kept from other sites while the API keeps its CORS (D-111, D-112),
// Node's own answers (Expect, CONNECT) in the envelope, nosniff and a CSP on every answer, multipart parsing that
// stops at its parts limit and keeps the first `file` part (D-114), the docs served with validators, compression
// and hashed asset names (D-115), and the IPv4-compatible IPv6 form refused by the delivery guard (D-94).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal } from '../src/sandbox/delivery-target.ts';
import { repoRoot } from '../src/spec/index.ts';
import { BASES, customerCase, startHarness } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';
import { rawExchange } from './support/raw-http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ seedCases: 20 });
});
afterAll(() => h?.close());

const raw = (bytes: string | Buffer, timeoutMs?: number) => rawExchange(h.sandbox.port, bytes, timeoutMs);
const get = (target: string, headers = 'Host: localhost\r\n') => `GET ${target} HTTP/1.1\r\n${headers}\r\n`;
const errorsOf = (body: string) => JSON.parse(body).errors as Array<{ status: string; code: string; detail: string }>;

describe('Host names this sandbox (D-112, D-114)', () => {
  it('refuses a rebinding name with 421 in the envelope, on the API, the docs, the demo keys and the agent API', async () => {
    for (const [target, env] of [[`${BASES.sandbox}/cases`, 'Sandbox'], [`${BASES.production}/contracts`, 'Production'], ['/docs/try-it.json', undefined], ['/_agent', undefined], ['/docs/', undefined]] as const) {
      const answer = await raw(get(target, 'Host: rebind.attacker.example:4020\r\n'));
      expect(answer.status, target).toBe(421);
      expect(answer.headers['x-careapi-env'], target).toBe(env);
      expect(errorsOf(answer.body)[0]).toMatchObject({ status: '421', code: 'misdirected_host', detail: expect.stringMatching(/^header\.Host: rebind\.attacker\.example is not a name of this sandbox/) });
      expect(answer.body).not.toContain(h.sandbox.demo.sandbox.customer.apiKeySecret);
    }
  });

  it('accepts loopback names and IP addresses, and refuses a Host that is not one host', async () => {
    for (const host of ['localhost', 'LOCALHOST:4020', 'app.localhost', 'localhost.', '127.0.0.1', `127.0.0.1:${h.sandbox.port}`, '[::1]:4020', '192.168.1.20:4020']) {
      expect((await raw(get('/docs/try-it.json', `Host: ${host}\r\n`))).status, host).toBe(200);
    }
    for (const host of ['localhost@evil.example', 'evil.example/x', 'a b']) {
      const answer = await raw(get('/docs/try-it.json', `Host: ${host}\r\n`));
      expect(answer.status, host).toBe(400);
      expect(errorsOf(answer.body)[0].code).toBe('invalid_host');
    }
  });

  it('answers two Host lines 400 (RFC 9112 section 3.2), in the envelope with the environment', async () => {
    const answer = await raw(get(`${BASES.sandbox}/cases`, 'Host: localhost\r\nHost: evil.example\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.headers['x-careapi-env']).toBe('Sandbox');
    expect(errorsOf(answer.body)[0]).toMatchObject({ code: 'duplicate_host', detail: 'header.Host: sent 2 times; a request names one host (RFC 9112 section 3.2)' });
  });
});

describe('the demo keys and the agent API are not for other sites; the API keeps its CORS (D-42, D-111)', () => {
  it('refuses another origin, a cross-site or same-site fetch, with no CORS header; serves the same origin', async () => {
    const origin = h.origin;
    for (const path of ['/docs/try-it.json', '/_agent']) {
      for (const headers of [{ origin: 'http://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'http://localhost:1' }] as Array<Record<string, string>>) {
        const answer = await fetch(origin + path, { headers });
        expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(answer.headers.get('access-control-allow-origin')).toBeNull();
        expect((await answer.json()).errors[0].code).toBe('cross_site');
      }
      const preflight = await fetch(origin + path, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } });
      expect(preflight.status).toBe(403);
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      for (const headers of [{ origin }, { 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, {}] as Array<Record<string, string>>) {
        const answer = await fetch(origin + path, { headers });
        expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(200);
        expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      }
    }
    const created = await fetch(`${origin}/_agent/sandbox/cases`, { method: 'POST', headers: { origin: 'http://evil.example', 'content-type': 'text/plain' }, body: '{"shortDescription":"csrf"}' });
    expect(created.status).toBe(403);
  });

  it('keeps ACAO: * and preflights on the API and the token endpoint', async () => {
    const api = await h.call('sandbox', 'customer', 'GET', '/contracts', undefined, { origin: 'http://frontend.example' });
    expect(api.status).toBe(200);
    expect(api.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await fetch(`${h.origin}${BASES.production}/cases`, { method: 'OPTIONS', headers: { origin: 'http://frontend.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const token = await fetch(`${h.origin}/auth/v2/oauth/token`, { method: 'OPTIONS', headers: { origin: 'http://frontend.example', 'access-control-request-method': 'POST' } });
    expect(token.status).toBe(204);
  });
});

describe("Node's own answers in the envelope (D-114)", () => {
  it('an Expect other than 100-continue is 417 with the environment, and the connection closes', async () => {
    for (const [base, env] of [[BASES.sandbox, 'Sandbox'], [BASES.production, 'Production']] as const) {
      const answer = await raw(`POST ${base}/cases HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
      expect(answer.status).toBe(417);
      expect(answer.headers['x-careapi-env']).toBe(env);
      expect(answer.headers.connection).toBe('close');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(errorsOf(answer.body)[0]).toMatchObject({ status: '417', code: 'expectation_failed', detail: 'header.Expect: only 100-continue is supported, got "foo"' });
    }
  });

  it('CONNECT is 405 with an empty Allow, in its environment (production when the target names none)', async () => {
    const api = await raw(`CONNECT ${BASES.sandbox}/cases HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(api.status).toBe(405);
    expect(api.headers['x-careapi-env']).toBe('Sandbox');
    expect(api.headers.allow).toBe('');
    expect(errorsOf(api.body)[0].code).toBe('method_not_allowed');
    const authority = await raw('CONNECT 169.254.169.254:80 HTTP/1.1\r\nHost: 169.254.169.254:80\r\n\r\n');
    expect(authority.status).toBe(405);
    expect(authority.headers['x-careapi-env']).toBe('Production');
  });

  it('every answer says nosniff; API answers forbid rendering and framing, docs pages carry their own policy', async () => {
    const api = await h.call('sandbox', 'customer', 'GET', '/contracts');
    expect(api.headers.get('x-content-type-options')).toBe('nosniff');
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
    const parserRefusal = await raw('G@T / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(parserRefusal.headers['x-content-type-options']).toBe('nosniff');
    for (const page of ['/docs/', '/docs/console.html']) {
      const answer = await fetch(h.origin + page);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp, page).toContain("frame-ancestors 'none'");
      expect(csp, page).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
    }
  });
});

describe('uploads (D-93, D-114)', () => {
  const BOUNDARY = 'edge-boundary';
  const part = (name: string, content: string, filename = 'f.txt') => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n`;

  it('keeps the first of two `file` parts, even when both arrive in one chunk', async () => {
    const { id } = await customerCase(h);
    const body = part('file', 'first', 'first.txt') + part('file', 'second', 'second.txt') + `--${BOUNDARY}--\r\n`;
    const answer = await h.call('sandbox', 'customer', 'POST', `/cases/${id}/attachments`, new Uint8Array(Buffer.from(body)), { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.json.data.fileName).toBe('first.txt');
    const download = await h.call('sandbox', 'customer', 'GET', `/cases/${id}/attachments/${answer.json.data.id}/download`);
    expect(download.text).toBe('first');
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves an attachment of type text/html or image/svg+xml as that type, but nothing in it can run', async () => {
    const { id } = await customerCase(h);
    for (const [type, content] of [['text/html', '<script>alert(1)</script>'], ['image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>']]) {
      const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="page"\r\nContent-Type: ${type}\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`;
      const created = await h.call('sandbox', 'customer', 'POST', `/cases/${id}/attachments`, new Uint8Array(Buffer.from(body)), { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` });
      expect(created.status, created.text).toBe(201);
      const download = await h.call('sandbox', 'customer', 'GET', `/cases/${id}/attachments/${created.json.data.id}/download`);
      expect(download.headers.get('content-type')).toBe(type);
      expect(download.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(download.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
    }
  });

  it('answers a body of millions of boundary lines at the parts limit, before the rest of it is even sent', async () => {
    const { id } = await customerCase(h);
    const line = `--${BOUNDARY}\r\n`;
    const declared = 10 * 1024 * 1024;
    const head = `POST ${BASES.sandbox}/cases/${id}/attachments HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${h.tokens.sandbox.customer}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${declared}\r\n\r\n`;
    // 64 KiB of the 10 MiB: some 4,000 parts, beyond the limit of 100; the rest is never written
    const answer = await raw(head + line.repeat(Math.floor(65_536 / line.length)), 20_000);
    expect(answer.status, answer.failure).toBe(400);
    expect(answer.headers['x-careapi-env']).toBe('Sandbox');
    expect(errorsOf(answer.body)[0].detail).toBe('body: more than 100 parts; the part `file` must be among the first 100');
  });
});

describe('the docs as a docs host serves them (D-115)', () => {
  const docs = join(repoRoot, 'generated/docs');

  it('names the assets of a page by their hash and keeps those a year; a plain name is revalidated', async () => {
    const page = await (await fetch(`${h.origin}/docs/`)).text();
    const hashed = /<script src="(redoc\.standalone\.([0-9a-f]{12})\.js)"/.exec(page);
    expect(hashed, page.slice(0, 600)).not.toBeNull();
    const asset = await fetch(`${h.origin}/docs/${hashed![1]}`, { headers: { 'accept-encoding': 'identity' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await asset.arrayBuffer()).equals(readFileSync(join(docs, 'redoc.standalone.js')))).toBe(true);
    expect((await fetch(`${h.origin}/docs/redoc.standalone.000000000000.js`)).status).toBe(404);
    const plain = await fetch(`${h.origin}/docs/redoc.standalone.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('cache-control')).toBe('no-cache');
    await plain.arrayBuffer();
  });

  it('answers 304 to a current ETag or Last-Modified, 200 to a stale one', async () => {
    const first = await fetch(`${h.origin}/docs/swagger-ui.css`, { headers: { 'accept-encoding': 'identity' } });
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const byTag = await fetch(`${h.origin}/docs/swagger-ui.css`, { headers: { 'if-none-match': etag } });
    expect(byTag.status).toBe(304);
    expect(byTag.headers.get('etag')).toBeTruthy();
    expect((await byTag.arrayBuffer()).byteLength).toBe(0);
    expect((await fetch(`${h.origin}/docs/swagger-ui.css`, { headers: { 'if-modified-since': lastModified } })).status).toBe(304);
    const stale = await fetch(`${h.origin}/docs/swagger-ui.css`, { headers: { 'if-none-match': '"0000"', 'accept-encoding': 'identity' } });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
    expect((await fetch(`${h.origin}/openapi/care-api.yaml`, { headers: { 'if-none-match': (await fetch(`${h.origin}/openapi/care-api.yaml`)).headers.get('etag')! } })).status).toBe(304);
  });

  it('compresses with brotli or gzip as the client accepts, the same bytes once decoded', async () => {
    const file = readFileSync(join(docs, 'swagger-ui-bundle.js'));
    const { request } = await import('node:http');
    // fetch would decode the body itself: read it as sent
    const sent = (encoding: string) =>
      new Promise<{ headers: Record<string, unknown>; bytes: Buffer }>((resolve, reject) => {
        request(`${h.origin}/docs/swagger-ui-bundle.js`, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
        }).on('error', reject).end();
      });
    const br = await sent('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.bytes.length).toBeLessThan(file.length / 3);
    expect(brotliDecompressSync(br.bytes).equals(file)).toBe(true);
    const gzip = await sent('gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.bytes).equals(file)).toBe(true);
    const none = await sent('br;q=0, gzip;q=0');
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.bytes.equals(file)).toBe(true);
  });
});

describe('the delivery guard and the IPv4-compatible IPv6 form (D-94)', () => {
  it('refuses ::/96 (::7f00:1 is 127.0.0.1 to some stacks) and IPv6 outside 2000::/3, keeps global unicast', () => {
    for (const address of ['::7f00:1', '::a00:1', '::a9fe:a9fe', '0:0:0:0:0:0:7f00:1']) expect(addressRefusal(address, 'public'), address).toMatch(/ipv4Compatible, not a public address$/);
    expect(addressRefusal('4000::1', 'public')).toMatch(/unallocated, not a public address$/);
    expect(addressRefusal('::7f00:1', 'loopback')).toMatch(/not a loopback address/);
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001::1', '8.8.8.8']) expect(addressRefusal(address, 'public'), address).toBeUndefined();
  });
});
