// Examples per environment: production and sandbox are seeded with different records (src/sandbox/seed.ts), so an
// id that exists in one is unknown (404) in the other. Beside an `example` the description may write
// `x-care-example-production`: the production bundle carries that value as the example, the sandbox bundle the
// `example` itself; both drop the marker. The complete bundle keeps both (its `example` is the sandbox one).
import type { Environment } from './context.ts';

export const PRODUCTION_EXAMPLE = 'x-care-example-production';

/** Sets each marked node's `example` for `environment` and removes the marker, in place. */
export function useEnvironmentExamples(document: unknown, environment: Environment): void {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (!Array.isArray(node) && PRODUCTION_EXAMPLE in node) {
      const holder = node as Record<string, unknown>;
      if (!('example' in holder)) throw new Error(`${PRODUCTION_EXAMPLE} without an example beside it: ${JSON.stringify(holder).slice(0, 120)}`);
      if (environment === 'production') holder.example = holder[PRODUCTION_EXAMPLE];
      delete holder[PRODUCTION_EXAMPLE];
    }
    stack.push(...Object.values(node));
  }
}
