// Issue 46, item 5 (D-109): failures carry structured context (expected, actual, where, the exchange) in the JSON and
// JUnit reports; --summary writes Markdown for a CI job page, failures first by area with their statements; the
// console names each area once and writes a shared skip reason once.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectEqual, expectStatus, type Check } from '../src/conformance/check.ts';
import { progressPrinter, renderTable } from '../src/conformance/reporters/console.ts';
import { renderJunit } from '../src/conformance/reporters/junit.ts';
import { renderSummary } from '../src/conformance/reporters/summary.ts';
import { runSuite, summarise } from '../src/conformance/runner.ts';
import type { CheckResult, ProgressEvent, RunReport } from '../src/conformance/types.ts';
import { runCli } from './support/conformance-targets.ts';
import { behave, startMisbehavingServer } from './support/misbehaving-server.ts';

const list = { meta: { page: { number: 1, size: 50, count: 0, totalCount: 0 } }, data: [] };

/** A run of a few literal checks against a fake sandbox that answers every GET with an empty list. */
async function runAgainstFake(checks: Check[], onProgress?: (e: ProgressEvent) => void): Promise<RunReport> {
  const target = await startMisbehavingServer(() => behave.json(200, list));
  try {
    return await runSuite({
      config: { environment: 'sandbox', baseUrl: `${target.url}/care/v0/sandbox`, customer: { token: 'any', contracts: ['CT0000101'], contacts: [] } },
      allowWrites: false, stateless: false, areas: [], listen: '127.0.0.1:0', deliveryTimeoutMs: 1000, onProgress,
    }, checks);
  } finally {
    await target.close();
  }
}

const check = (id: string, area: Check['area'], run: Check['run'], last = false): Check => ({ id, area, title: id, statements: ['S1.page-meta'], run, last });

describe('structured failures', () => {
  it('a compared value is in the JSON report as expected, actual and where, with the exchange', async () => {
    const report = await runAgainstFake([
      check('pagination.compared', 'pagination', async (ctx) => {
        const x = await ctx.call(ctx.customer, 'listCases');
        expectEqual(x.json.meta.page.totalCount, 6, 'six cases were created', x, 'body.meta.page.totalCount');
      }),
      check('auth.status', 'auth', async (ctx) => expectStatus(await ctx.call(ctx.customer, 'listCases'), 401, 'no token')),
    ]);
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId['pagination.compared'].failure?.context).toMatchObject({ expected: 6, actual: 0, at: 'body.meta.page.totalCount', exchange: { method: 'GET', status: 200, contentType: 'application/json' } });
    expect(byId['pagination.compared'].failure?.context?.exchange?.url).toMatch(/\/care\/v0\/sandbox\/cases$/);
    expect(byId['auth.status'].failure?.context).toMatchObject({ expected: 401, actual: 200, at: 'status' });
    const xml = renderJunit(report);
    expect(xml).toContain('<property name="expected" value="6"/>');
    expect(xml).toContain('<property name="actual" value="0"/>');
    expect(xml).toContain('<property name="at" value="body.meta.page.totalCount"/>');
    expect(xml).toMatch(/<failure message="six cases were created" type="body.meta.page.totalCount">six cases were created\nexpected: 6\nactual: 0/);
  }, 30_000);
});

describe('the Markdown summary', () => {
  const results: CheckResult[] = [
    { id: 'pagination.defaults[listCases]', area: 'pagination', title: 't', statements: ['S1.page-meta'], status: 'passed', durationMs: 3, requests: 1 },
    { id: 'auth.no-token', area: 'auth', title: 't', statements: ['S5.bearer-jwt'], status: 'failed', durationMs: 2, requests: 1, failure: { why: 'expected 401, got 200', curl: "curl -sS 'http://h/cases'", excerpt: 'HTTP 200 application/json', context: { expected: 401, actual: 200, at: 'status' } } },
    { id: 'auth.revoked-key', area: 'auth', title: 't', statements: ['S5.bearer-jwt'], status: 'skipped', reason: 'production is read-only', durationMs: 0, requests: 0 },
    { id: 'pagination.walk', area: 'pagination', title: 't', statements: ['S1.page-meta'], status: 'skipped', reason: 'production is read-only', durationMs: 0, requests: 0 },
  ];
  const report: RunReport = { target: { environment: 'production', baseUrl: 'http://h/care/v0' }, startedAt: '2026-01-01T00:00:00Z', durationMs: 5, requests: 2, results, areas: summarise(results), ok: false, left: { webhooks: 1, keys: 0, cases: 0, problems: [], items: ['webhook subscription WH0000007'] } };

  it('puts the verdict and the failures first, by area, with their statements and the values compared', () => {
    const md = renderSummary(report);
    expect(md.startsWith('# care-conformance: FAIL\n')).toBe(true);
    expect(md.indexOf('## Failures (1)')).toBeLessThan(md.indexOf('## By area'));
    expect(md).toContain('### auth\n\n- **auth.no-token** (`S5.bearer-jwt`): expected 401, got 200\n  - expected `401`, got `200` at `status`');
    expect(md).toContain('| pagination | 1 | 0 | 1 |');
    // A skip reason shared by two checks is written once.
    expect(md.match(/production is read-only/g)).toHaveLength(1);
    expect(md).toContain('## Left behind\n\n- webhook subscription WH0000007');
  });

  it('--summary writes it, also for a run the preflight stopped', async () => {
    const target = await startMisbehavingServer({}, behave.json(404, { meta: {}, errors: [{ status: '404', detail: 'no such path' }] }));
    const dir = mkdtempSync(join(tmpdir(), 'care-conformance-summary-'));
    try {
      const run = await runCli(['--base-url', `${target.url}/nowhere`, '--environment', 'sandbox', '--token', 'any', '--summary', join(dir, 'summary.md')]);
      expect(run.code).toBe(2);
      const md = readFileSync(join(dir, 'summary.md'), 'utf8');
      expect(md).toMatch(/^# care-conformance: STOPPED\n/);
      expect(md).toMatch(/\*\*Stopped:\*\* GET .* answered 404/);
    } finally {
      await target.close();
    }
  }, 60_000);
});

describe('the console', () => {
  it('names each area once, even when a check of an area runs after the others (operations.observed)', async () => {
    let printed = '';
    const pass = async () => undefined;
    await runAgainstFake([
      check('operations.first', 'operations', pass),
      check('auth.one', 'auth', pass),
      check('operations.last', 'operations', pass, true),
    ], progressPrinter((s) => (printed += s)));
    expect(printed.match(/^operations$/gm)).toHaveLength(1);
    expect(printed.match(/^ {2}operations: 2 passed, 0 failed, 0 skipped$/gm)).toHaveLength(1);
    expect(printed.match(/^auth$/gm)).toHaveLength(1);
  }, 30_000);

  it('writes a skip reason shared by several areas once in the table', () => {
    const skipped = (area: CheckResult['area']): CheckResult => ({ id: `${area}.x`, area, title: 't', statements: [], status: 'skipped', reason: 'stateless target (--stateless)', durationMs: 0, requests: 0 });
    const table = renderTable(summarise([skipped('operations'), skipped('auth'), skipped('resources')]));
    expect(table.match(/stateless target/g)).toHaveLength(1);
    expect(table.match(/\(as above\)/g)).toHaveLength(2);
  });
});
