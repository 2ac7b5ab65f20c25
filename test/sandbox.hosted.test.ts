// Issue 47, a sandbox hosted for partners (D-113): bound to an address that is not loopback, or given a public URL,
// it refuses to start without an agent token, serves no demo keys unless told, accepts its public host in Host,
// refuses sandbox-environment deliveries to internal addresses before any connection (the test's own resolver and
// connector: no packet leaves loopback), caps connections and request time, and says what it exposes at start.
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../src/sandbox/app.ts';
import type { SandboxOptions } from '../src/sandbox/app.ts';
import { addressRefusal } from '../src/sandbox/delivery-target.ts';
import type { ConnectTarget, Resolver } from '../src/sandbox/delivery-target.ts';
import { DeploymentRefused, exposureLines, HOSTED_LIMITS, resolveDeployment } from '../src/sandbox/deployment.ts';
import { repoRoot } from '../src/spec/index.ts';
import type { Environment } from '../src/spec/types.ts';
import { BASES, eventually, send, tokenFor } from './helpers/sandbox.ts';
import { rawExchange } from './support/raw-http.ts';

const PUBLIC_URL = 'https://sandbox.partner.example';

describe('loopback or hosted (D-113)', () => {
  it('is hosted when bound to an address that is not loopback, or given a public URL', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(resolveDeployment({ host }).hosted, host).toBe(false);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'my-laptop.lan']) {
      expect(() => resolveDeployment({ host }), host).toThrow(DeploymentRefused);
      expect(resolveDeployment({ host, agentToken: 't' }), host).toMatchObject({ hosted: true, serveDemoKeys: false, guardSandboxDeliveries: true, limits: HOSTED_LIMITS });
    }
    expect(resolveDeployment({ publicUrl: PUBLIC_URL, agentToken: 't' })).toMatchObject({ hosted: true, publicHosts: ['sandbox.partner.example'] });
    expect(resolveDeployment({ host: 'My-Laptop.lan', agentToken: 't' }).publicHosts).toEqual(['my-laptop.lan']);
    expect(resolveDeployment({ host: '0.0.0.0', agentToken: 't' }).publicHosts).toEqual([]);
    expect(resolveDeployment({ host: '0.0.0.0', agentToken: 't', serveDemoKeys: true, allowPrivateWebhooks: true })).toMatchObject({ serveDemoKeys: true, guardSandboxDeliveries: false });
    expect(() => resolveDeployment({ publicUrl: 'ftp://x' })).toThrow(/--public-url wants an http or https URL/);
  });

  it('a sandbox bound to 0.0.0.0 without --agent-token does not start: nothing listens', async () => {
    await expect(createSandbox({ host: '0.0.0.0', port: 0, log: () => undefined })).rejects.toThrow(/requires --agent-token/);
    // the bin says so and exits 2, before it touches a database
    const bin = spawnSync(process.execPath, [join(repoRoot, 'bin/care-sandbox.js'), '--host', '0.0.0.0', '--port', '0', '--db', '/nonexistent/dir/x.db'], { encoding: 'utf8', timeout: 60_000 });
    expect(bin.status, bin.stderr).toBe(2);
    expect(bin.stderr).toMatch(/^care-sandbox: hosted \(bound to 0\.0\.0\.0, which is not a loopback address\): .* requires --agent-token T/);
  });

  it('prints what it exposes', () => {
    const hosted = exposureLines(resolveDeployment({ host: '0.0.0.0', agentToken: 't', publicUrl: PUBLIC_URL }), { agentToken: 't' }).join('\n');
    expect(hosted).toMatch(/^HOSTED \(bound to 0\.0\.0\.0, which is not a loopback address; public URL https:\/\/sandbox\.partner\.example\)/);
    expect(hosted).toContain('demo keys         not served');
    expect(hosted).toContain('public addresses only, in both environments');
    expect(hosted).toContain('256 connections, 30 s per request');
    const local = exposureLines(resolveDeployment({}), {}).join('\n');
    expect(local).toMatch(/^loopback: this machine only/);
    expect(local).toContain('public addresses only in production; sandbox deliveries anywhere');
  });
});

