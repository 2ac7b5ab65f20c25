// Issue 34, uploads and webhooks: multipart bodies written by hand as the outside world sends them (exact bytes
// whatever charset a part declares, no wildcard media types, the exact 10 MiB limit, names cut by code points, many
// parts before `file`; D-66, D-10, D-82, D-93), webhook URLs without user information and basic-auth user names
// without `:` (D-16), and production deliveries refused for internal addresses when connecting, after name
// resolution (D-94). No test here sends a packet to a non-loopback address: names are resolved by the test's own
// resolver, and every sandbox that could connect elsewhere is given a connector that refuses anything but loopback.
import { createHash } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/sandbox/app.ts';
import type { Sandbox, SandboxOptions } from '../src/sandbox/app.ts';
import { addressRefusal, connectSocket } from '../src/sandbox/delivery-target.ts';
import type { ConnectTarget, Resolver } from '../src/sandbox/delivery-target.ts';
import type { Environment } from '../src/spec/types.ts';
import { BASES, eventually, harnessWithCase, send, startHarness, tokenFor } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';

const BOUNDARY = 'care-hardening-boundary';
const MiB = 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A multipart/form-data body from parts given as their header lines and bytes, exactly as written. */
function multipart(parts: Array<[string[], Buffer | string]>): Buffer {
  const chunks: Buffer[] = [];
  for (const [headers, bytes] of parts) {
    chunks.push(Buffer.from(`--${BOUNDARY}\r\n${headers.join('\r\n')}\r\n\r\n`), Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/**
 * POSTs a body on a connection of its own (no keep-alive reuse: a reused connection after a body of many MiB is
 * sometimes reset before the next request is read, with any endpoint; that is not what these tests are about).
 */
function postOnce(url: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, text, json: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('uploads', () => {
  const withCase = harnessWithCase();

  const upload = (parts: Array<[string[], Buffer | string]>) =>
    postOnce(`${withCase.h.origin}${BASES.sandbox}/cases/${withCase.caseId}/attachments`, multipart(parts), {
      authorization: `Bearer ${withCase.h.tokens.sandbox.customer}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    });
  const download = (id: string) => withCase.h.call('sandbox', 'customer', 'GET', `/cases/${withCase.caseId}/attachments/${id}/download`);
  const filePart = (extra: string[] = [], name = 'file'): string[] => [`Content-Disposition: form-data; name="${name}"`, ...extra];

  it('keeps the exact bytes of a part without filename that declares charset=utf-8 (D-66)', async () => {
    // "café" in UTF-8 (é is two bytes, one Latin-1 character), then bytes that are not UTF-8 at all
    const bytes = Buffer.concat([Buffer.from('café 故障 \u{1F5A8}\n', 'utf8'), Buffer.from([0xff, 0xfe, 0xc3])]);
    for (const charset of ['utf-8', 'UTF-16LE', 'iso-8859-1', 'x-unknown']) {
      const created = await upload([[filePart([`Content-Type: text/plain; charset=${charset}`]), bytes]]);
      expect(created.status, created.text).toBe(201);
      expect(created.json.data, charset).toMatchObject({ fileName: 'file', contentType: 'text/plain', size: bytes.length, sha256: sha256(bytes) });
      const got = await download(created.json.data.id);
      expect(got.bytes.equals(bytes), charset).toBe(true);
    }
  });

  it('stores a wildcard or malformed part type as application/octet-stream; no download says */* (D-93)', async () => {
    for (const type of ['*/*', 'image/*', '*/png', 'text', 'text/plain/x', 'text/pl@in']) {
      for (const headers of [filePart([`Content-Type: ${type}`]), [`Content-Disposition: form-data; name="file"; filename="scan.bin"`, `Content-Type: ${type}`]]) {
        const created = await upload([[headers, 'bytes']]);
        expect(created.status, created.text).toBe(201);
        expect(created.json.data.contentType, `${type} ${headers[0]}`).toBe('application/octet-stream');
        const got = await download(created.json.data.id);
        expect(got.headers.get('content-type')).toBe('application/octet-stream');
      }
    }
    // a concrete type is kept, lowercased, without its parameters
    const png = await upload([[['Content-Disposition: form-data; name="file"; filename="a.png"', 'Content-Type: Image/PNG; q=1'], 'x']]);
    expect(png.json.data.contentType).toBe('image/png');
  });

  it('accepts exactly 10 MiB (10485760 bytes) and refuses one byte more with 413 (D-10)', async () => {
    const exact = Buffer.alloc(10 * MiB, 0x61);
    for (const headers of [filePart(), ['Content-Disposition: form-data; name="file"; filename="big.log"']]) {
      const created = await upload([[headers, exact]]);
      expect(created.status, created.text).toBe(201);
      expect(created.json.data.size).toBe(10 * MiB);
      expect(created.json.data.sha256).toBe(sha256(exact));
      const refused = await upload([[headers, Buffer.alloc(10 * MiB + 1, 0x61)]]);
      expect(refused.status).toBe(413);
      expect(refused.json.errors[0]).toMatchObject({ code: 'payload_too_large', detail: 'body.file: larger than 10485760 bytes' });
    }
  });

  it('cuts a file name at 255 code points, never between the halves of a surrogate pair (D-82)', async () => {
    const name = 'a'.repeat(254) + '\u{1F5A8}\u{1F5A8}.log'; // the first printer emoji straddles UTF-16 unit 255
    const created = await upload([[[`Content-Disposition: form-data; name="file"; filename="${name}"`], 'x']]);
    expect(created.status, created.text).toBe(201);
    const stored: string = created.json.data.fileName;
    expect(stored).toBe('a'.repeat(254) + '\u{1F5A8}');
    expect(/\p{Cs}/u.test(stored)).toBe(false);
    expect([...stored]).toHaveLength(255);
    expect(created.text).not.toMatch(/\\ud83d"/i); // no escaped lone half in the answer
  });

  it('finds a `file` part without filename after five and more other fields (D-66, D-93)', async () => {
    const others = (n: number) => Array.from({ length: n }, (_, i): [string[], string] => [filePart([], `field${i}`), `value ${i}`]);
    for (const n of [5, 6, 99]) {
      const created = await upload([...others(n), [filePart(['Content-Type: application/pdf']), '%PDF-1.7']]);
      expect(created.status, `${n} fields before: ${created.text}`).toBe(201);
      expect(created.json.data).toMatchObject({ fileName: 'file', contentType: 'application/pdf', size: 8 });
    }
  });

  it('answers 400 to a body that ends inside a part, whichever part it is, and goes on answering', async () => {
    const truncated = (parts: Array<[string[], string]>, last: string[]) =>
      Buffer.concat([multipart(parts).subarray(0, -`--${BOUNDARY}--\r\n`.length), Buffer.from(`--${BOUNDARY}\r\n${last.join('\r\n')}\r\n\r\npartial`)]);
    const bodies = [
      truncated([], ['Content-Disposition: form-data; name="file"; filename="a.log"']),
      truncated([], filePart()),
      truncated([[filePart(), 'the file']], filePart([], 'other')),
      truncated([[filePart([], 'other'), 'x']], filePart([], 'more')),
    ];
    for (const body of bodies) {
      const refused = await postOnce(`${withCase.h.origin}${BASES.sandbox}/cases/${withCase.caseId}/attachments`, body, {
        authorization: `Bearer ${withCase.h.tokens.sandbox.customer}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.json.errors[0]).toMatchObject({ code: 'value_error', detail: 'body: Invalid multipart/form-data body' });
    }
    expect((await withCase.h.call('sandbox', 'customer', 'GET', `/cases/${withCase.caseId}`)).status).toBe(200);
  });

  it('reads at most 100 parts: a `file` part after them is refused with a clear 400, and other parts are not kept (D-93)', async () => {
    const others = Array.from({ length: 100 }, (_, i): [string[], string] => [filePart([], `f${i}`), 'x'.repeat(1000)]);
    const refused = await upload([...others, [filePart(), 'late']]);
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0]).toMatchObject({ code: 'value_error', detail: 'body: more than 100 parts; the part `file` must be among the first 100' });
    // large other parts are read and dropped: a body of 5 parts of 9 MiB each and the file is accepted
    const large = Array.from({ length: 5 }, (_, i): [string[], Buffer] => [filePart([], `big${i}`), Buffer.alloc(9 * MiB, 0x62)]);
    const created = await upload([...large, [filePart(), 'the file']]);
    expect(created.status, created.text).toBe(201);
    expect(created.json.data.size).toBe(8);
  });
});

