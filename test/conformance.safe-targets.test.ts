// Issue 46, item 4: care-conformance stays safe on any target. Huge answers end in a report, not a crash; a read-only
// run sends only GET, HEAD and OPTIONS; a wrong base path stops at the preflight (exit 2, a handful of requests); a
// target that stops answering mid-run is exit 2 with one line, and what the run could not clean up is named.
// Every target is a real server on 127.0.0.1 (test/support/misbehaving-server.ts); the CLI runs as a process.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/conformance/types.ts';
import { runCli, startSandbox } from './support/conformance-targets.ts';
import { behave, startMisbehavingServer, startStallingProxy } from './support/misbehaving-server.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'care-conformance-safe-'));
const readReport = (file: string): RunReport => JSON.parse(readFileSync(file, 'utf8'));
const emptyList = { meta: { page: { number: 1, size: 50, count: 0, totalCount: 0 } }, data: [] };

describe('care-conformance on a target whose answers are 200 MB', () => {
  it('the preflight probe of 200 MB: a report and exit 2, not a crash', async () => {
    const target = await startMisbehavingServer(() => behave.huge(200));
    const dir = tmp();
    try {
      const run = await runCli(['--base-url', `${target.url}/care/v0/sandbox`, '--environment', 'sandbox', '--token', 'any', '--json', join(dir, 'report.json')]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/not the base URL of the sandbox API/);
      expect(readReport(join(dir, 'report.json')).stopped?.kind).toBe('target');
    } finally {
      await target.close();
    }
  }, 60_000);

  it('every answer but the probe is 200 MB: the run goes to its end with a report and exit 1 or 2, not a crash', async () => {
    // The probe (the first list without path parameters) answers a small list; everything else 200 MB.
    const probe = behave.json(200, emptyList);
    let probes = 0;
    const target = await startMisbehavingServer((req) => (req.method === 'GET' && /\/care\/v0\/sandbox\/[a-z]+(\?|$)/.test(req.url ?? '') && probes++ < 3 ? probe : behave.huge(200)));
    const dir = tmp();
    try {
      const run = await runCli(['--base-url', `${target.url}/care/v0/sandbox`, '--environment', 'sandbox', '--token', 'any', '--areas', 'operations,pagination', '--json', join(dir, 'report.json'), '--junit', join(dir, 'junit.xml')]);
      expect([1, 2]).toContain(run.code);
      const report = readReport(join(dir, 'report.json'));
      expect(report.results.length).toBeGreaterThan(5);
      expect(report.results.some((r) => r.status === 'failed' && /more than the suite reads of one answer/.test(r.failure?.why ?? ''))).toBe(true);
      expect(run.stdout).toMatch(/^(FAIL|STOPPED): /m);
    } finally {
      await target.close();
    }
  }, 120_000);
});

describe('a read-only run', () => {
  it('sends only GET, HEAD and OPTIONS to a production target that answers anything', async () => {
    // A gateway that answers 200 with a list to every method: a run that sent a write verb would have changed data.
    const list = behave.json(200, emptyList, { 'X-CareAPI-Env': 'Production' });
    const target = await startMisbehavingServer(() => list);
    const dir = tmp();
    try {
      const run = await runCli(['--base-url', `${target.url}/care/v0`, '--environment', 'production', '--token', 'any', '--contracts', 'CT0000101', '--json', join(dir, 'report.json')]);
      expect(run.stdout).toContain('read-only');
      expect(target.requests.length).toBeGreaterThan(20);
      expect([...new Set(target.requests.map((r) => r.method))].filter((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m))).toEqual([]);
      // The console names each area once, and a skip reason shared by many checks is written once.
      for (const area of ['operations', 'auth', 'pagination', 'resources', 'webhooks']) expect(run.stdout.match(new RegExp(`^${area}$`, 'gm')) ?? [], area).toHaveLength(1);
      expect(run.stdout.match(/production is read-only unless --allow-writes/g) ?? []).toHaveLength(1);
      const report = readReport(join(dir, 'report.json'));
      expect(report.results.some((r) => r.id === 'operations.wrong-method' && r.status === 'skipped' && /only GET, HEAD and OPTIONS/.test(r.reason ?? ''))).toBe(true);
    } finally {
      await target.close();
    }
  }, 180_000);
});

describe('a wrong base path', () => {
  it.each([
    ['the bare origin', ''],
    ['the docs', '/docs'],
    ['another version', '/care/v1/sandbox'],
  ])('%s: the preflight stops with exit 2 after a handful of requests', async (_, path) => {
    // What a service answers at a path it does not serve: a 404 in its envelope, with its environment.
    const target = await startMisbehavingServer({}, behave.json(404, { meta: {}, errors: [{ status: '404', title: 'Not Found', detail: 'no such path' }] }));
    const dir = tmp();
    try {
      const run = await runCli(['--base-url', `${target.url}${path}`, '--environment', 'sandbox', '--token', 'any', '--json', join(dir, 'report.json')]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/answered 404 application\/json: .* is not the base URL of the sandbox API \(its path ends in \/care\/v0\/sandbox\)/);
      expect(target.requests.length).toBeLessThanOrEqual(3);
      expect(target.requests.filter((r) => r.method !== 'GET')).toEqual([]);
      expect(readReport(join(dir, 'report.json')).results.map((r) => r.id)).toEqual(['operations.preflight']);
    } finally {
      await target.close();
    }
  }, 60_000);
});

describe('a target that stops answering mid-run', () => {
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  beforeAll(async () => {
    sandbox = await startSandbox('sandbox');
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('is exit 2 with one line, and the cases it could not close are named', async () => {
    // Through a proxy that answers 60 requests and then holds every request: the fixtures are created by then.
    const proxy = await startStallingProxy(sandbox.url, 60);
    const dir = tmp();
    try {
      const config = join(dir, 'config.json');
      writeFileSync(config, JSON.stringify(sandbox.config).split(sandbox.url).join(proxy.url));
      const run = await runCli(['--config', config, '--request-timeout', '1500', '--json', join(dir, 'report.json')]);
      expect(run.code).toBe(2);
      const stopped = run.stderr.split('\n').filter((l) => /stopped answering during/.test(l));
      expect(stopped).toHaveLength(1);
      const report = readReport(join(dir, 'report.json'));
      expect(report.stopped?.kind).toBe('target');
      const named = report.left!.items.filter((i) => /^case CS\d+ \(open\)$/.test(i));
      expect(named.length).toBeGreaterThan(0);
      expect(run.stderr).toContain(`left behind (cleanup could not undo it): ${report.left!.items.join(', ')}`);
      // The cases named are the ones the target still holds open.
      const token = await fetch(`${sandbox.config.authUrl}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sandbox.config.customer.apiKeyId, client_secret: sandbox.config.customer.apiKeySecret, audience: 'sandbox' }) });
      const auth = { authorization: `Bearer ${((await token.json()) as any).access_token}` };
      for (const item of named) {
        const id = /CS\d+/.exec(item)![0];
        const got = (await (await fetch(`${sandbox.config.baseUrl}/cases/${id}`, { headers: auth })).json()) as any;
        expect(got.data.status).not.toBe(3);
      }
    } finally {
      await proxy.close();
    }
  }, 180_000);
});
