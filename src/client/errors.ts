// Every failure of a call is one exception type that keeps what the service (or the missing answer) said: status,
// body, envelope, environment, and `reason` for why the call failed. Two subclasses add what their failures know.

import type { components } from '../../generated/care-api.d.ts';

/** One error object of the error envelope (seed section 7), as the description declares it. */
export type CareErrorObject = components['schemas']['ErrorObject'];

/** Value of `X-CareAPI-Env`: which environment served a response. */
export type ServedBy = 'Production' | 'Sandbox';

/**
 * Why a call failed:
 * - `status`: the service answered a non-2xx status;
 * - `unreadable_body`: a 2xx whose body could not be read as declared (not JSON, truncated, the connection cut);
 * - `unreadable_body` also: a JSON body that is not the declared one (`null`, `{}`, no `data`);
 * - `empty_body`: a 2xx with no body (a 204 included) where the operation declares one;
 * - `token`: getting a token failed (a `CareTokenError`; `status`/`body` are the authentication service's);
 * - `timeout`: the client's `timeoutMs`, or a caller's `AbortSignal.timeout()`, elapsed (waiting for a token, for
 *   the answer, or reading it: `status` is then the answer's);
 * - `aborted`: the caller's `signal` aborted the call (at any of those moments);
 * - `network`: no answer at all (refused, reset, DNS);
 * - `pagination`: `paginate`/`pages` stopped on a page the service answered wrongly (a `CarePaginationError`).
 */
export type CareApiErrorReason = 'status' | 'unreadable_body' | 'empty_body' | 'token' | 'timeout' | 'aborted' | 'network' | 'pagination';

export interface CareApiErrorDetails {
  reason?: CareApiErrorReason;
  /** Replaces the message built from the status and the envelope. */
  message?: string;
  cause?: unknown;
}

export class CareApiError extends Error {
  override readonly name: string = 'CareApiError';
  /** Why the call failed; `status` for an ordinary non-2xx answer. */
  readonly reason: CareApiErrorReason;
  /** HTTP status of the answer; 0 when there was none (timeout, aborted, network, a token provider's own failure). */
  readonly status: number;
  /** Every error object of the envelope, in order (empty if the body was not an envelope). */
  readonly errors: CareErrorObject[];
  /** `X-CareAPI-Env` of the answer, or null when the header (or the answer) was missing. */
  readonly environment: ServedBy | null;
  /** `meta` of the error envelope, when there was one. */
  readonly meta: Record<string, unknown> | undefined;
  /** The answer, when there was one (its body already read). */
  readonly response: Response | undefined;
  /** The body as received (parsed JSON, else text; undefined when none could be read). */
  readonly body: unknown;
  /**
   * Seconds to wait from `Retry-After` (429, decision D-31; seconds, possibly fractional, or an HTTP date), at most
   * one day (86 400, D-116), or null.
   */
  readonly retryAfterSeconds: number | null;

  constructor(response: Response | undefined, body: unknown, details: CareApiErrorDetails = {}) {
    const envelope = asErrorEnvelope(body);
    const errors = envelope?.errors ?? [];
    super(details.message ?? describe(response, errors), details.cause === undefined ? undefined : { cause: details.cause });
    this.reason = details.reason ?? 'status';
    this.status = response?.status ?? 0;
    this.errors = errors;
    this.environment = response ? servedBy(response) : null;
    this.meta = envelope?.meta;
    this.response = response;
    this.body = body;
    this.retryAfterSeconds = retryAfter(response?.headers.get('retry-after') ?? null);
  }
}

/** Getting a token failed: the API-key exchange answered an error or an unreadable body, or `getToken` threw. */
export class CareTokenError extends CareApiError {
  override readonly name: string = 'CareTokenError';
  constructor(response: Response | undefined, body: unknown, message: string, cause?: unknown) {
    super(response, body, { reason: 'token', message, cause });
  }
}

/** `paginate`/`pages` stopped because a page's `meta.page` cannot be followed; the message says why. */
export class CarePaginationError extends CareApiError {
  override readonly name: string = 'CarePaginationError';
  /** The page number that was asked for when the walk stopped. */
  readonly pageNumber: number;
  constructor(response: Response | undefined, body: unknown, pageNumber: number, why: string) {
    super(response, body, { reason: 'pagination', message: `pagination stopped at page ${pageNumber}: ${why}` });
    this.pageNumber = pageNumber;
  }
}

/** The longest wait `retryAfterSeconds` reports: one day (D-116). A larger `Retry-After` is cut to it. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * `Retry-After` in seconds, at most MAX_RETRY_AFTER_SECONDS: a non-negative number (a fraction is kept, `1.5` is 1.5)
 * or an HTTP date (rounded up, at least 0). Anything else, a negative number included, is treated as absent (null).
 * The bound keeps a lying or mistaken server from making a caller wait for years, or overflow a timer (a
 * `setTimeout` of more than 2^31 - 1 ms fires at once).
 */
export function retryAfter(value: string | null): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (text === '') return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Number(text), MAX_RETRY_AFTER_SECONDS);
  if (/^[-+.\d]/.test(text)) return null; // a negative or malformed number is not a date either
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil((at - Date.now()) / 1000)));
}

/** Reads `X-CareAPI-Env`; anything but the two declared values is reported as null. */
export function servedBy(response: Response): ServedBy | null {
  const value = response.headers.get('x-careapi-env');
  return value === 'Production' || value === 'Sandbox' ? value : null;
}

function asErrorEnvelope(body: unknown): { meta?: Record<string, unknown>; errors: CareErrorObject[] } | undefined {
  if (!body || typeof body !== 'object' || !Array.isArray((body as { errors?: unknown }).errors)) return undefined;
  return body as { meta?: Record<string, unknown>; errors: CareErrorObject[] };
}

/** `200 OK` (or the status alone), for messages. */
export function statusLine(response: Response): string {
  return `${response.status} ${response.statusText}`.trim();
}

function describe(response: Response | undefined, errors: CareErrorObject[]): string {
  if (!response) return 'Care API call failed without an answer';
  const head = `${response.status} ${response.statusText || errors[0]?.title || ''}`.trim();
  if (errors.length === 0) return `Care API answered ${head}`;
  return `Care API answered ${head}: ${errors.map((e) => e.detail || e.title).join('; ')}`;
}

/** The first characters of a body, for a message. */
export function excerpt(text: string, length = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}
