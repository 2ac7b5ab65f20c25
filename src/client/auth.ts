// Bearer tokens for the client: a fixed token, a caller's provider, or the API-key exchange of decision D-13.
import { decodeJwt } from 'jose';
import type { CareEnvironment } from './base-url.ts';
import { CareApiError, CareTokenError, excerpt, statusLine } from './errors.ts';
import { withAbort } from './signals.ts';

/** Token endpoint base of the authentication service (`tokenUrl` of the apiKeyExchange scheme minus `/oauth/token`). */
export const DEFAULT_AUTH_URL = 'https://auth.care.example/auth/v2';

/** What a token provider may answer: the token, or the token with its expiry. */
export type TokenResult = string | { token: string; expiresAt?: Date | number };

/** Gets a token; `signal` aborts when the client gives up on it (its `timeoutMs`). */
export type TokenProvider = (context: { signal: AbortSignal }) => TokenResult | Promise<TokenResult>;

/** An API key created with the API key endpoints: its id is the OAuth client id, its secret the client secret. */
export interface ApiKeyCredentials {
  keyId: string;
  secret: string;
}

/**
 * Refresh this long before the token's own expiry, so a request never leaves with a token about to lapse; a token
 * that lives less than twice as long is refreshed half-way through its life instead (never once per request).
 */
const EXPIRY_MARGIN_MS = 30_000;

export function renewAt(fetchedAt: number, expiresAt: number): number {
  const lifetime = expiresAt - fetchedAt;
  return expiresAt - Math.min(EXPIRY_MARGIN_MS, Math.max(0, lifetime / 2));
}

export interface TokenSource {
  /**
   * The Authorization value (`Bearer <token>`) of a valid token: synchronously while the cached one is unexpired (no
   * promise, no new string per request), else once it has been fetched or refreshed. Concurrent callers share one
   * refresh; each caller's `signal` ends only its own wait.
   */
  authorization(signal?: AbortSignal): string | Promise<string>;
  /** Forget the cached token (after a 401); returns false when there is nothing to refresh (a fixed token). */
  invalidate(): boolean;
}

export function fixedToken(token: string): TokenSource {
  if (!token) throw new TypeError('token must be a non-empty string');
  const authorization = `Bearer ${token}`;
  return { authorization: () => authorization, invalidate: () => false };
}

/**
 * Caches the provider's token. A refresh is bounded by `timeoutMs` even when no caller waits any more, so a hanging
 * provider fails (and is asked again by the next call) instead of holding every later call.
 */
