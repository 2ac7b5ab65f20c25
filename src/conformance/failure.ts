// How a check says "failed" or "skipped", and the assertions that say it. Imports nothing of the run, so check.ts,
// context.ts and fixtures.ts can all use it without importing each other.
import type { Exchange } from './http.ts';

/** What a check compared, when it compared values: for reports that sort and show failures (D-109). */
export interface Comparison {
  expected?: unknown;
  actual?: unknown;
  /** Where in the answer: `status`, `header.content-type`, `body.data.expiresAt`, … */
  at?: string;
}

export class CheckFailure extends Error {
  constructor(readonly why: string, readonly exchange?: Exchange, readonly comparison?: Comparison) {
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

/** Fail with `why` unless `actual` equals `expected` (as JSON); the report carries both and where they were read. */
export function expectEqual(actual: unknown, expected: unknown, why: string, exchange?: Exchange, at?: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new CheckFailure(why, exchange, { expected, actual, at });
}

/** Fail unless the response has one of the statuses. */
export function expectStatus(x: Exchange, expected: number | number[], what: string): void {
  const list = Array.isArray(expected) ? expected : [expected];
  if (!list.includes(x.status)) {
    throw new CheckFailure(`${what}: expected HTTP ${list.join(' or ')}, got ${x.status}`, x, { expected: list.length === 1 ? list[0] : list, actual: x.status, at: 'status' });
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
