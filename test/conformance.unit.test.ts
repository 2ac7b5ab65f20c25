// The suite's own parts on literal inputs: redaction, curl lines, config resolution, the judge, the receiver,
// reporters, and the filter/sort judgement on literal query strings (grammar-independent vectors).
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../src/spec/index.ts';
import { matchesFilters, compareBySort } from '../src/grammar/index.ts';
import { resolveConfig, validateConfig } from '../src/conformance/config.ts';
import { excerpt, toCurl, type Exchange } from '../src/conformance/http.ts';
import { judge, operationOf } from '../src/conformance/judge.ts';
import { Receiver } from '../src/conformance/receiver.ts';
import { redactText } from '../src/conformance/redact.ts';
import { renderJunit } from '../src/conformance/reporters/junit.ts';
import { renderReport, renderTable } from '../src/conformance/reporters/console.ts';
import { summarise } from '../src/conformance/runner.ts';
import { Context } from '../src/conformance/context.ts';
import { clausesOf, sortKeysOf } from '../src/conformance/grammar.ts';
import { valueFor } from '../src/conformance/checks/filters.ts';
import type { CheckResult, RunReport } from '../src/conformance/types.ts';

const spec = loadSpec();
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJBSzEifQ.c2lnbmF0dXJlLXNlY3JldA';

function exchange(partial: Partial<Exchange>): Exchange {
  const text = partial.text ?? (partial.json !== undefined ? JSON.stringify(partial.json) : '');
  return {
    method: 'GET', url: 'http://127.0.0.1:1/cases', path: '/cases', query: '', requestHeaders: {}, status: 200,
    headers: { 'content-type': 'application/json', 'x-careapi-env': 'Sandbox' }, bytes: Buffer.from(text), text, json: undefined,
    ...partial,
  };
}

describe('redaction', () => {
  it('curl lines never hold the token, and keep the scheme', () => {
    const curl = toCurl({ method: 'POST', url: 'http://h/cases?filter[status]=10', requestHeaders: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, requestBody: '{"a":1}' });
    expect(curl).not.toContain(TOKEN);
    expect(curl).toContain("'authorization: Bearer <redacted>'");
    expect(curl).toContain('-g');
    expect(curl).toContain("--data-raw '{\"a\":1}'");
  });
  it('masks secrets in JSON and form bodies and stray JWTs', () => {
    const body = JSON.stringify({ data: { secret: 'ck_live_x', signingSecret: 'whsec_abc', authorization: { type: 'basic', password: 'pw' }, label: 'keep' } });
    const out = redactText(body);
    expect(out).not.toMatch(/ck_live_x|whsec_abc|"pw"/);
    expect(out).toContain('keep');
    expect(redactText('grant_type=client_credentials&client_id=AK1&client_secret=ck_s3cret')).not.toContain('ck_s3cret');
    expect(redactText(`oops ${TOKEN} leaked`)).not.toContain(TOKEN);
  });
  it('an excerpt says when X-CareAPI-Env is missing', () => {
    expect(excerpt(exchange({ status: 500, headers: { 'content-type': 'text/plain' }, text: 'boom' }))).toContain('(no X-CareAPI-Env)');
  });
});

describe('config', () => {
  const file = { environment: 'sandbox', baseUrl: 'http://127.0.0.1:4020/care/v0/sandbox/', authUrl: 'http://127.0.0.1:4020/auth/v2', customer: { apiKeyId: 'AK1', apiKeySecret: 'ck_1', contracts: ['CT1'], contacts: [] } };
  it('reads the file, then environment variables, then flags, in rising precedence', () => {
    const { config, listen } = resolveConfig(file, { CARE_CONTRACTS: 'CT2,CT3', CARE_LISTEN: '127.0.0.1:9999' }, { 'foreign-contract': 'CT9' });
    expect(config.baseUrl).toBe('http://127.0.0.1:4020/care/v0/sandbox');
    expect(config.customer.contracts).toEqual(['CT2', 'CT3']);
    expect(config.foreignContract).toBe('CT9');
    expect(listen).toBe('127.0.0.1:9999');
    expect(resolveConfig(file, { CARE_CONTRACTS: 'CT2' }, { contracts: 'CT4' }).config.customer.contracts).toEqual(['CT4']);
  });
  it('takes a token instead of an API key, and says which member is wrong', () => {
    expect(resolveConfig(undefined, {}, { 'base-url': 'http://h/care/v0', environment: 'production', token: 'ey.x.y' }).config.customer.token).toBe('ey.x.y');
    expect(() => validateConfig({ ...file, environment: 'staging' })).toThrow(/environment/);
    expect(() => validateConfig({ ...file, customer: { contracts: [] } })).toThrow(/config\.customer/);
    expect(() => validateConfig({ ...file, revokedApiKey: { apiKeyId: 'AK3' } })).toThrow(/revokedApiKey/);
  });
});

