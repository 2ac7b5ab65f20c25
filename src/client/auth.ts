// Bearer tokens for the client: a fixed token, a caller's provider, or the API-key exchange of decision D-13.
import { decodeJwt } from 'jose';
import type { CareEnvironment } from './base-url.ts';

/** Token endpoint base of the authentication service (`tokenUrl` of the apiKeyExchange scheme minus `/oauth/token`). */
export const DEFAULT_AUTH_URL = 'https://auth.care.example/auth/v2';

/** What a token provider may answer: the token, or the token with its expiry. */
export type TokenResult = string | { token: string; expiresAt?: Date | number };

export type TokenProvider = () => TokenResult | Promise<TokenResult>;

/** An API key created with the API key endpoints: its id is the OAuth client id, its secret the client secret. */
export interface ApiKeyCredentials {
  keyId: string;
  secret: string;
}

/** Refresh this long before the token's own expiry, so a request never leaves with a token about to lapse. */
const EXPIRY_MARGIN_MS = 30_000;

export interface TokenSource {
  /**
   * The Authorization value (`Bearer <token>`) of a valid token: synchronously while the cached one is unexpired (no
   * promise, no new string per request), else once it has been fetched or refreshed. Concurrent callers share one refresh.
   */
  authorization(): string | Promise<string>;
  /** Forget the cached token (after a 401); returns false when there is nothing to refresh (a fixed token). */
  invalidate(): boolean;
}

export function fixedToken(token: string): TokenSource {
  if (!token) throw new TypeError('token must be a non-empty string');
  const authorization = `Bearer ${token}`;
  return { authorization: () => authorization, invalidate: () => false };
}

export function cachedToken(provider: TokenProvider, now: () => number = Date.now): TokenSource {
  // The header value is built once per token; `renewAt` already holds the safety margin.
  let current: { authorization: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const refresh = async (): Promise<string> => {
    try {
      const result = await provider();
      const token = typeof result === 'string' ? result : result?.token;
      if (!token) throw new TypeError('the token provider returned no token');
      const expiresAt = typeof result === 'string' || result.expiresAt === undefined ? jwtExpiry(token) : +result.expiresAt;
      current = { authorization: `Bearer ${token}`, renewAt: expiresAt - EXPIRY_MARGIN_MS };
      return current.authorization;
    } finally {
      pending = undefined;
    }
  };
  return {
    authorization() {
      if (current && now() < current.renewAt) return current.authorization;
      return (pending ??= refresh());
    },
    invalidate() {
      current = undefined;
      return true;
    },
  };
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
 * secret and the environment as `audience`; answers `{access_token, token_type, expires_in}`.
 */
export function apiKeyExchange(
  key: ApiKeyCredentials,
  environment: CareEnvironment,
  options: { authUrl?: string; fetch?: (request: Request) => Promise<Response>; now?: () => number } = {},
): TokenProvider {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const tokenUrl = `${(options.authUrl ?? DEFAULT_AUTH_URL).replace(/\/+$/, '')}/oauth/token`;
  return async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: key.keyId,
      client_secret: key.secret,
      audience: environment,
    });
    const response = await fetchImpl(
      new Request(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
      }),
    );
    const body = (await response.json().catch(() => undefined)) as
      | { access_token?: string; expires_in?: number; error?: string; error_description?: string }
      | undefined;
    if (!response.ok || !body?.access_token) {
      const reason = body?.error_description ?? body?.error ?? `HTTP ${response.status}`;
      throw new Error(`API key exchange at ${tokenUrl} failed: ${reason}`);
    }
    const expiresAt = typeof body.expires_in === 'number' ? now() + body.expires_in * 1000 : undefined;
    return { token: body.access_token, expiresAt };
  };
}
