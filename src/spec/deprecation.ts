// How an operation announces its removal (D-33, D-54): `deprecated: true`, `x-care-deprecated-since` and
// `x-care-sunset` dates (YYYY-MM-DD, at least six months apart), and every response declaring the `Deprecation`
// (RFC 9745) and `Sunset` (RFC 8594) headers. The sandbox answers them from these fields, the conformance suite
// checks them, and the contract gate (src/diff/gate.ts) accepts a breaking change on such an operation.

export const SUNSET_EXTENSION = 'x-care-sunset';
export const DEPRECATED_SINCE_EXTENSION = 'x-care-deprecated-since';
export const MIN_NOTICE_MONTHS = 6;

function day(raw: unknown): Date | undefined {
  if (typeof raw !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(raw)) return undefined;
  const date = new Date(`${raw}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== raw ? undefined : date;
}

export interface Deprecation {
  since: Date;
  sunset: Date;
}

/** The deprecation an operation object (raw, from the description) declares, or why it is incomplete. */
export function readDeprecation(operation: any): Deprecation | { problem: string } | undefined {
  if (operation?.deprecated !== true) return undefined;
  const since = day(operation[DEPRECATED_SINCE_EXTENSION]);
  const sunset = day(operation[SUNSET_EXTENSION]);
  if (!since) return { problem: `it has no \`${DEPRECATED_SINCE_EXTENSION}: YYYY-MM-DD\`` };
  if (!sunset) return { problem: `it has no \`${SUNSET_EXTENSION}: YYYY-MM-DD\`` };
  const earliest = new Date(since);
  earliest.setUTCMonth(earliest.getUTCMonth() + MIN_NOTICE_MONTHS);
  if (sunset < earliest) return { problem: `its sunset ${operation[SUNSET_EXTENSION]} is less than ${MIN_NOTICE_MONTHS} months after ${operation[DEPRECATED_SINCE_EXTENSION]}` };
  return { since, sunset };
}

export function isComplete(value: ReturnType<typeof readDeprecation>): value is Deprecation {
  return value !== undefined && !('problem' in value);
}

/** The header values a deprecated operation answers with on every response. */
export function deprecationHeaders(deprecation: Deprecation): { Deprecation: string; Sunset: string } {
  return {
    Deprecation: `@${Math.floor(deprecation.since.getTime() / 1000)}`,
    Sunset: deprecation.sunset.toUTCString(),
  };
}
