// What a check is. Checks are plain objects in a registry, grouped by area;
// each names the seed statements (docs/traceability/statements.yaml ids) it verifies.
import type { Context } from './context.ts';

export const AREAS = [
  'operations', 'auth', 'pagination', 'filters', 'sorting', 'coercion', 'validation', 'scoping', 'resources', 'webhooks',
] as const;
export type Area = (typeof AREAS)[number];

/** What a check needs from the run; a check whose needs are not met is skipped with the matching reason. */
export type Need =
  | 'writes' // creates or changes data
  | 'state' // needs a target that keeps state and applies semantics (not a stateless mock)
  | 'sandbox' // only the sandbox has trigger endpoints
  | 'partner' // partner credentials in the config
  | 'webhooks'; // a receiver the service can reach

export interface Check {
  id: string;
  area: Area;
  title: string;
  statements: string[];
  needs?: Need[];
  /** Run after every other check (the operations area judges every exchange the run made). */
  last?: boolean;
  /** One result per case, e.g. per list operation; the result id is `id[key]`. */
  cases?: (ctx: Context) => Promise<string[]> | string[];
  /** Returns an optional note of what was covered; throws CheckFailure or Skip. */
  run(ctx: Context, key?: string): Promise<string | void>;
}

// The failure primitives live in failure.ts (context.ts uses them too; a home of their own keeps the modules acyclic).
export { CheckFailure, Skip, expect, expectEqual, expectStatus, expectErrors } from './failure.ts';