describe('webhook subscriptions (D-16)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ seedCases: 10 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('refuses a URL with user information at create and update, in both environments', async () => {
    const cases: Array<[Environment, string]> = [
      ['sandbox', 'http://user:pass@127.0.0.1:9/hook'],
      ['sandbox', 'http://user@127.0.0.1:9/hook'],
      ['sandbox', 'http://:pass@127.0.0.1:9/hook'],
      ['production', 'https://user:pass@itsm.customer.example/care/events'],
      ['production', 'HTTPS://user:pass@itsm.customer.example/care/events'],
      ['production', 'https:///user:pass@itsm.customer.example/care/events'],
    ];
    for (const [env, url] of cases) {
      const created = await h.call(env, 'customer', 'POST', '/webhooks', { url });
      expect(created.status, `${env} ${url}: ${created.text}`).toBe(400);
      expect(created.json.errors[0].detail, url).toMatch(/^body\.url: /);
      expect(created.text).not.toContain('pass@');
    }
    const hook = await h.call('production', 'customer', 'POST', '/webhooks', { url: 'https://itsm.customer.example/care/events?from=care@api.example' });
    expect(hook.status, hook.text).toBe(201); // an @ in the query is no user information
    const patched = await h.call('production', 'customer', 'PATCH', `/webhooks/${hook.json.data.id}`, { url: 'https://user:pass@itsm.customer.example/care/events' });
    expect(patched.status).toBe(400);
    expect(patched.json.errors[0].detail).toMatch(/^body\.url: /);
    expect((await h.call('production', 'customer', 'GET', `/webhooks/${hook.json.data.id}`)).json.data.url).toBe('https://itsm.customer.example/care/events?from=care@api.example');
  });

  it('refuses a basic-auth user name with a colon (RFC 7617); a password may hold one', async () => {
    const refused = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', authorization: { type: 'basic', username: 'care:events', password: 'pw' } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.errors[0].detail).toMatch(/^body\.authorization\.username: /);
    const listed = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', authorization: [{ type: 'basic', username: 'a:b', password: 'pw' }] });
    expect(listed.status, listed.text).toBe(400);
    const ok = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', authorization: { type: 'basic', username: 'care-events', password: 'pa:ss' } });
    expect(ok.status, ok.text).toBe(201);
    const patched = await h.call('sandbox', 'customer', 'PATCH', `/webhooks/${ok.json.data.id}`, { authorization: { type: 'basic', username: 'x:y', password: 'pw' } });
    expect(patched.status).toBe(400);
  });
});

