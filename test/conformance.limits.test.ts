// The suite's limit checks (src/conformance/checks/limits.ts, issue 45 item 6) read every limit from the description
// and probe it at the limit and one past: they pass against the reference sandbox, and fail against a sandbox started
// from a bundle that declares (and so enforces) other limits while the suite reads the published one (D-100, D-101).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitsChecks } from '../src/conformance/checks/limits.ts';
import { validateConfig } from '../src/conformance/config.ts';
import { runSuite } from '../src/conformance/runner.ts';
import { createSandbox, type Sandbox } from '../src/sandbox/app.ts';
import { conformanceConfig } from '../src/sandbox/config.ts';
import { bundlePath, loadSpec } from '../src/spec/index.ts';

const published = loadSpec();

/** The complete bundle with other limits: each one off by one from what the description publishes. */
function otherLimits(dir: string): string {
  const document = parse(readFileSync(bundlePath(), 'utf8'), { maxAliasCount: -1 });
  const limits = document['x-care-limits'];
  limits.requestHeadBytes -= 1;
  limits.jsonDepth += 1;
  limits.bodyBytes['application/json'] += 1;
  limits.multipart.fileBytes -= 1;
  limits.multipart.parts -= 1;
  limits.multipart.fileNameCodePoints -= 1;
  document.components.schemas.CaseCreate.properties.shortDescription.maxLength -= 1;
  const file = join(dir, 'care-api.other-limits.yaml');
  writeFileSync(file, JSON.stringify(document)); // JSON is YAML
  return file;
}

const RESULTS_OF = ['validation.limit-request-head', 'validation.limit-json-depth', 'validation.limit-json-body', 'validation.limit-request-fields', 'resources.limit-upload'];

async function run(sandbox: Sandbox) {
  const config = validateConfig(JSON.parse(JSON.stringify(conformanceConfig(sandbox.url, sandbox.demo, 'sandbox', sandbox.svc.spec))));
  const report = await runSuite({ config, allowWrites: false, stateless: false, areas: [], listen: '127.0.0.1:0', deliveryTimeoutMs: 5_000 }, limitsChecks, published);
  const [preflight, ...results] = report.results;
  expect(`${preflight.id} ${preflight.status}`).toBe('operations.preflight passed');
  return Object.fromEntries(results.map((r) => [r.id, r]));
}

describe('the limit checks read the description and probe each limit at it and one past (D-100)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'care-limits-'));
  let sandbox: Sandbox;
  let other: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ seedCases: 5, log: () => undefined, deliver: false });
    other = await createSandbox({ seedCases: 5, log: () => undefined, deliver: false, bundle: otherLimits(dir) });
  }, 60_000);
  afterAll(async () => {
    await sandbox?.close();
    await other?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pass against the sandbox, which enforces what the description declares', async () => {
    const results = await run(sandbox);
    expect(Object.values(results).map((r) => [r.id, r.status, r.failure?.why ?? r.reason])).toEqual(
      limitsChecks.map((c) => [c.id, 'passed', undefined]),
    );
    expect(results['validation.limit-request-fields'].note).toMatch(/^\d+ bounds probed/);
  }, 120_000);

  it('fail against a sandbox that enforces other limits than the description declares', async () => {
    const results = await run(other);
    for (const id of RESULTS_OF) expect(`${id} ${results[id]?.status}`, results[id]?.failure?.why).toBe(`${id} failed`);
  }, 120_000);
});
