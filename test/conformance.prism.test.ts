// Proof, part 1: a read-only, stateless run against a plain Prism mock of the sandbox bundle passes the checks a
// mock can pass (every readable operation, X-CareAPI-Env, schemas, 401 without a token); the rest skip with a reason.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/conformance/types.ts';
import { runCli, startPrism, type Running } from './support/conformance-targets.ts';

describe('care-conformance against the Prism sandbox mock (read-only, stateless)', () => {
  let prism: Running;
  let report: RunReport;
  let run: { code: number; stdout: string; stderr: string };
  const dir = mkdtempSync(join(tmpdir(), 'care-conformance-prism-'));

  beforeAll(async () => {
    prism = await startPrism();
    run = await runCli(['--stateless', '--json', join(dir, 'report.json'), '--junit', join(dir, 'junit.xml')], {
      CARE_BASE_URL: prism.url,
      CARE_ENVIRONMENT: 'sandbox',
      CARE_TOKEN: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwcmlzbSJ9.c2lnbmF0dXJl',
      CARE_CONTRACTS: 'CT0000101',
    });
    report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
  });
  afterAll(async () => {
    await prism?.stop();
  });

  it('exits 0 with no failure', () => {
    expect(run.stderr).toBe('');
    expect(report.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure?.why}`)).toEqual([]);
    expect(run.code).toBe(0);
  });

  it('runs every readable operation of the description and judges every answer', () => {
    const read = report.results.filter((r) => r.id.startsWith('operations.read['));
    expect(read.length).toBeGreaterThanOrEqual(15);
    expect(read.every((r) => r.status === 'passed')).toBe(true);
    expect(report.results.filter((r) => r.id.startsWith('operations.observed[') && r.status === 'passed').length).toBe(read.length);
    expect(report.results.find((r) => r.id === 'auth.no-token')?.status).toBe('passed');
  });

  it('without --stateless: one message that the target looks stateless, exit 2, instead of hundreds of failures (issue 35)', async () => {
    const stateful = await runCli(['--json', join(dir, 'stateful.json')], {
      CARE_BASE_URL: prism.url,
      CARE_ENVIRONMENT: 'sandbox',
      CARE_TOKEN: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwcmlzbSJ9.c2lnbmF0dXJl',
      CARE_CONTRACTS: 'CT0000101',
    });
    expect(stateful.code).toBe(2);
    expect(stateful.stderr).toMatch(/^care-conformance: the target looks stateless \(a mock\?\).*Rerun with --stateless/m);
    const failed: RunReport = JSON.parse(readFileSync(join(dir, 'stateful.json'), 'utf8'));
    expect(failed.results.filter((r) => r.status === 'failed').map((r) => r.id)).toEqual(['operations.preflight']);
    expect(failed.stopped?.kind).toBe('target');
    // Prism is still answering: the run stopped before anything that could take a plain mock down.
    expect((await fetch(`${prism.url}/contracts`, { headers: { authorization: 'Bearer x' } })).status).toBe(200);
  }, 120_000);

  it('skips the rest, each with a reason, and writes nothing', () => {
    const skipped = report.results.filter((r) => r.status === 'skipped');
    expect(skipped.length).toBeGreaterThan(20);
    expect(skipped.every((r) => typeof r.reason === 'string' && r.reason.length > 10)).toBe(true);
    expect(run.stdout).toMatch(/area\s+passed\s+failed\s+skipped/);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('<testsuites name="care-conformance"');
    expect(run.stdout + readFileSync(join(dir, 'report.json'), 'utf8')).not.toContain('c2lnbmF0dXJl');
  });
});
