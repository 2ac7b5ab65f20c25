// Issue 40: care-conformance in a platform team's hands. It writes only where the target itself proves it may (its
// base path and X-CareAPI-Env), never hangs (a silent, unreachable or refusing target is one error, exit 2), checks
// its options and report paths before the first request, and on SIGINT/SIGTERM deletes what it created and writes
// the partial report. Every target is a real process or a real server on 127.0.0.1; the CLI runs as a process.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/conformance/types.ts';
import { root, runCli, startSandbox } from './support/conformance-targets.ts';
import { behave, startMisbehavingServer, startSilentServer } from './support/misbehaving-server.ts';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
const tmp = () => mkdtempSync(join(tmpdir(), 'care-conformance-safety-'));

/** Totals an account sees: cases, open cases marked [conformance], webhook subscriptions, unrevoked keys, events. */
async function counts(config: any): Promise<Record<string, number>> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: config.customer.apiKeyId, client_secret: config.customer.apiKeySecret, audience: config.environment });
  const token = ((await (await fetch(`${config.authUrl}/oauth/token`, { method: 'POST', body })).json()) as any).access_token;
  const lists = {
    cases: '/cases',
    openMarked: '/cases?filter[shortDescription][startswith]=%5Bconformance%5D&filter[status][ne]=3',
    webhooks: '/webhooks',
    keys: '/apikeys?filter[revokedAt][null]',
    events: '/events',
  };
  const out: Record<string, number> = {};
  for (const [name, path] of Object.entries(lists)) {
    const r = await fetch(`${config.baseUrl}${path}${path.includes('?') ? '&' : '?'}page[size]=1`, { headers: { authorization: `Bearer ${token}` } });
    const json = (await r.json()) as any;
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
    out[name] = json.meta.page.totalCount;
  }
  return out;
}

