// How an operation announces its removal (D-33, D-54): `deprecated: true`, an `x-care-sunset` date, and every
// response declaring the `Deprecation` and `Sunset` headers. The sandbox answers those headers from the same
// fields, the conformance suite checks them, and the gate accepts a breaking change on such an operation.

export const SUNSET_EXTENSION = 'x-care-sunset';
export const DEPRECATED_SINCE_EXTENSION = 'x-care-deprecated-since';

/** The operation's sunset date (UTC midnight) when it is deprecated with a valid `x-care-sunset`. */
export function sunsetOf(operation: any): Date | undefined {
  if (operation?.deprecated !== true) return undefined;
  const raw = operation[SUNSET_EXTENSION];
  if (typeof raw !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(raw)) return undefined;
  const date = new Date(`${raw}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** When it was deprecated (`x-care-deprecated-since`), if declared. */
export function deprecatedSinceOf(operation: any): Date | undefined {
  const raw = operation?.[DEPRECATED_SINCE_EXTENSION];
  if (operation?.deprecated !== true || typeof raw !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(raw)) return undefined;
  const date = new Date(`${raw}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** `Deprecation` value of RFC 9745: a structured-field date, `@<unix seconds>`. */
export function deprecationHeaderValue(since: Date): string {
  return `@${Math.floor(since.getTime() / 1000)}`;
}

/** `Sunset` value of RFC 8594: an HTTP-date. */
export function sunsetHeaderValue(sunset: Date): string {
  return sunset.toUTCString();
}