describe('judge', () => {
  const listCases = spec.operation('listCases');
  const ok = { meta: { page: { number: 1, size: 50, count: 0, totalCount: 0 } }, data: [] };
  it('accepts a conforming answer', () => {
    expect(judge(spec, listCases, exchange({ json: ok, text: JSON.stringify(ok) }), 'Sandbox')).toEqual([]);
  });
  it('names each kind of problem', () => {
    expect(judge(spec, listCases, exchange({ json: ok, text: JSON.stringify(ok), headers: { 'content-type': 'application/json' } }), 'Sandbox').join()).toMatch(/X-CareAPI-Env is missing/);
    expect(judge(spec, listCases, exchange({ json: ok, text: JSON.stringify(ok) }), 'Production').join()).toMatch(/expected "Production"/);
    expect(judge(spec, listCases, exchange({ status: 418, json: ok, text: JSON.stringify(ok) }), 'Sandbox').join()).toMatch(/not declared/);
    expect(judge(spec, listCases, exchange({ status: 502, json: ok, text: '{}' }), 'Sandbox').join()).toMatch(/5xx/);
    expect(judge(spec, listCases, exchange({ json: { data: [] }, text: '{"data":[]}' }), 'Sandbox').join()).toMatch(/schema/);
    expect(judge(spec, listCases, exchange({ json: ok, text: JSON.stringify(ok), headers: { 'content-type': 'text/html', 'x-careapi-env': 'Sandbox' } }), 'Sandbox').join()).toMatch(/Content-Type/);
    const error = { meta: {}, errors: [{ status: '400', title: 'Bad Request', detail: 'query.sort: x' }] };
    expect(judge(spec, listCases, exchange({ status: 400, json: error, text: JSON.stringify(error) }), 'Sandbox').join()).toMatch(/code/);
  });
  it('finds the operation of a path, literal paths before templates', () => {
    expect(operationOf(spec.operations, 'POST', '/events/case.updated')?.operationId).toBe('triggerCaseUpdated');
    expect(operationOf(spec.operations, 'GET', '/events/EV1')?.operationId).toBe('getEvent');
    // GET on a trigger path is that path (405), not a read of an event named like the trigger (D-89).
    expect(operationOf(spec.operations, 'GET', '/events/case.updated')).toBeUndefined();
    expect(operationOf(spec.operations, 'GET', '/cases/CS1/attachments/AT1/download')?.operationId).toBe('downloadCaseAttachment');
    expect(operationOf(spec.operations, 'GET', '/nowhere')).toBeUndefined();
  });
});

