// The RateLimit fields of the description (D-102): the response headers named `RateLimit…` among its components.
// The mock front drops them (it limits nothing) and the conformance suite judges them; neither lists them by hand.
import type { CareSpec } from './types.ts';

/** The declared RateLimit field names (`RateLimit`, `RateLimit-Policy`), in declaration order. */
export function rateLimitFieldNames(spec: CareSpec): string[] {
  return Object.keys(spec.document?.components?.headers ?? {}).filter((name) => /^RateLimit\b/.test(name));
}