describe('where deliveries may connect (D-94)', () => {
  it('classifies addresses with ipaddr.js: only public unicast passes the production rule', () => {
    const internal = [
      '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
      '0.0.0.0', '255.255.255.255', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:10.0.0.1',
      '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::ffff:127.0.0.1', '64:ff9b::a00:1', '2002:a00:1::', 'ff02::1',
    ];
    for (const address of internal) expect(addressRefusal(address, 'public'), address).toMatch(/not a public address/);
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(addressRefusal(address, 'public'), address).toBeUndefined();
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(addressRefusal(address, 'loopback'), address).toBeUndefined();
    for (const address of ['10.0.0.1', '8.8.8.8', '::']) expect(addressRefusal(address, 'loopback'), address).toMatch(/not a loopback address/);
    for (const address of ['10.0.0.1', '169.254.169.254']) expect(addressRefusal(address, 'any')).toBeUndefined();
  });

  /** A receiver on 127.0.0.1 that counts connections and records requests. */
  function receiver() {
    const requests: Array<{ path: string; body: string }> = [];
    let connections = 0;
    const server: Server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        requests.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    server.on('connection', () => connections++);
    return { server, requests, connections: () => connections, url: '' };
  }

  /** Every connection the dispatcher asks for, and a refusal of any that is not loopback (so none leaves the machine). */
  function connectorSpy() {
    const calls: ConnectTarget[] = [];
    const connect = (target: ConnectTarget) => {
      calls.push(target);
      if (!target.addresses.every((a) => addressRefusal(a.address, 'loopback') === undefined)) throw new Error(`test connector: refusing ${JSON.stringify(target.addresses)}`);
      return connectSocket(target);
    };
    return { calls, connect };
  }

  /** A resolver the test controls: names of the table, nothing else (no DNS query leaves the process). */
  function resolverOf(table: Record<string, string[]>) {
    const asked: string[] = [];
    const resolve: Resolver = async (hostname) => {
      asked.push(hostname);
      const addresses = table[hostname];
      if (!addresses) throw new Error(`test resolver: ${hostname} unknown`);
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    return { asked, resolve };
  }

  /** A sandbox with these delivery options and no loopback-only rule (the harness always sets it), with tokens. */
  async function sandboxWith(webhooks: SandboxOptions['webhooks']) {
    const sandbox: Sandbox = await createSandbox({ seedCases: 10, log: () => undefined, webhooks: { retryDelaysMs: [], jitter: 0, ...webhooks } });
    const demo = sandbox.demo;
    const token = async (env: Environment, role: 'customer' | 'partner') => tokenFor(sandbox.url, demo[env][role].apiKeyId, demo[env][role].apiKeySecret, env);
    const tokens = { production: { customer: await token('production', 'customer') }, sandbox: { customer: await token('sandbox', 'customer') } };
    const call = (env: Environment, method: string, path: string, body?: unknown) =>
      send(sandbox.url + BASES[env] + path, {
        method,
        headers: { authorization: `Bearer ${tokens[env].customer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    return { sandbox, call };
  }

  /**
   * Subscribes the production customer to `url` (stored as given: the contract wants https, a test receiver is plain
   * http, so the URL is set in storage as test/sandbox.webhooks.test.ts does), makes an agent comment on one of its
   * cases (an event for both accounts) and answers the delivery of that event once it is no longer pending.
   */
  async function productionDelivery(s: Awaited<ReturnType<typeof sandboxWith>>, url: string) {
    const hook = await s.call('production', 'POST', '/webhooks', { url: 'https://receiver.example/hook' });
    expect(hook.status, hook.text).toBe(201);
    s.sandbox.svc.store.update('webhooks', 'production', hook.json.data.id, { url });
    const contract = s.sandbox.demo.production.customer.contracts[0];
    const c = (await s.call('production', 'GET', `/cases?page[size]=1&filter[contract]=${contract}`)).json.data[0];
    const comment = await send(`${s.sandbox.url}/_agent/production/cases/${c.id}/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Agent here', contact: 'desk@care.example' }),
    });
    expect(comment.status, comment.text).toBe(201);
    const event = (await s.call('production', 'GET', '/events?sort=-createdAt&page[size]=1')).json.data[0];
    expect(event.type).toBe('case.comment.created');
    const deliveries = () => s.sandbox.svc.store.deliveries(event.id).filter((d) => d.webhookId === hook.json.data.id);
    await eventually(() => deliveries().length === 1 && deliveries()[0].state !== 'pending');
    return deliveries()[0];
  }

  let rx: ReturnType<typeof receiver>;
  beforeAll(async () => {
    rx = receiver();
    await new Promise<void>((resolve) => rx.server.listen(0, '127.0.0.1', () => resolve()));
    rx.url = `http://127.0.0.1:${(rx.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    rx?.server.closeAllConnections();
    await new Promise((resolve) => rx?.server.close(resolve));
  });

  it('refuses a name that resolves to an internal address after resolution, before any connection, as a failed attempt', async () => {
    const spy = connectorSpy();
    const dns = resolverOf({ 'rebind.example.test': ['10.0.0.1'], 'metadata.example.test': ['93.184.216.34', '169.254.169.254'] });
    const s = await sandboxWith({ resolve: dns.resolve, connect: spy.connect });
    try {
      const rebind = await productionDelivery(s, 'https://rebind.example.test/hook');
      expect(rebind).toMatchObject({ state: 'failed', attempt: 1 });
      expect(rebind.lastStatus).toBe('refused: rebind.example.test resolves to 10.0.0.1, which is private, not a public address');
      const mixed = await productionDelivery(s, 'https://metadata.example.test/hook');
      expect(mixed.lastStatus).toBe('refused: metadata.example.test resolves to 169.254.169.254, which is linkLocal, not a public address');
      expect([...new Set(dns.asked)]).toEqual(['rebind.example.test', 'metadata.example.test']); // each name resolved by the test, asked again per later event
      expect(spy.calls).toEqual([]);
    } finally {
      await s.sandbox.close();
    }
  });

  it('refuses literal internal addresses, IPv4-mapped forms included, without asking the resolver or connecting', async () => {
    const spy = connectorSpy();
    const dns = resolverOf({});
    const s = await sandboxWith({ resolve: dns.resolve, connect: spy.connect });
    try {
      for (const [url, why] of [
        ['http://169.254.169.254/latest/meta-data/', '169.254.169.254, which is linkLocal'],
        ['https://[::ffff:a9fe:a9fe]/latest', '::ffff:a9fe:a9fe, which is linkLocal'],
        ['https://[fd00::1]:8443/', 'fd00::1, which is uniqueLocal'],
        ['http://0.0.0.0:80/', '0.0.0.0, which is unspecified'],
      ]) {
        const delivery = await productionDelivery(s, url);
        expect(delivery, url).toMatchObject({ state: 'failed', lastStatus: `refused: ${why}, not a public address` });
      }
      expect(dns.asked).toEqual([]);
      expect(spy.calls).toEqual([]);
    } finally {
      await s.sandbox.close();
    }
  });

  it('refuses a production delivery to a loopback receiver by default: the receiver sees no connection', async () => {
    const s = await sandboxWith({});
    try {
      const before = rx.connections();
      const delivery = await productionDelivery(s, `${rx.url}/production-refused`);
      expect(delivery).toMatchObject({ state: 'failed', attempt: 1, lastStatus: 'refused: 127.0.0.1, which is loopback, not a public address' });
      expect(rx.connections()).toBe(before);
      expect(rx.requests.filter((r) => r.path === '/production-refused')).toEqual([]);
    } finally {
      await s.sandbox.close();
    }
  });

  it('delivers to a loopback receiver in production with allowPrivateTargets, and in the sandbox environment always', async () => {
    const spy = connectorSpy();
    const dns = resolverOf({ 'receiver.example.test': ['127.0.0.1'] });
    const allowed = await sandboxWith({ resolve: dns.resolve, connect: spy.connect, allowPrivateTargets: true });
    try {
      const port = new URL(rx.url).port;
      const byName = await productionDelivery(allowed, `http://receiver.example.test:${port}/production-allowed`);
      expect(byName, byName.lastStatus ?? '').toMatchObject({ state: 'delivered', lastStatus: 'HTTP 204' });
      expect(rx.requests.filter((r) => r.path === '/production-allowed')).toHaveLength(1);
      expect(spy.calls.at(-1)).toMatchObject({ hostname: 'receiver.example.test', port: Number(port), secure: false, addresses: [{ address: '127.0.0.1', family: 4 }] });
    } finally {
      await allowed.sandbox.close();
    }
    const plain = await sandboxWith({ connect: spy.connect });
    try {
      const hook = await plain.call('sandbox', 'POST', '/webhooks', { url: `${rx.url}/sandbox-env`, eventTypes: ['case.contract.assigned'] });
      expect(hook.status, hook.text).toBe(201);
      const contract = plain.sandbox.demo.sandbox.customer.contracts[0];
      const c = (await plain.call('sandbox', 'GET', `/cases?page[size]=1&filter[contract]=${contract}`)).json.data[0];
      const triggered = await plain.call('sandbox', 'POST', '/events/case.contract.assigned', { caseId: c.id });
      expect(triggered.status, triggered.text).toBe(202);
      const deliveries = () => plain.sandbox.svc.store.deliveries(triggered.json.data.id);
      await eventually(() => deliveries().length === 1 && deliveries()[0].state !== 'pending');
      expect(deliveries()[0]).toMatchObject({ state: 'delivered', lastStatus: 'HTTP 204' });
      expect(rx.requests.filter((r) => r.path === '/sandbox-env')).toHaveLength(1);
    } finally {
      await plain.sandbox.close();
    }
  });
});
