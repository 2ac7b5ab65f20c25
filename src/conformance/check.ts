// What a check is, and how it says "failed" or "skipped". Checks are plain objects in a registry, grouped by area;
// each names the seed statements (docs/traceability/statements.yaml ids) it verifies.
import type { Context } from './context.ts';
import type { Exchange } from './http.ts';

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

export class CheckFailure extends Error {
  constructor(readonly why: string, readonly exchange?: Exchange) {
    super(why);
  }
}

export class Skip extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Fail with `why` unless `condition` holds. */
export function expect(condition: unknown, why: string, exchange?: Exchange): asserts condition {
  if (!condition) throw new CheckFailure(why, exchange);
}

/** Fail unless the response has one of the statuses. */
export function expectStatus(x: Exchange, expected: number | number[], what: string): void {
  const list = Array.isArray(expected) ? expected : [expected];
  if (!list.includes(x.status)) {
    throw new CheckFailure(`${what}: expected HTTP ${list.join(' or ')}, got ${x.status}`, x);
  }
}

/** Fail unless the response is an error envelope of `status` holding exactly `count` error objects (if given). */
export function expectErrors(x: Exchange, status: number, what: string, count?: number): any[] {
  expectStatus(x, status, what);
  const errors = x.json?.errors;
  expect(Array.isArray(errors) && errors.length > 0, `${what}: the ${status} answer has no errors array in the envelope`, x);
  expect(x.json.meta && typeof x.json.meta === 'object', `${what}: the error envelope has no meta object`, x);
  for (const e of errors) {
    expect(e && typeof e.detail === 'string' && e.status === String(status),
      `${what}: each error object needs status "${status}" and a detail string`, x);
  }
  if (count !== undefined) {
    expect(errors.length === count, `${what}: expected ${count} error object(s), one per problem, got ${errors.length}`, x);
  }
  return errors;
}