export function cachedToken(provider: TokenProvider, options: { timeoutMs?: number; now?: () => number } = {}): TokenSource {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? Infinity;
  // The header value is built once per token; `renewAt` already holds the safety margin.
  let current: { authorization: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const refresh = async (): Promise<string> => {
    const controller = new AbortController();
    const timer = Number.isFinite(timeoutMs) && timeoutMs > 0 ? setTimeout(() => controller.abort(timeoutError(timeoutMs)), timeoutMs) : undefined;
    try {
      const fetchedAt = now();
      const result = await withAbort(Promise.resolve().then(() => provider({ signal: controller.signal })), controller.signal);
      const token = typeof result === 'string' ? result : result?.token;
      if (!token || typeof token !== 'string') throw new CareTokenError(undefined, undefined, 'the token provider returned no token');
      const expiresAt = typeof result === 'string' || result.expiresAt === undefined ? jwtExpiry(token) : expiryOf(result.expiresAt);
      const expired = alreadyExpired(expiresAt, fetchedAt);
      if (expired) throw new CareTokenError(undefined, undefined, expired);
      current = { authorization: `Bearer ${token}`, renewAt: renewAt(fetchedAt, expiresAt) };
      return current.authorization;
    } catch (error) {
      throw asTokenError(error, controller.signal);
    } finally {
      clearTimeout(timer);
      pending = undefined;
    }
  };
  return {
    authorization(signal) {
      if (current && now() < current.renewAt) return current.authorization;
      const joined = pending !== undefined;
      let shared = (pending ??= refresh());
      // A caller who joined a refresh late is not failed by that refresh's timeout: it asks once more itself.
      if (joined) shared = shared.catch((error) => (timedOut.has(error) && !signal?.aborted ? (pending ??= refresh()) : Promise.reject(error)));
      return signal ? withAbort(shared, signal) : shared;
    },
    invalidate() {
      current = undefined;
      return true;
    },
  };
}

function timeoutError(timeoutMs: number): DOMException {
  return new DOMException(`no token within timeoutMs (${timeoutMs} ms)`, 'TimeoutError');
}

/** Failures of a refresh that ran out of time (rather than being refused). */
const timedOut = new WeakSet<object>();

function asTokenError(error: unknown, signal: AbortSignal): CareApiError {
  if (signal.aborted) {
    const failure =
      error instanceof CareApiError ? error : new CareTokenError(undefined, undefined, `getting a token failed: ${(signal.reason as Error)?.message ?? 'aborted'}`, signal.reason);
    timedOut.add(failure);
    return failure;
  }
  if (error instanceof CareApiError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new CareTokenError(undefined, undefined, `the token provider failed: ${detail}`, error);
}

/** `expiresAt` of a provider's answer in milliseconds; NaN when it is not a time (an invalid Date, a string, ...). */
function expiryOf(expiresAt: unknown): number {
  if (expiresAt instanceof Date) return expiresAt.getTime();
  return typeof expiresAt === 'number' ? expiresAt : NaN;
}

/**
 * Why a token cannot be used, or undefined when it can: an expiry that is no time, or that has passed already when
 * the token arrives (`expires_in: 0`, an expired JWT, `expiresAt` given in seconds). Such a token is refused with a
 * CareTokenError rather than cached for no time at all, which would fetch a token again on every request.
 */
function alreadyExpired(expiresAt: number, fetchedAt: number): string | undefined {
  if (Number.isNaN(expiresAt)) return 'the token provider returned an expiresAt that is not a time (give a Date or milliseconds since 1970)';
  if (expiresAt > fetchedAt) return undefined;
  const seconds = expiresAt > 0 && expiresAt < 1e11 ? '; expiresAt looks like seconds since 1970: give milliseconds or a Date' : '';
  const when = Number.isFinite(expiresAt) && Math.abs(expiresAt) <= 8.64e15 ? new Date(expiresAt).toISOString() : String(expiresAt);
  return `the token provider returned a token that had already expired (at ${when})${seconds}`;
}

/** Expiry of a JWT from its `exp` claim; a token that is not a JWT (or has no `exp`) is treated as not expiring. */
function jwtExpiry(token: string): number {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? exp * 1000 : Infinity;
  } catch {
    return Infinity;
  }
}

/**
 * The client-credentials exchange of decision D-13: `POST {authUrl}/oauth/token` with the key as client id and
 * secret and the environment as `audience`; answers `{access_token, token_type, expires_in}`. Every failure is a
 * `CareTokenError` with the authentication service's status and body, and a message that says what went wrong.
 */
export function apiKeyExchange(
  key: ApiKeyCredentials,
  environment: CareEnvironment,
  options: { authUrl?: string; fetch?: (request: Request) => Promise<Response>; now?: () => number } = {},
): TokenProvider {
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const now = options.now ?? Date.now;
  const tokenUrl = `${(options.authUrl ?? DEFAULT_AUTH_URL).replace(/\/+$/, '')}/oauth/token`;
  const failed = (response: Response | undefined, body: unknown, why: string, cause?: unknown) =>
    new CareTokenError(response, body, `API key exchange at ${tokenUrl} failed: ${why}`, cause);
  return async (context) => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: key.keyId,
      client_secret: key.secret,
      audience: environment,
    });
    const signal = context?.signal;
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(
        new Request(tokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: form,
          signal,
        }),
      );
    } catch (error) {
      if (signal?.aborted) throw failed(undefined, undefined, (signal.reason as Error)?.message ?? 'aborted', signal.reason);
      throw failed(undefined, undefined, `no answer (${causeText(error)})`, error);
    }
    try {
      text = await response.text();
    } catch (error) {
      throw failed(response, undefined, `${statusLine(response)}, body unreadable (${causeText(error)})`, error);
    }
    let body: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } | undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      const type = response.headers.get('content-type') ?? 'no content type';
      throw failed(response, text, `${statusLine(response)} with a body that is not JSON (${type}): ${excerpt(text)}`);
    }
    if (!response.ok) {
      const reason = typeof body?.error_description === 'string' ? body.error_description : typeof body?.error === 'string' ? body.error : undefined;
      throw failed(response, body ?? text, reason ? `${reason} (${statusLine(response)})` : statusLine(response));
    }
    if (typeof body?.access_token !== 'string' || body.access_token === '') {
      throw failed(response, body ?? text, `${statusLine(response)} without an access_token`);
    }
    const expiresIn = body.expires_in;
    if (typeof expiresIn === 'number' && !(expiresIn > 0)) {
      throw failed(response, body, `${statusLine(response)} with expires_in ${expiresIn}: the token is already expired`);
    }
    const expiresAt = typeof expiresIn === 'number' && Number.isFinite(expiresIn) ? now() + expiresIn * 1000 : undefined;
    return { token: body.access_token, expiresAt };
  };
}

/** `fetch failed` hides the reason in `cause` (ECONNREFUSED, a reset, ...). */
export function causeText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const inner = cause?.code ?? cause?.message;
  return inner && inner !== message ? `${message}: ${inner}` : message;
}