describe('a hosted sandbox (public URL declared, bound to 127.0.0.1 for the test)', () => {
  /** Every connection a delivery asks for; none is opened (a refusal), so nothing leaves the process. */
  function connectorSpy() {
    const calls: ConnectTarget[] = [];
    const connect = (target: ConnectTarget): Socket => {
      calls.push(target);
      throw new Error(`test connector: not connecting to ${JSON.stringify(target.addresses)}`);
    };
    return { calls, connect };
  }
  const resolver: Resolver = async (hostname) => {
    const table: Record<string, string> = { 'metadata.partner.test': '169.254.169.254', 'admin.partner.test': '10.0.0.1', 'hooks.partner.test': '93.184.216.34' };
    if (!table[hostname]) throw new Error(`test resolver: ${hostname} unknown`);
    return [{ address: table[hostname], family: 4 }];
  };

  async function hosted(options: SandboxOptions = {}) {
    const spy = connectorSpy();
    const sandbox = await createSandbox({
      publicUrl: PUBLIC_URL,
      agentToken: 'agent-secret',
      seedCases: 10,
      log: () => undefined,
      ...options,
      webhooks: { retryDelaysMs: [], jitter: 0, resolve: resolver, connect: spy.connect, ...options.webhooks },
    });
    return { sandbox, spy };
  }

  it('serves no demo keys: the console asks for one; --serve-demo-keys serves them', async () => {
    const { sandbox } = await hosted();
    try {
      const answer = await fetch(`${sandbox.url}/docs/try-it.json`);
      expect(answer.status).toBe(200);
      const text = await answer.text();
      expect(JSON.parse(text)).toEqual({ sandbox: null, production: null, ask: expect.stringMatching(/enter the API key/) });
      for (const env of ['sandbox', 'production'] as Environment[]) expect(text).not.toContain(sandbox.demo[env].customer.apiKeySecret);
      // the console's own origin behind a proxy that rewrote Host is still this sandbox; another origin is not
      expect((await fetch(`${sandbox.url}/docs/try-it.json`, { headers: { origin: PUBLIC_URL } })).status).toBe(200);
      expect((await fetch(`${sandbox.url}/docs/try-it.json`, { headers: { origin: 'https://partner.example' } })).status).toBe(403);
      expect((await fetch(`${sandbox.url}/_agent`)).status).toBe(401);
      expect((await fetch(`${sandbox.url}/_agent`, { headers: { authorization: 'Bearer agent-secret' } })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
    const { sandbox: serving } = await hosted({ serveDemoKeys: true });
    try {
      expect((await (await fetch(`${serving.url}/docs/try-it.json`)).json()).sandbox.secret).toBe(serving.demo.sandbox.customer.apiKeySecret);
    } finally {
      await serving.close();
    }
  });

  it('accepts its public host and IP addresses in Host, refuses other names', async () => {
    const { sandbox } = await hosted();
    try {
      const ask = (host: string) => rawExchange(sandbox.port, `GET /docs/try-it.json HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      expect((await ask('sandbox.partner.example')).status).toBe(200);
      expect((await ask('Sandbox.Partner.Example:443')).status).toBe(200);
      expect((await ask('10.1.2.3:4020')).status).toBe(200);
      const other = await ask('sandbox.partner.example.attacker.example');
      expect(other.status).toBe(421);
      expect(JSON.parse(other.body).errors[0].detail).toContain('(loopback names, IP addresses, sandbox.partner.example)');
    } finally {
      await sandbox.close();
    }
  });

  it('refuses sandbox-environment deliveries to internal addresses before any connection; public ones get to connect', async () => {
    const { sandbox, spy } = await hosted();
    try {
      const demo = sandbox.demo.sandbox.customer;
      const token = await tokenFor(sandbox.url, demo.apiKeyId, demo.apiKeySecret, 'sandbox');
      const call = (method: string, path: string, body?: unknown) =>
        send(sandbox.url + BASES.sandbox + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const urls = ['https://169.254.169.254/latest/meta-data/iam', 'http://10.0.0.1/admin', 'https://[::7f00:1]/', 'https://metadata.partner.test/latest', 'https://admin.partner.test/', 'https://hooks.partner.test/care'];
      for (const url of urls) {
        const hook = await call('POST', '/webhooks', { url, eventTypes: ['case.contract.assigned'] });
        expect(hook.status, hook.text).toBe(201);
      }
      const c = (await call('GET', `/cases?page[size]=1&filter[contract]=${demo.contracts[0]}`)).json.data[0];
      const triggered = await call('POST', '/events/case.contract.assigned', { caseId: c.id });
      expect(triggered.status, triggered.text).toBe(202);
      const deliveries = () => sandbox.svc.store.deliveries(triggered.json.data.id, 'sandbox');
      await eventually(() => deliveries().length === urls.length && deliveries().every((d) => d.state !== 'pending'));
      const statuses = deliveries().map((d) => d.lastStatus).sort();
      expect(statuses).toEqual(
        [
          'refused: 169.254.169.254, which is linkLocal, not a public address',
          'refused: 10.0.0.1, which is private, not a public address',
          'refused: ::7f00:1, which is ipv4Compatible, not a public address',
          'refused: metadata.partner.test resolves to 169.254.169.254, which is linkLocal, not a public address',
          'refused: admin.partner.test resolves to 10.0.0.1, which is private, not a public address',
          expect.stringMatching(/^connection failed: test connector: not connecting/),
        ].sort(),
      );
      // only the public address was handed to the connector; every internal one was refused before it
      expect(spy.calls.map((call) => call.addresses.map((a) => a.address))).toEqual([['93.184.216.34']]);
      expect(spy.calls.every((call) => call.addresses.every((a) => addressRefusal(a.address, 'public') === undefined))).toBe(true);
    } finally {
      await sandbox.close();
    }
  });

  it('caps connections and closes idle ones', async () => {
    const { sandbox } = await hosted({ maxConnections: 2 });
    const sockets: Socket[] = [];
    try {
      expect(sandbox.server.maxConnections).toBe(2);
      expect(sandbox.server.timeout).toBe(HOSTED_LIMITS.idleTimeoutMs);
      expect(sandbox.server.requestTimeout).toBe(HOSTED_LIMITS.requestTimeoutMs);
      const open = () => {
        const socket = connect(sandbox.port, '127.0.0.1');
        socket.on('error', () => undefined);
        sockets.push(socket);
        let received = '';
        socket.on('data', (chunk) => (received += chunk));
        const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
        return new Promise<{ socket: Socket; closed: Promise<string> }>((resolve) => socket.on('connect', () => resolve({ socket, closed })));
      };
      const first = await open();
      await open();
      // the third is closed by the server at once, with no answer, while the first two are still served
      const third = await open();
      third.socket.write('GET /docs/try-it.json HTTP/1.1\r\nHost: localhost\r\n\r\n');
      expect(await third.closed).toBe('');
      first.socket.write('GET /docs/try-it.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      expect(await first.closed).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const socket of sockets) socket.destroy();
      await sandbox.close();
    }
  });
});
