// Figures of `npm run build` on this machine: each step's time and the total, over a few runs into a scratch
// directory (generated/ is left alone). Target: the whole build under 10 s. Prints; asserts nothing.
//   npx tsx bench/build.ts [--runs N]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runBuild } from '../scripts/build/run.ts';

const TARGET_MS = 10_000;
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Math.max(1, Number(values.runs) || 3);

const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const byStep = new Map<string, number[]>();
const totals: number[] = [];
for (let run = 1; run <= runs; run++) {
  const outDir = mkdtempSync(join(tmpdir(), 'care-bench-build-'));
  try {
    const result = await runBuild(outDir);
    for (const { name, ms } of result.timings) byStep.set(name, [...(byStep.get(name) ?? []), ms]);
    totals.push(result.totalMs);
    console.log(`run ${run}/${runs}: ${seconds(result.totalMs)}`);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

console.log(`\nnpm run build, ${runs} run(s), Node ${process.version}, ${cpus().length} cores`);
console.log(`${'median'.padStart(9)} ${'min'.padStart(8)} ${'max'.padStart(8)}  step`);
for (const [name, times] of byStep) {
  console.log(`${seconds(median(times)).padStart(9)} ${seconds(Math.min(...times)).padStart(8)} ${seconds(Math.max(...times)).padStart(8)}  ${name}`);
}
const total = median(totals);
console.log(`${seconds(total).padStart(9)} ${seconds(Math.min(...totals)).padStart(8)} ${seconds(Math.max(...totals)).padStart(8)}  total`);
console.log(`target under ${seconds(TARGET_MS)}: ${total < TARGET_MS ? 'met' : 'NOT met'} (median total ${seconds(total)})`);
