// `npm run build [-- --out DIR]`: lint, bundle (complete + per environment), types, docs into generated/ (or DIR).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './build/context.ts';
import { removeStaleFiles } from './build/stale.ts';
import { formatTiming, runBuild } from './build/run.ts';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const generatedDir = resolve(repoRoot, 'generated');
const outDir = resolve(values.out ?? generatedDir);

try {
  const result = await runBuild(outDir, { onStep: (timing) => console.log(formatTiming(timing)) });
  console.log(formatTiming({ name: `total, ${result.context.written.length} files in ${outDir}`, ms: result.totalMs }));
  // generated/ holds only what this build wrote: a file left by a removed or renamed step goes. (An --out
  // directory is the caller's and is left as it is.)
  if (outDir === generatedDir) {
    for (const file of removeStaleFiles(outDir, result.context.written)) console.log(`removed stale generated/${file}`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