describe('filter and sort judgement on literal query strings', () => {
  const ctx = new Context({ config: validateConfig({ environment: 'sandbox', baseUrl: 'http://127.0.0.1:1', customer: { token: 't', contracts: [] } }), allowWrites: false, stateless: false, areas: [], listen: '127.0.0.1:0', deliveryTimeoutMs: 100 }, spec);
  const cases = [
    { id: 'CS1', contract: 'CT1', shortDescription: 'Printer, floor 3', status: 10, priority: 1, incident: null, watchList: ['a@x.example'], createdAt: '2026-01-01T00:00:00.000Z', created: '2026-01-01T00:00:00.000Z' },
    { id: 'CS2', contract: 'CT1', shortDescription: 'VPN drops', status: 1, priority: 2, incident: 'INC1', watchList: [], createdAt: '2026-02-01T00:00:00.000Z', created: '2026-02-01T00:00:00.000Z' },
    { id: 'CS3', contract: 'CT2', shortDescription: 'printer jam', status: 10, priority: 3, incident: null, watchList: ['b@x.example'], createdAt: '2026-03-01T12:00:00.000Z', created: '2026-03-01T12:00:00.000Z' },
  ];
  const pick = (q: string) => cases.filter((c) => matchesFilters(c, clausesOf(ctx, 'listCases', q), spec.operators)).map((c) => c.id);
  it.each([
    ['filter[status]=10', ['CS1', 'CS3']],
    ['filter[status][ne]=10', ['CS2']],
    ['filter[priority][in]=1,2', ['CS1', 'CS2']],
    ['filter[priority][between]=2,3', ['CS2', 'CS3']],
    ['filter[incident][notNull]', ['CS2']],
    ['filter[incident][null]=', ['CS1', 'CS3']],
    ['filter[createdAt][ge]=2026-02-01', ['CS2', 'CS3']],
    ['filter[createdAt][lt]=1769904000', ['CS1']],
    ['filter[shortDescription][contains]=rinter', ['CS1', 'CS3']],
    ['filter[shortDescription][like]=P*', ['CS1']],
    ['filter[shortDescription][in]=Printer\\, floor 3,VPN drops', ['CS1', 'CS2']],
    ['filter[shortDescription][match]=^[pP]rinter', ['CS1', 'CS3']],
    ['filter[watchList][contains]=b@x.example', ['CS3']],
    ['filter[watchList][empty]', ['CS2']],
    ['filter[createdAt][sameas]=created', ['CS1', 'CS2', 'CS3']],
    ['filter[status]=10&filter[contract]=CT1', ['CS1']],
  ])('%s selects %j', (q, want) => {
    expect(pick(q)).toEqual(want);
  });
  it('orders by sort keys with id as the tie-break', () => {
    const order = (q: string) => [...cases].sort((a, b) => compareBySort(a, b, sortKeysOf(ctx, 'listCases', q))).map((c) => c.id);
    expect(order('sort=-priority')).toEqual(['CS3', 'CS2', 'CS1']);
    expect(order('sort=status,-created')).toEqual(['CS2', 'CS3', 'CS1']);
  });
  it('the values it picks from data make both an operator and its complement non-empty', () => {
    const fields = spec.operation('listCases').list!.filterFields;
    expect(valueFor(fields.shortDescription, 'startswith', 'single', cases, fields)).toBe('Printe');
    expect(valueFor(fields.createdAt, 'sameas', 'field', cases, fields)).toBe('created');
    expect(valueFor(fields.priority, 'between', 'pair', cases, fields)).toEqual([1, 2]);
    expect(valueFor(fields.incident, 'eq', 'single', [{ incident: null }], fields)).toBeUndefined();
  });
});

describe('receiver', () => {
  it('resolves a wait on arrival and times out as an error otherwise', async () => {
    const r = new Receiver();
    const { url, path } = await r.newUrl('127.0.0.1:0');
    const waiting = r.waitFor((d) => d.path === path && d.json?.n === 2, 5_000, 'n=2');
    await fetch(url, { method: 'POST', body: '{"n":1}' });
    await fetch(url, { method: 'POST', body: '{"n":2}' });
    const d = await waiting;
    expect(d.seq).toBe(1);
    expect(r.at(path).map((x) => x.json.n)).toEqual([1, 2]);
    await expect(r.waitFor(() => false, 20, 'nothing')).rejects.toThrow(/no delivery within 20 ms: nothing/);
    await r.close();
  });
});

describe('reporters', () => {
  const results: CheckResult[] = [
    { id: 'pagination.defaults[listCases]', area: 'pagination', title: 't', statements: ['S1.page-meta'], status: 'passed', durationMs: 3, requests: 1 },
    { id: 'auth.no-token', area: 'auth', title: 't', statements: ['S5.bearer-jwt'], status: 'failed', durationMs: 2, requests: 1, failure: { why: 'expected 401 <got> 200 & more', curl: "curl -sS 'http://h/cases'", excerpt: 'HTTP 200' } },
    { id: 'auth.revoked-key', area: 'auth', title: 't', statements: ['S5.bearer-jwt'], status: 'skipped', reason: 'no revokedApiKey', durationMs: 0, requests: 0 },
  ];
  const report: RunReport = { target: { environment: 'sandbox', baseUrl: 'http://h' }, startedAt: '2026-01-01T00:00:00Z', durationMs: 5, requests: 2, results, areas: summarise(results), ok: false };
  it('summarises per area with skip reasons', () => {
    expect(report.areas.map((a) => [a.area, a.passed, a.failed, a.skipped])).toEqual([['auth', 0, 1, 1], ['pagination', 1, 0, 0]]);
    expect(renderTable(report.areas)).toMatch(/auth\s+0\s+1\s+1\s+no revokedApiKey/);
    expect(renderReport(report)).toMatch(/why: expected 401[\s\S]*request: curl[\s\S]*FAIL/);
  });
  it('writes well-formed JUnit with escaped failure text', () => {
    const xml = renderJunit(report);
    expect(xml).toContain('<testsuite name="auth" tests="2" failures="1" skipped="1"');
    expect(xml).toContain('expected 401 &lt;got&gt; 200 &amp; more');
    expect(xml).toContain('<skipped message="no revokedApiKey"/>');
  });
});

