// Proof, part 3: mutation testing. A fault-injecting proxy sits between the suite and one reference sandbox
// (the webhook path included); for each fault the suite runs the area that names it, and must fail there in a
// check that did not fail without the fault (it passed, or found nothing to judge: a target that limits no rate
// answers no 429). Prints the mutation score.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSuite } from '../src/conformance/runner.ts';
import { validateConfig } from '../src/conformance/config.ts';
import type { CheckResult, RunReport, TargetConfig } from '../src/conformance/types.ts';
import { FAULTS } from './mutation/faults.ts';
import { FaultProxy } from './mutation/proxy.ts';
import { startSandbox } from './support/conformance-targets.ts';

describe('mutation testing of the conformance suite', () => {
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  let proxy: FaultProxy;
  let config: TargetConfig;
  let baselineFailed: Set<string>;
  let ranInBaseline: Set<string>;
  // each caught fault with the check that caught it: the run's log says which check proves which fault
  const killed: string[] = [];
  const survived: string[] = [];

  /**
   * Run areas; `caught`, when given, ends the run at the first result it accepts (the rest is not needed). A delivery
   * on loopback takes milliseconds: a fault run waits 5 s for one (a fault that stops one is caught by that wait).
   */
  const run = (areas: string[], caught?: (r: CheckResult) => boolean): Promise<RunReport> => {
    const controller = new AbortController();
    return runSuite({
      config, allowWrites: false, stateless: false, areas, listen: '127.0.0.1:0', deliveryTimeoutMs: caught ? 5_000 : 10_000, signal: controller.signal,
      onProgress: (e) => {
        if (e.kind === 'result' && caught?.(e.result)) controller.abort('fault caught');
      },
    });
  };

  beforeAll(async () => {
    sandbox = await startSandbox('sandbox');
    proxy = new FaultProxy(sandbox.url);
    const origin = await proxy.start();
    // Everything through the proxy: API, token exchange, and (by URL rewriting) webhook deliveries.
    const raw = JSON.parse(JSON.stringify(sandbox.config).split(sandbox.url).join(origin));
    config = validateConfig(raw);
    const baseline = await run([]);
    baselineFailed = new Set(baseline.results.filter((r) => r.status === 'failed').map((r) => r.id));
    ranInBaseline = new Set(baseline.results.map((r) => r.id));
  }, 300_000); // a full run through the proxy: 1 to 3 min on 2 shared cores

  afterAll(async () => {
    await proxy?.close();
    await sandbox?.stop();
    const total = killed.length + survived.length;
    if (total) {
      process.stdout.write(`\nmutation score: ${killed.length}/${total} faults detected (${((100 * killed.length) / total).toFixed(0)}%)${survived.length ? `; survived: ${survived.join(', ')}` : ''}\n`);
      process.stdout.write(`caught by: ${killed.join('; ')}\n`);
    }
  });

  it('has at least 25 distinct faults, each naming an area', () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    expect(FAULTS.length).toBeGreaterThanOrEqual(25);
    const areas = new Set(['operations', 'auth', 'pagination', 'filters', 'sorting', 'coercion', 'validation', 'scoping', 'resources', 'webhooks']);
    expect(FAULTS.filter((f) => !areas.has(f.area))).toEqual([]);
  });

  for (const fault of FAULTS) {
    it(`detects ${fault.name} in ${fault.area} (${fault.description})`, async () => {
      proxy.fault = fault;
      const catches = (r: CheckResult) => r.area === fault.area && r.status === 'failed' && ranInBaseline.has(r.id) && !baselineFailed.has(r.id);
      let report: RunReport;
      try {
        // The run stops at the first check that catches the fault (it then cleans up as after Ctrl-C): that one
        // result is the proof, and the rest of the area would take minutes for the filter faults.
        report = await run([fault.area], catches);
      } finally {
        proxy.fault = null;
      }
      const caught = report.results.filter(catches);
      if (caught.length) killed.push(`${fault.name} → ${caught[0].id}`);
      else survived.push(fault.name);
      expect(caught.map((r) => r.id), `no ${fault.area} check that does not fail without the fault failed with it`).not.toEqual([]);
    }, 120_000);
  }
});
