// Non-2xx answers become one exception type that keeps everything the envelope said.

/** One error object of the error envelope (seed section 7). */
export interface CareErrorObject {
  status: string;
  title: string;
  detail: string;
  code: string;
}

/** Value of `X-CareAPI-Env`: which environment served a response. */
export type ServedBy = 'Production' | 'Sandbox';

export class CareApiError extends Error {
  override readonly name = 'CareApiError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** Every error object of the envelope, in order (empty if the body was not an envelope). */
  readonly errors: CareErrorObject[];
  /** `X-CareAPI-Env` of the answer, or null when the header was missing. */
  readonly environment: ServedBy | null;
  /** `meta` of the error envelope, when there was one. */
  readonly meta: Record<string, unknown> | undefined;
  readonly response: Response;
  /** The body as received when it was not an error envelope (text or parsed JSON). */
  readonly body: unknown;
  /** Seconds to wait from `Retry-After` (429, decision D-31; seconds or an HTTP date), or null. */
  readonly retryAfterSeconds: number | null;

  constructor(response: Response, body: unknown) {
    const envelope = asErrorEnvelope(body);
    const errors = envelope?.errors ?? [];
    super(describe(response, errors));
    this.status = response.status;
    this.errors = errors;
    this.environment = servedBy(response);
    this.meta = envelope?.meta;
    this.response = response;
    this.body = body;
    this.retryAfterSeconds = retryAfter(response.headers.get('retry-after'));
  }
}

function retryAfter(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
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

function describe(response: Response, errors: CareErrorObject[]): string {
  const head = `${response.status} ${response.statusText || errors[0]?.title || ''}`.trim();
  if (errors.length === 0) return `Care API answered ${head}`;
  return `Care API answered ${head}: ${errors.map((e) => e.detail || e.title).join('; ')}`;
}