describe('the suite survives a target that is down', () => {
  it('reports failures, not a crash', async () => {
    const server = createServer((_req, res) => res.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const { runSuite } = await import('../src/conformance/runner.ts');
    const report = await runSuite({ config: validateConfig({ environment: 'sandbox', baseUrl: `http://127.0.0.1:${port}`, customer: { token: TOKEN, contracts: ['CT1'] } }), allowWrites: false, stateless: true, areas: ['auth'], listen: '127.0.0.1:0', deliveryTimeoutMs: 100 });
    server.close();
    expect(report.ok).toBe(false);
    // One result, the preflight's, saying why the run stopped (issue 40), not a failure per check.
    expect(report.stopped?.kind).toBe('target');
    expect(report.stopped?.why).toMatch(/^cannot reach the target for GET \//);
    expect(report.results.map((r) => `${r.id} ${r.status}`)).toEqual(['operations.preflight failed']);
  });
});

describe('the care-conformance command line', () => {
  it('--help names every setting with its CARE_ variable', async () => {
    const { runCli } = await import('./support/conformance-targets.ts');
    const { SETTINGS } = await import('../src/conformance/config.ts');
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const [flag, env] of Object.entries(SETTINGS)) expect(r.stdout).toMatch(new RegExp(`--${flag}\\s+${env}`));
  });
  it('refuses an unknown area or a missing base URL with exit code 2 and one line of why', async () => {
    const { runCli } = await import('./support/conformance-targets.ts');
    const bad = await runCli(['--areas', 'nope', '--base-url', 'http://127.0.0.1:1', '--environment', 'sandbox', '--token', 't']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown area nope/);
    const missing = await runCli([], { CARE_BASE_URL: '', CARE_CONFIG: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/config\./);
  });
  it('with no arguments says to pass --config (issue 48)', async () => {
    const { runCli } = await import('./support/conformance-targets.ts');
    const empty = { CARE_CONFIG: '', CARE_BASE_URL: '', CARE_ENVIRONMENT: '', CARE_TOKEN: '' };
    const none = await runCli([], empty);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^care-conformance: config\.environment: .*pass --config FILE.*see --help\)\n$/);
  });
  it('refuses a number option a timer or the property run cannot take, naming it (issue 48)', async () => {
    const { runCli } = await import('./support/conformance-targets.ts');
    const target = ['--base-url', 'http://127.0.0.1:1', '--environment', 'sandbox', '--token', 't'];
    const cases: Array<[string[], RegExp]> = [
      [['--request-timeout', '4294967296'], /--request-timeout: a whole number of milliseconds from 1 to 2147483647 is required, got "4294967296"/],
      [['--request-timeout', '2147483648'], /--request-timeout: .*from 1 to 2147483647/],
      [['--delivery-timeout', '99999999999999999999'], /--delivery-timeout: .*from 1 to 2147483647/],
      [['--stateful', '5', '--seed', '99999999999999999999'], /--seed: an integer from -2147483648 to 2147483647 is required/],
      [['--stateful', '100000000'], /--stateful: a whole number from 1 to 100000 is required/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli([...target, ...args], { CARE_CONFIG: '' });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stdout, args.join(' ')).toBe(''); // refused before the first request
    }
  });
  it('--list prints every check with its statements', async () => {
    const { runCli } = await import('./support/conformance-targets.ts');
    const r = await runCli(['--list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^filters\.operators\s+filters\s+S1\.filter-forms/m);
  });
});

describe('one source', () => {
  it('the suite spells no path of the description: it reads operations from the bundle', async () => {
    const { readdirSync, readFileSync: read } = await import('node:fs');
    const { join: j } = await import('node:path');
    const dir = new URL('../src/conformance/', import.meta.url).pathname;
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => j(dir, f));
    const paths = Object.keys(spec.document.paths).map((p) => p.split('/{')[0]);
    const found: string[] = [];
    for (const file of files) {
      const text = read(file, 'utf8');
      for (const p of paths) for (const q of ["'", '"', '`']) if (text.includes(`${q}${p}${q}`) || text.includes(`${q}${p}/`)) found.push(`${file}: ${p}`);
    }
    expect(found).toEqual([]);
  });
});
