// Issue 34, a hard shell: the sandbox process as a scanner or a broken client meets it, over raw sockets. A corpus of
// malformed request lines and targets, bad escapes under every listener (API, token service, agent API, docs,
// bundles), a missing Host, header floods, deep and hostile JSON into every JSON write operation the description
// declares, multipart edge cases, and the edge of issue 47 (Expect, CONNECT, a rebinding Host, the demo keys and the
// agent API asked by another site). Every answer carries nosniff. Afterwards the process is still up; no answer was a 5xx; every answer under an
// API base path is in the error or success envelope with that environment's X-CareAPI-Env (D-70, D-87, D-89).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';
import type { Environment } from '../src/spec/types.ts';
import { BASES, spec, startHarness, tokenFor } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';
import { rawExchange } from './support/raw-http.ts';
import type { RawAnswer } from './support/raw-http.ts';

const dir = mkdtempSync(join(tmpdir(), 'care-hard-shell-'));
let child: ChildProcess;
let port = 0;
let exited: string | null = null;
let log = '';
const tokens: Partial<Record<Environment, string>> = {};
let config: any;

beforeAll(async () => {
  const configFile = join(dir, 'config.json');
  child = spawn(process.execPath, [join(repoRoot, 'bin/care-sandbox.js'), '--memory', '--port', '0', '--seed-cases', '20', '--loopback-only', '--write-config', configFile, '--quiet'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (chunk) => (log += chunk));
  child.once('exit', (code, signal) => (exited = `exit ${code ?? signal}`));
  const origin = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`the sandbox did not start: ${out}${log}`)));
  });
  port = Number(new URL(origin).port);
  config = JSON.parse(readFileSync(configFile, 'utf8'));
  tokens.sandbox = await tokenFor(origin, config.customer.apiKeyId, config.customer.apiKeySecret, 'sandbox');
}, 60_000);
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const envOfPath = (target: string): Environment | null =>
  /^\/care\/v0\/sandbox(\/|\?|$)/.test(target) ? 'sandbox' : /^\/care\/v0(\/|\?|$)/.test(target) ? 'production' : null;

interface Probe {
  name: string;
  bytes: string | Buffer;
  /** The environment whose X-CareAPI-Env the answer must carry (null: not an API path). */
  env: Environment | null;
}

