// D-33 as the sandbox and the conformance suite see it: an operation marked deprecated in the bundle (with
// x-care-deprecated-since and x-care-sunset) answers Deprecation and Sunset on every answer, and the suite's
// operations.deprecation check verifies it (and fails against a sandbox serving the bundle without them).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { deprecationChecks } from '../src/conformance/checks/deprecation.ts';
import { runSuite } from '../src/conformance/runner.ts';
import type { RunOptions } from '../src/conformance/types.ts';
import { createSandbox, type Sandbox } from '../src/sandbox/app.ts';
import { conformanceConfig } from '../src/sandbox/config.ts';
import { loadSpec, specFromDocument } from '../src/spec/index.ts';

const DEPRECATED = [['/contracts', 'get'], ['/contracts/{contractId}', 'get'], ['/contracts/{contractId}', 'patch']] as const;

function deprecatedBundle(): any {
  const document = structuredClone(loadSpec().document);
  for (const [path, method] of DEPRECATED) {
    const operation = document.paths[path][method];
    operation.deprecated = true;
    operation['x-care-deprecated-since'] = '2026-12-01';
    operation['x-care-sunset'] = '2027-06-30';
  }
  return document;
}

const scratch = mkdtempSync(join(tmpdir(), 'care-deprecation-'));
const bundle = join(scratch, 'care-api.yaml');
writeFileSync(bundle, stringify(deprecatedBundle()));
const options = (sandbox: Sandbox): RunOptions => ({
  config: conformanceConfig(new URL(sandbox.url).origin, sandbox.demo, 'sandbox', sandbox.svc.spec),
  allowWrites: false, stateless: false, areas: [], listen: '127.0.0.1:0', deliveryTimeoutMs: 5000,
} as RunOptions);

let withDeprecation: Sandbox;
let plain: Sandbox;
beforeAll(async () => {
  withDeprecation = await createSandbox({ bundle, deliver: false, seedCases: 5, log: () => {} });
  plain = await createSandbox({ deliver: false, seedCases: 5, log: () => {} });
});
afterAll(async () => {
  await withDeprecation?.close();
  await plain?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('deprecated operations (D-33)', () => {
  it('the sandbox answers Deprecation and Sunset from the bundle, on errors too, and only for those operations', async () => {
    const base = options(withDeprecation).config.baseUrl;
    const refused = await fetch(`${base}/contracts`); // no credentials: 401, still from the deprecated operation
    expect(refused.status).toBe(401);
    expect(refused.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
    expect(refused.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    const other = await fetch(`${base}/cases`);
    expect(other.headers.get('deprecation')).toBeNull();
    expect(other.headers.get('sunset')).toBeNull();
  });

  /** The checks' results after the preflight, which comes first in every run (issue 40) and must pass here. */
  const afterPreflight = (report: Awaited<ReturnType<typeof runSuite>>) => {
    expect(report.results[0]).toMatchObject({ id: 'operations.preflight', status: 'passed' });
    return { ...report, results: report.results.slice(1) };
  };

  it('operations.deprecation passes for each deprecated operation against that sandbox', async () => {
    const report = afterPreflight(await runSuite(options(withDeprecation), deprecationChecks, specFromDocument(deprecatedBundle())));
    expect(report.results.map((r) => [r.id, r.status, r.failure?.why])).toEqual([
      ['operations.deprecation[listContracts]', 'passed', undefined],
      ['operations.deprecation[getContract]', 'passed', undefined],
      ['operations.deprecation[updateContract]', 'passed', undefined],
    ]);
  });

  it('operations.deprecation fails against a sandbox that does not announce them', async () => {
    const report = afterPreflight(await runSuite(options(plain), deprecationChecks, specFromDocument(deprecatedBundle())));
    expect(report.results.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
    expect(report.results[0].failure?.why).toMatch(/expected Deprecation: @\d+ .* got no such header/);
  });

  it('is skipped when the description deprecates nothing', async () => {
    const report = afterPreflight(await runSuite(options(plain), deprecationChecks));
    expect(report.results.map((r) => [r.status, r.reason])).toEqual([['skipped', 'the description deprecates no operation']]);
  });
});
