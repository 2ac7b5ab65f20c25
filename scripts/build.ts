// `npm run build [-- --out DIR]`: lint, bundle (complete + per environment), types, docs into generated/ (or DIR).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './build/context.ts';
import { formatTiming, runBuild } from './build/run.ts';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const outDir = resolve(values.out ?? resolve(repoRoot, 'generated'));

try {
  const result = await runBuild(outDir, { onStep: (timing) => console.log(formatTiming(timing)) });
  console.log(formatTiming({ name: `total, ${result.context.written.length} files in ${outDir}`, ms: result.totalMs }));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