const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`;
const withBody = (method: string, target: string, type: string, body: string | Buffer, extra = '') => {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from(`${method} ${target} HTTP/1.1\r\nHost: localhost\r\n${extra}Content-Type: ${type}\r\nContent-Length: ${bytes.length}\r\n\r\n`, 'latin1'), bytes]);
};

/** Request lines and targets that are not what HTTP servers expect. */
function malformedTargets(): Probe[] {
  const probes: Probe[] = [];
  const targets = ['http://[/', '//[/x', 'http://a:b@[::1/', '*', '?', 'http://sandbox.invalid:99999/care/v0/cases', '//evil.example/care/v0/cases', '/%', '/%zz', '/%C3%28', '/%00', '/care/v0/%zz', '/care/v0/sandbox/%ED%A0%80'];
  for (const target of targets) probes.push({ name: `target ${target}`, bytes: get(target), env: null });
  for (const method of ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'M-SEARCH']) {
    probes.push({ name: `${method} with bad escapes`, bytes: `${method} /care/v0/sandbox/cases/%zz?filter%zz=%E0 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n`, env: 'sandbox' });
  }
  // a bad escape under every listener's prefix, in the path and in the query
  for (const prefix of ['/docs/', '/openapi/', '/_agent/', '/_agent/sandbox/cases/', '/_agent/production/events/', '/auth/v2/oauth/token', BASES.production + '/', BASES.sandbox + '/cases/']) {
    probes.push({ name: `escape under ${prefix}`, bytes: get(`${prefix}%zz`), env: envOfPath(prefix) });
    probes.push({ name: `query escape under ${prefix}`, bytes: get(`${prefix}?a=%zz&%=%E2%82`), env: envOfPath(prefix) });
    probes.push({ name: `raw NUL and 0xFF under ${prefix}`, bytes: Buffer.from(`GET ${prefix}a\u00ffb HTTP/1.1\r\nHost: localhost\r\n\r\n`, 'latin1'), env: null });
  }
  probes.push({ name: 'no Host (sandbox)', bytes: `GET ${BASES.sandbox}/cases HTTP/1.1\r\n\r\n`, env: 'sandbox' });
  probes.push({ name: 'no Host (production)', bytes: `GET ${BASES.production}/contracts HTTP/1.1\r\n\r\n`, env: 'production' });
  probes.push({ name: 'no Host (docs)', bytes: 'GET /docs/ HTTP/1.1\r\n\r\n', env: null });
  probes.push({ name: 'HTTP/1.0 without Host', bytes: `GET ${BASES.sandbox}/cases HTTP/1.0\r\n\r\n`, env: 'sandbox' });
  probes.push({ name: 'two Host headers', bytes: `GET ${BASES.sandbox}/cases HTTP/1.1\r\nHost: localhost\r\nHost: b\r\n\r\n`, env: 'sandbox' });
  probes.push({ name: 'garbage request line', bytes: 'HELLO\r\n\r\n', env: null });
  // the edge of issue 47 (D-111, D-112, D-114): Node's own answers and the Host a rebinding page sends
  probes.push({ name: 'an Expect other than 100-continue', bytes: withBody('POST', `${BASES.sandbox}/cases`, 'application/json', '{}', 'Expect: foo\r\n'), env: 'sandbox' });
  probes.push({ name: 'CONNECT to an API path', bytes: `CONNECT ${BASES.production}/cases HTTP/1.1\r\nHost: localhost\r\n\r\n`, env: 'production' });
  probes.push({ name: 'CONNECT authority-form', bytes: 'CONNECT 169.254.169.254:80 HTTP/1.1\r\nHost: 169.254.169.254:80\r\n\r\n', env: null });
  probes.push({ name: 'a rebinding Host', bytes: `GET ${BASES.sandbox}/cases HTTP/1.1\r\nHost: rebind.example:4020\r\n\r\n`, env: 'sandbox' });
  probes.push({ name: 'a Host with user info', bytes: 'GET /docs/try-it.json HTTP/1.1\r\nHost: localhost@evil.example\r\n\r\n', env: null });
  probes.push({ name: 'the demo keys from another origin', bytes: get('/docs/try-it.json', 'Origin: http://evil.example\r\n'), env: null });
  probes.push({ name: 'the agent API from another site', bytes: withBody('POST', '/_agent/sandbox/cases', 'text/plain', '{}', 'Sec-Fetch-Site: cross-site\r\n'), env: null });
  probes.push({ name: 'binary noise', bytes: Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 37) % 256)), env: null });
  probes.push({ name: 'header flood (3,000 headers)', bytes: get(`${BASES.sandbox}/cases`, Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n') + '\r\n'), env: 'sandbox' });
  probes.push({ name: 'one 70 kB header', bytes: get(`${BASES.production}/cases`, `X-Big: ${'a'.repeat(70_000)}\r\n`), env: 'production' });
  probes.push({ name: 'bad chunked body', bytes: `POST ${BASES.sandbox}/cases HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, env: 'sandbox' });
  probes.push({ name: 'Content-Length and chunked', bytes: `POST ${BASES.sandbox}/cases HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, env: 'sandbox' });
  // the token endpoint as broken clients call it
  const basic = (text: string) => `Authorization: Basic ${Buffer.from(text).toString('base64')}\r\n`;
  const token = '/auth/v2/oauth/token';
  const form = 'application/x-www-form-urlencoded';
  probes.push({ name: 'token: Basic with bad escapes', bytes: withBody('POST', token, form, 'grant_type=client_credentials', basic('%zz:%zz')), env: null });
  probes.push({ name: 'token: Basic without a colon', bytes: withBody('POST', token, form, 'grant_type=client_credentials', basic('justanid')), env: null });
  probes.push({ name: 'token: Basic not base64', bytes: withBody('POST', token, form, 'grant_type=client_credentials', 'Authorization: Basic ***\r\n'), env: null });
  probes.push({ name: 'token: JSON with prototype keys', bytes: withBody('POST', token, 'application/json', '{"__proto__":{"grant_type":"client_credentials"}}'), env: null });
  probes.push({ name: 'token: deep JSON', bytes: withBody('POST', token, 'application/json', '['.repeat(5000) + ']'.repeat(5000)), env: null });
  probes.push({ name: 'token: GET', bytes: get(token), env: null });
  return probes;
}

/** Hostile JSON into every JSON write operation of the description, in each of its environments. */
function hostileBodies(): Probe[] {
  const bodies: Array<[string, string | Buffer]> = [
    ['__proto__', '{"__proto__":{"contract":"CT0000101","admin":true},"priority":3}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}}}'],
    ['nested __proto__', '{"authorization":{"__proto__":{"type":"basic"}},"watchList":[{"__proto__":1}]}'],
    ['deep arrays', `{"zz":${'['.repeat(3000)}${']'.repeat(3000)}}`],
    ['deep objects', '{"a":'.repeat(3000) + '1' + '}'.repeat(3000)],
    ['lone surrogate key', '{"\\ud800":1}'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])],
    ['not JSON', '<xml/>'],
    ['truncated', '{"shortDescription":"x'],
    ['a JSON string', '"__proto__"'],
    ['a huge number', `{"priority":1${'0'.repeat(400)}}`],
  ];
  const probes: Probe[] = [];
  for (const op of spec.operations) {
    if (!op.requestBody?.contentTypes.some((t) => t.includes('json'))) continue;
    for (const env of op.environments) {
      const target = BASES[env] + op.path.replace(/\{[^}]+\}/g, 'X0000001');
      for (const [name, body] of bodies) {
        probes.push({ name: `${op.operationId} (${env}): ${name}`, bytes: withBody(op.method.toUpperCase(), target, 'application/json', body, `Authorization: Bearer ${tokens[env] ?? 'x'}\r\n`), env });
      }
    }
  }
  return probes;
}

/** multipart bodies as hand-written clients send them, to the sandbox customer's first case. */
function multipartProbes(caseId: string): Probe[] {
  const target = `${BASES.sandbox}/cases/${caseId}/attachments`;
  const b = 'BOUNDARY';
  const part = (headers: string, content: string) => `--${b}\r\n${headers}\r\n\r\n${content}\r\n`;
  const cases: Array<[string, string]> = [
    ['no filename, charset', part('Content-Disposition: form-data; name="file"\r\nContent-Type: text/plain; charset=utf-8', 'é') + `--${b}--\r\n`],
    ['type */*', part('Content-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: */*', 'x') + `--${b}--\r\n`],
    ['many fields first', Array.from({ length: 50 }, (_, i) => part(`Content-Disposition: form-data; name="f${i}"`, 'v')).join('') + part('Content-Disposition: form-data; name="file"', 'x') + `--${b}--\r\n`],
    ['filename with quotes and escapes', part('Content-Disposition: form-data; name="file"; filename="%zz\\"\u00ff.txt"', 'x') + `--${b}--\r\n`],
    ['no closing boundary', part('Content-Disposition: form-data; name="file"; filename="a"', 'x')],
    ['no parts', `--${b}--\r\n`],
    ['boundary missing from the type', part('Content-Disposition: form-data; name="file"; filename="a"', 'x') + `--${b}--\r\n`],
  ];
  return cases.map(([name, body]) => ({
    name: `upload: ${name}`,
    bytes: withBody('POST', target, name.startsWith('boundary missing') ? 'multipart/form-data' : `multipart/form-data; boundary=${b}`, Buffer.from(body, 'latin1'), `Authorization: Bearer ${tokens.sandbox}\r\n`),
    env: 'sandbox' as Environment,
  }));
}

function problemsOf(probe: Probe, answer: RawAnswer): string[] {
  if (answer.status === 0) return []; // the server may close on bytes that are not HTTP at all; it must stay up (below)
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  if (answer.headers['x-content-type-options'] !== 'nosniff') problems.push('no X-Content-Type-Options: nosniff (D-114)');
  if (probe.env) {
    const expected = probe.env === 'production' ? 'Production' : 'Sandbox';
    if (answer.headers['x-careapi-env'] !== expected) problems.push(`X-CareAPI-Env ${answer.headers['x-careapi-env']}, expected ${expected}`);
    let json: any;
    try {
      json = JSON.parse(answer.body);
    } catch {
      json = undefined;
    }
    if (answer.status >= 400 && !(Array.isArray(json?.errors) && json.errors.length > 0 && json.errors.every((e: any) => e.status === String(answer.status) && e.code && e.detail))) {
      problems.push(`not in the error envelope: ${answer.body.slice(0, 200)}`);
    }
  }
  return problems;
}

describe('the sandbox process answers every request and stays up (D-89)', () => {
  it('a raw-socket corpus: no 5xx, every API answer in the envelope with its environment', async () => {
    const caseId = (await (await fetch(`${config.baseUrl}/cases?page[size]=1`, { headers: { authorization: `Bearer ${tokens.sandbox}` } })).json()).data[0].id;
    const probes = [...malformedTargets(), ...hostileBodies(), ...multipartProbes(caseId)];
    expect(probes.length).toBeGreaterThanOrEqual(300);
    const findings: string[] = [];
    for (const probe of probes) {
      const answer = await rawExchange(port, probe.bytes);
      for (const problem of problemsOf(probe, answer)) findings.push(`${probe.name}: ${problem}`);
      // a process that died would refuse the next connection: ask it, so the probe that ended it is named
      if (exited || (await rawExchange(port, get('/openapi'))).status !== 200) {
        findings.push(`${probe.name}: the process stopped answering (${exited ?? 'no answer'})`);
        break;
      }
    }
    expect(findings, log.slice(-1500)).toEqual([]);
    expect(exited, `the process ended: ${log.slice(-1500)}`).toBeNull();
    // and it still serves an ordinary request afterwards
    const after = await fetch(`${config.baseUrl}/cases?page[size]=1`, { headers: { authorization: `Bearer ${tokens.sandbox}` } });
    expect(after.status).toBe(200);
  }, 120_000);
});

describe('what the corpus found, one by one', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ requestTimeoutMs: 400 });
  });
  afterAll(() => h?.close());
  const raw = (bytes: string | Buffer) => rawExchange(h.sandbox.port, bytes);

  it('a request target that is not a path is 400 invalid_target, not a dead process', async () => {
    for (const target of ['http://[/', 'http://a:b@[::1/', 'ftp://x/']) {
      const answer = await raw(get(target));
      expect(answer.status, target).toBe(400);
      expect(JSON.parse(answer.body).errors[0].code).toBe('invalid_target');
    }
    // `//[/x` is a path (origin-form), one that names nothing here
    expect((await raw(get('//[/x'))).status).toBe(404);
  });

  it('a network-path target is a path of ours, never routed as if its host were absent', async () => {
    const answer = await raw(get('//evil.example/care/v0/sandbox/cases'));
    expect(answer.status).toBe(404);
  });

  it('a bad escape under /docs is 404 and under the agent API 400 in the envelope', async () => {
    expect((await raw(get('/docs/%zz'))).status).toBe(404);
    const agent = await raw(get('/_agent/sandbox/cases/%zz'));
    expect(agent.status).toBe(400);
    expect(JSON.parse(agent.body).errors[0].code).toBe('invalid_path');
    expect(agent.headers['x-careapi-env']).toBe('Sandbox');
    expect((await raw(get('/_agent/%zz'))).status).toBe(400);
  });

  it('an HTTP/1.1 request without Host is 400 in the envelope with its environment', async () => {
    const answer = await raw(`GET ${BASES.sandbox}/cases HTTP/1.1\r\n\r\n`);
    expect(answer.status).toBe(400);
    expect(answer.headers['x-careapi-env']).toBe('Sandbox');
    expect(JSON.parse(answer.body).errors[0].detail).toMatch(/^header\.Host: /);
  });

  it('a 408 for a sandbox request says Sandbox', async () => {
    // the request line and one header, then nothing: the server's request timeout (400 ms here) answers
    const answer = await raw(`GET ${BASES.sandbox}/cases HTTP/1.1\r\nHost: localhost\r\n`);
    expect(answer.status).toBe(408);
    expect(answer.headers['x-careapi-env']).toBe('Sandbox');
  });

  it('the token endpoint: bad Basic escapes 400, repeated parameters 400, GET 405 with Allow', async () => {
    const token = '/auth/v2/oauth/token';
    const form = 'application/x-www-form-urlencoded';
    const basic = await raw(withBody('POST', token, form, 'grant_type=client_credentials&audience=sandbox', `Authorization: Basic ${Buffer.from('%zz:%zz').toString('base64')}\r\n`));
    expect(basic.status).toBe(400);
    expect(JSON.parse(basic.body).error).toBe('invalid_request');
    const { apiKeyId, apiKeySecret } = h.sandbox.demo.sandbox.customer;
    const twice = await raw(withBody('POST', token, form, `grant_type=client_credentials&client_id=${apiKeyId}&client_secret=${apiKeySecret}&audience=sandbox&audience=production`));
    expect(twice.status).toBe(400);
    expect(JSON.parse(twice.body).error_description).toMatch(/audience/);
    const once = await raw(withBody('POST', token, form, `grant_type=client_credentials&client_id=${apiKeyId}&client_secret=${apiKeySecret}&audience=sandbox`));
    expect(once.status).toBe(200);
    const wrongMethod = await raw(get(token));
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
  });

  it('GET on a trigger path is 405 with Allow: POST, as the description declares only POST there', async () => {
    const triggers = spec.operations.filter((op) => op.operationId.startsWith('trigger'));
    expect(triggers.length).toBeGreaterThan(0);
    for (const op of triggers) {
      const answer = await h.call('sandbox', 'customer', 'GET', op.path);
      expect(answer.status, op.path).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
  });

  it('prototype keys in every JSON write operation: 400 extra_forbidden at their place, nothing reaches a prototype', async () => {
    const contract = h.sandbox.demo.sandbox.customer.contracts[0];
    const caseId = (await h.call('sandbox', 'customer', 'POST', '/cases', { contract, shortDescription: 'proto target' })).json.data.id;
    const ids: Record<string, string> = {
      caseId,
      contractId: contract,
      keyId: (await h.call('sandbox', 'customer', 'POST', '/apikeys', { label: 'proto' })).json.data.id,
      webhookId: (await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/p' })).json.data.id,
    };
    let checked = 0;
    for (const op of spec.operations) {
      if (!op.requestBody || op.operationId === 'uploadCaseAttachment' || !op.environments.includes('sandbox')) continue;
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name) => ids[name]);
      for (const [text, at] of [
        ['{"__proto__":{"contract":"CT0000102"},"priority":3}', 'body.__proto__'],
        ['{"constructor":{"prototype":{"x":1}}}', 'body.constructor'],
        ['{"shortDescription":"x","nested":{"prototype":1}}', 'body.nested.prototype'],
      ]) {
        const answer = await h.call('sandbox', 'customer', op.method.toUpperCase(), path, text, { 'content-type': 'application/json' });
        expect(answer.status, `${op.operationId} ${text}`).toBe(400);
        expect(answer.json.errors, op.operationId).toContainEqual(expect.objectContaining({ code: 'extra_forbidden', detail: `${at}: Extra inputs are not permitted` }));
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(8);
    expect(({} as any).contract).toBeUndefined();
  });

  it("a partner's __proto__ PATCH cannot move a customer's case into another customer's scope", async () => {
    const [mine, theirs] = [h.sandbox.demo.production.customer.contracts[0], h.sandbox.demo.production.partner.contracts.find((c: string) => !h.sandbox.demo.production.customer.contracts.includes(c))!];
    // a case of another customer's contract, without contacts that would stop a move on their own
    const victim = (await h.call('production', 'partner', 'POST', '/cases', { contract: theirs, shortDescription: 'victim' })).json.data;
    const answer = await h.call('production', 'partner', 'PATCH', `/cases/${victim.id}`, `{"__proto__":{"contract":"${mine}"},"priority":3}`, { 'content-type': 'application/json' });
    expect(answer.status).toBe(400);
    expect((await h.call('production', 'customer', 'GET', `/cases/${victim.id}`)).status).toBe(403);
    expect((await h.call('production', 'partner', 'GET', `/cases/${victim.id}`)).json.data).toEqual(victim);
  });

  it('JSON nested beyond 32 levels is 400 too_deep on every JSON endpoint, not a 500', async () => {
    for (const body of [`{"zz":${'['.repeat(3000)}${']'.repeat(3000)}}`, '{"a":'.repeat(33) + '1' + '}'.repeat(33)]) {
      const answer = await h.call('sandbox', 'customer', 'POST', '/cases', body, { 'content-type': 'application/json' });
      expect(answer.status).toBe(400);
      expect(answer.json.errors.map((e: any) => e.code)).toContain('too_deep');
    }
    // 32 levels are still read (and judged by the schema)
    const fine = await h.call('sandbox', 'customer', 'POST', '/cases', '{"a":'.repeat(31) + '1' + '}'.repeat(31), { 'content-type': 'application/json' });
    expect(fine.status).toBe(400);
    expect(fine.json.errors.map((e: any) => e.code)).not.toContain('too_deep');
  });

  it("ids made in one environment say nothing of the other's activity", async () => {
    const number = (id: string) => Number(id.replace(/^\D+/, ''));
    const make = async (env: Environment) => {
      const contract = h.sandbox.demo[env].customer.contracts[0];
      const kase = (await h.call(env, 'customer', 'POST', '/cases', { contract, shortDescription: `ids ${env}` })).json.data;
      const hook = (await h.call(env, 'customer', 'POST', '/webhooks', { url: 'https://127.0.0.1:9/ids' })).json.data;
      const key = (await h.call(env, 'customer', 'POST', '/apikeys', { label: 'ids' })).json.data;
      const comment = (await h.call(env, 'customer', 'POST', `/cases/${kase.id}/comments`, { text: 'x', contact: h.sandbox.demo[env].customer.contacts[0] })).json.data;
      return [kase.id, hook.id, key.id, comment.id].map(number);
    };
    const first = await make('sandbox');
    for (let i = 0; i < 3; i++) await make('production');
    const second = await make('sandbox');
    expect(second).toEqual(first.map((n) => n + 1));
  });

  it('a production and a sandbox subscription with the same id are two subscriptions to the delivery queue (D-90)', () => {
    const store = h.sandbox.svc.store;
    const far = Date.now() + 3_600_000; // not due while the test runs
    store.enqueueDelivery('production', 'EV9999901', 'WH9999901', far);
    store.enqueueDelivery('sandbox', 'EV9999901', 'WH9999901', far + 1);
    const heads = store.pendingHeadsSince(0).heads.filter((head) => head.webhookId === 'WH9999901');
    expect(heads.map((head) => [head.env, head.nextAt]).sort()).toEqual([['production', far], ['sandbox', far + 1]]);
    expect(store.headDelivery('sandbox', 'WH9999901')).toMatchObject({ env: 'sandbox', nextAt: far + 1 });
    expect(store.headDelivery('production', 'WH9999901')).toMatchObject({ env: 'production', nextAt: far });
    expect(store.deliveries('EV9999901', 'sandbox')).toHaveLength(1);
  });

  it('an attachment stored with a wildcard type (before D-93) downloads as application/octet-stream', async () => {
    const contract = h.sandbox.demo.sandbox.customer.contracts[0];
    const caseId = (await h.call('sandbox', 'customer', 'POST', '/cases', { contract, shortDescription: 'old upload' })).json.data.id;
    const at = new Date().toISOString();
    h.sandbox.svc.store.insert('attachments', 'sandbox', { id: 'AT9999901', case: caseId, fileName: 'old.bin', contentType: '*/*', size: 1, sha256: '0'.repeat(64), createdAt: at }, { contract, content: Buffer.from('x') });
    const answer = await h.call('sandbox', 'customer', 'GET', `/cases/${caseId}/attachments/AT9999901/download`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/octet-stream');
  });

  it('POST /webhooks with "__proto__": null, [] or "x" is refused as an unknown field (D-35)', async () => {
    for (const value of ['null', '[]', '"x"']) {
      const answer = await h.call('sandbox', 'customer', 'POST', '/webhooks', `{"url":"http://127.0.0.1:9/x","__proto__":${value}}`, { 'content-type': 'application/json' });
      expect(answer.status, value).toBe(400);
      expect(answer.json.errors[0].code).toBe('extra_forbidden');
    }
  });
});
