// Step: lint the source description with redocly.yaml (recommended-strict + house rules). Any problem fails.
import type { BuildStep } from './context.ts';
import { formatProblems, lint } from './redocly.ts';

export const lintStep: BuildStep = {
  name: 'lint openapi/',
  async run(context) {
    const problems = await lint([], context.root);
    if (problems.length > 0) {
      throw new Error(`redocly lint found ${problems.length} problem(s); zero are allowed:\n${formatProblems(problems)}`);
    }
  },
};
