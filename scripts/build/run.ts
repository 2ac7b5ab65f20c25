// Runs the build steps in order into one directory, timing each; used by scripts/build.ts and bench/build.ts.
import { performance } from 'node:perf_hooks';
import { createContext, type BuildContext, type BuildStep } from './context.ts';
import { steps as defaultSteps } from './steps.ts';

export interface StepTiming {
  name: string;
  ms: number;
}

export interface BuildResult {
  context: BuildContext;
  timings: StepTiming[];
  totalMs: number;
}

export async function runBuild(
  outDir: string,
  options: { steps?: BuildStep[]; onStep?: (timing: StepTiming) => void } = {},
): Promise<BuildResult> {
  const context = createContext(outDir);
  const timings: StepTiming[] = [];
  const started = performance.now();
  for (const step of options.steps ?? defaultSteps) {
    const stepStarted = performance.now();
    try {
      await step.run(context);
    } catch (error) {
      throw new Error(`build step "${step.name}" failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const timing = { name: step.name, ms: performance.now() - stepStarted };
    timings.push(timing);
    options.onStep?.(timing);
  }
  return { context, timings, totalMs: performance.now() - started };
}

export function formatTiming({ name, ms }: StepTiming): string {
  return `${(ms / 1000).toFixed(2).padStart(6)} s  ${name}`;
}
