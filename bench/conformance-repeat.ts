// `npm run bench:conformance-repeat -- [RUNS] [SEQUENCES]`: the full suite plus a stateful run (`--stateful`) against a
// fresh reference sandbox, RUNS times (default 20), each with another seed; prints per run the seed, seconds, requests
// and any failure, then how many runs had a failure (a false failure: the reference sandbox is the reference).
import { runSuite } from '../src/conformance/runner.ts';
import { validateConfig } from '../src/conformance/config.ts';
import { startSandbox } from '../test/support/conformance-targets.ts';

const runs = Number(process.argv[2] ?? 20);
const sequences = Number(process.argv[3] ?? 100);
const base = Date.now() % 1_000_000;
let failedRuns = 0;
const seconds: number[] = [];
for (let i = 0; i < runs; i++) {
  const seed = base + i;
  const sandbox = await startSandbox('sandbox');
  try {
    const report = await runSuite({
      config: validateConfig(sandbox.config), allowWrites: false, stateless: false, areas: [], listen: '127.0.0.1:0',
      deliveryTimeoutMs: 10_000, stateful: { runs: sequences, seed },
    });
    const failed = report.results.filter((r) => r.status === 'failed');
    const notDiscriminated = report.results.filter((r) => (r.reason ?? '').startsWith('not discriminated')).length;
    if (failed.length) failedRuns++;
    seconds.push(report.durationMs / 1000);
    console.log(`run ${i + 1} seed ${seed}: ${(report.durationMs / 1000).toFixed(1)} s, ${report.requests} requests, ${report.results.length} checks, ${failed.length} failed, ${notDiscriminated} not discriminated`);
    for (const f of failed) console.log(`  ✗ ${f.id}: ${f.failure?.why.split('\n')[0]}`);
  } finally {
    await sandbox.stop();
  }
}
seconds.sort((a, b) => a - b);
console.log(`${runs} runs: ${failedRuns} with a failure; seconds min ${seconds[0].toFixed(1)}, median ${seconds[Math.floor(runs / 2)].toFixed(1)}, max ${seconds[runs - 1].toFixed(1)}`);