/** A port nothing listens on: taken from the system, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const readReport = (file: string): RunReport => JSON.parse(readFileSync(file, 'utf8'));

describe('care-conformance writes only where the target proves it may', () => {
  let production: Sandbox;
  beforeAll(async () => {
    production = await startSandbox('production');
  }, 60_000);
  afterAll(async () => {
    await production?.stop();
  });

  it('a sandbox configuration pointed at a production target stops with exit 2 and writes nothing', async () => {
    const before = await counts(production.config);
    const dir = tmp();
    // The production credentials, so the target would accept the writes; only the environment is wrong.
    const run = await runCli(['--config', production.configFile, '--environment', 'sandbox', '--json', join(dir, 'report.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/production base path, but the configuration says sandbox: refusing to run/);
    expect(await counts(production.config)).toEqual(before);
    const report = readReport(join(dir, 'report.json'));
    expect(report.stopped?.kind).toBe('target');
    expect(report.results.map((r) => r.id)).toEqual(['operations.preflight']);
  }, 60_000);

  it('a production configuration with --allow-writes pointed at the sandbox stops with exit 2 and writes nothing', async () => {
    // The production credentials at the sandbox's base path: a run that went on would write to the sandbox.
    const dir = tmp();
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ ...production.config, baseUrl: `${production.config.baseUrl}/sandbox` }));
    const run = await runCli(['--config', config, '--allow-writes', '--json', join(dir, 'report.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/sandbox base path, but the configuration says production/);
    expect(readReport(join(dir, 'report.json')).requests).toBe(0);
  }, 60_000);

  it('a target whose answers say X-CareAPI-Env: Production is never written to by a sandbox run (any base path)', async () => {
    const list = behave.json(200, { meta: { page: { number: 1, size: 50, count: 0, totalCount: 0 } }, data: [] }, { 'X-CareAPI-Env': 'Production' });
    const target = await startMisbehavingServer(() => list, list);
    try {
      const run = await runCli(['--base-url', `${target.url}/api`, '--environment', 'sandbox', '--token', 'any', '--contracts', 'CT0000101']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/answers X-CareAPI-Env: Production, but the configuration says sandbox/);
      expect(target.requests.length).toBeGreaterThan(0);
      expect(target.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    } finally {
      await target.close();
    }
  }, 60_000);
});

describe('care-conformance never hangs: one clear error, exit 2, for a target it cannot check', () => {
  it('a silent target (accepts, never answers) is reported after the request timeout, with the report written', async () => {
    const silent = await startSilentServer();
    const dir = tmp();
    try {
      const run = await runCli(['--base-url', `${silent.url}/care/v0/sandbox`, '--environment', 'sandbox', '--token', 'any', '--request-timeout', '1000', '--json', join(dir, 'report.json'), '--junit', join(dir, 'junit.xml')]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/accepted the connection but sent no complete answer .* within 1000 ms/);
      expect(silent.connections).toBeGreaterThan(0);
      expect(readReport(join(dir, 'report.json')).stopped?.kind).toBe('target');
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('operations.preflight');
    } finally {
      await silent.close();
    }
  }, 60_000);

  it('an unreachable port is one error naming the address', async () => {
    const port = await closedPort();
    const run = await runCli(['--base-url', `http://127.0.0.1:${port}/care/v0/sandbox`, '--environment', 'sandbox', '--token', 'any']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`cannot reach the target .*127\\.0\\.0\\.1:${port}.*ECONNREFUSED`));
    expect(run.stdout.match(/✗/g) ?? []).toHaveLength(1);
  }, 60_000);

  describe('wrong credentials', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox('sandbox');
    }, 60_000);
    afterAll(async () => {
      await sandbox?.stop();
    });

    it('a refused API key or token is one error with exit 2, not hundreds of failures', async () => {
      const badKey = await runCli(['--config', sandbox.configFile, '--api-key-secret', 'ck_wrong']);
      expect(badKey.code).toBe(2);
      expect(badKey.stderr).toMatch(/API key exchange .* refused with HTTP 40\d.*credentials of the configuration do not work/);
      const badToken = await runCli(['--config', sandbox.configFile, '--token', 'not-a-token']);
      expect(badToken.code).toBe(2);
      expect(badToken.stderr).toMatch(/the customer account's credentials are refused: GET .* answered 401/);
      expect(badToken.stdout.match(/✗/g) ?? []).toHaveLength(1);
    }, 60_000);

    it('the auth checks do not pass on a key that is wrong or not revoked', async () => {
      // The customer works by token; its API key (used by auth.other-environment) and the "revoked" key are wrong.
      const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: sandbox.config.customer.apiKeyId, client_secret: sandbox.config.customer.apiKeySecret, audience: 'sandbox' });
      const token = ((await (await fetch(`${sandbox.config.authUrl}/oauth/token`, { method: 'POST', body })).json()) as any).access_token;
      const config = join(tmp(), 'config.json');
      writeFileSync(config, JSON.stringify({
        ...sandbox.config,
        customer: { ...sandbox.config.customer, token, apiKeySecret: 'ck_wrong' },
        revokedApiKey: { apiKeyId: 'AK9999999', apiKeySecret: 'ck_wrong' },
      }));
      const dir = tmp();
      await runCli(['--config', config, '--areas', 'auth', '--json', join(dir, 'report.json')]);
      const byId = Object.fromEntries(readReport(join(dir, 'report.json')).results.map((r) => [r.id, r]));
      expect(byId['auth.other-environment'].status).toBe('failed');
      expect(byId['auth.other-environment'].failure?.why).toMatch(/refused for sandbox itself/);
      expect(byId['auth.revoked-key'].status).toBe('skipped');
      expect(byId['auth.revoked-key'].reason).toMatch(/AK9999999 is not a key any configured account can read/);
    }, 60_000);
  });
});

describe('care-conformance checks its options before the first request', () => {
  it.each([
    [['--delivery-timeout', 'abc'], /--delivery-timeout: a whole number of milliseconds from 1 to 2147483647 is required, got "abc"/],
    [['--delivery-timeout=-1'], /--delivery-timeout: .* got "-1"/],
    [['--request-timeout', '0'], /--request-timeout: .* got "0"/],
    [['--json', '/no/such/directory/report.json'], /--json \/no\/such\/directory\/report.json: the directory \/no\/such\/directory does not exist/],
    [['--junit', tmpdir()], /--junit .*: is a directory/],
    [['--areas', 'auth,nope'], /--areas: unknown area nope/],
    [['--seed', '3'], /--seed: only with --stateful N/],
    [['--listen', 'nowhere'], /--listen: host:port is required/],
  ])('%j is exit 2 with a message, and no request is sent', async (args, message) => {
    const target = await startMisbehavingServer({});
    try {
      const run = await runCli(['--base-url', `${target.url}/care/v0/sandbox`, '--environment', 'sandbox', '--token', 'any', ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(target.requests).toEqual([]);
    } finally {
      await target.close();
    }
  }, 30_000);

  it('--help documents every exit code', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const code of ['0', '1', '2', '130', '143']) expect(run.stdout).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
    expect(run.stdout).toContain('--request-timeout MS');
  });
});

describe('care-conformance interrupted by a signal cleans up and reports', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox('sandbox');
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
  });

  /** Start a run that is still going once the webhooks area has ended (a long stateful run follows it). */
  function startRun(dir: string) {
    const child = spawn(process.execPath, [join(root, 'bin/care-conformance.js'), '--config', sandbox.configFile, '--areas', 'resources,webhooks', '--stateful', '100000', '--seed', '1', '--json', join(dir, 'report.json'), '--junit', join(dir, 'junit.xml')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const webhooksDone = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c) => {
        stdout += c;
        if (/\n {2}webhooks: \d+ passed/.test(stdout)) resolve();
      });
      child.on('exit', () => reject(new Error(`the run ended before the webhooks area did:\n${stdout}\n${stderr}`)));
    });
    return { child, exited, webhooksDone, output: () => ({ stdout, stderr }) };
  }

  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal} mid-run: exit ${code}, the subscriptions and keys it created are gone, its cases closed, the partial report written`, async () => {
      const before = await counts(sandbox.config);
      const dir = tmp();
      const run = startRun(dir);
      await run.webhooksDone;
      const during = await counts(sandbox.config);
      expect(during.webhooks).toBeGreaterThan(before.webhooks); // there is something to clean up
      run.child.kill(signal);
      expect(await run.exited).toBe(code);
      expect(run.output().stderr).toContain(`${signal}: stopping`);
      const after = await counts(sandbox.config);
      expect({ webhooks: after.webhooks, keys: after.keys, openMarked: after.openMarked }).toEqual({ webhooks: before.webhooks, keys: before.keys, openMarked: before.openMarked });
      expect(after.cases).toBeGreaterThan(before.cases);
      const report = readReport(join(dir, 'report.json'));
      expect(report.stopped).toEqual({ kind: 'interrupted', why: `the run was interrupted (${signal})` });
      expect(report.left).toEqual({ webhooks: 0, keys: 0, cases: 0, problems: [], items: [] });
      expect(report.results.filter((r) => r.area === 'webhooks' && r.status === 'passed').length).toBeGreaterThan(5);
      expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
    }, 180_000);
  }
});
