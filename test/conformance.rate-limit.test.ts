// operations.rate-limit against a reference sandbox that limits (--rate-limit): its 429s carry Retry-After and the
// check passes; with Retry-After stripped by the fault proxy the same check fails. (The sandbox of the other suite
// tests does not limit, so there the check is skipped with its reason.) operations.rate-limit-fields (D-102) judges
// the RateLimit fields of the same answers: every one carries both, and one dropped by the proxy fails it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observableChecks } from '../src/conformance/checks/observable.ts';
import { rateLimitFieldChecks } from '../src/conformance/checks/rate-limit-fields.ts';
import { validateConfig } from '../src/conformance/config.ts';
import { runSuite } from '../src/conformance/runner.ts';
import type { TargetConfig } from '../src/conformance/types.ts';
import { FaultProxy } from './mutation/proxy.ts';
import { startSandbox } from './support/conformance-targets.ts';

const check = [...observableChecks.filter((c) => c.id === 'operations.rate-limit'), ...rateLimitFieldChecks];

describe('Retry-After on 429 (D-31)', () => {
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  let proxy: FaultProxy;
  let direct: TargetConfig;
  let proxied: TargetConfig;

  beforeAll(async () => {
    sandbox = await startSandbox('sandbox', ['--rate-limit', '5']);
    proxy = new FaultProxy(sandbox.url);
    const origin = await proxy.start();
    direct = validateConfig(sandbox.config);
    proxied = validateConfig(JSON.parse(JSON.stringify(sandbox.config).split(sandbox.url).join(origin)));
  }, 90_000);
  afterAll(async () => {
    await proxy?.close();
    await sandbox?.stop();
  });

  /** The run's results after its preflight (issue 40), which must pass. */
  const run = async (config: TargetConfig) => {
    const report = await runSuite({ config, allowWrites: false, stateless: false, areas: [], listen: '127.0.0.1:0', deliveryTimeoutMs: 5_000 }, check);
    const [preflight, ...results] = report.results;
    expect(`${preflight.id} ${preflight.status}`).toBe('operations.preflight passed');
    return { ...report, results };
  };

  it('passes against a sandbox that limits, having seen 429s', async () => {
    const report = await run(direct);
    expect(report.results.map((r) => [r.id, r.status, r.failure?.why ?? r.reason])).toEqual([['operations.rate-limit', 'passed', undefined], ['operations.rate-limit-fields', 'passed', undefined]]);
    expect(report.results[0].note).toMatch(/answered 429/);
    expect(report.results[1].note).toMatch(/^\d+ answers carried both fields/);
  }, 60_000);

  /** A run through the proxy whose 429 answers lose one header. */
  async function runWith429sLosing(header: string) {
    proxy.fault = {
      name: `${header}-missing`, area: 'operations', description: `429 without ${header}`,
      response: (res) => { if (res.status !== 429) return res; const h = { ...res.headers }; delete h[header]; return { ...res, headers: h }; },
    };
    try {
      return await run(proxied);
    } finally {
      proxy.fault = null;
    }
  }

  it('fails when the 429s lose Retry-After', async () => {
    const report = await runWith429sLosing('retry-after');
    expect(report.results[0].status).toBe('failed');
    expect(report.results[0].failure?.why).toMatch(/Retry-After/);
  }, 60_000);

  it('fails operations.rate-limit-fields when the 429s lose RateLimit-Policy', async () => {
    const report = await runWith429sLosing('ratelimit-policy');
    expect(report.results.map((r) => [r.id, r.status])).toEqual([['operations.rate-limit', 'passed'], ['operations.rate-limit-fields', 'failed']]);
    expect(report.results[1].failure?.why).toBe('the answer carries RateLimit without RateLimit-Policy');
  }, 60_000);
});
