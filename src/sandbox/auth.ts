// The authentication service (D-13, D-14): API keys exchanged for HS256 JWTs with the client-credentials grant, and
// the bearer check of every Care API request. The signing key is made at first start and kept in the database.
import { createHash, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Environment } from '../spec/types.ts';
import { ApiError } from './http/envelope.ts';
import type { Org, Storage } from './store/types.ts';

export const TOKEN_TTL_SECONDS = 3600;
const ISSUER = 'care-sandbox/auth/v2';

export interface Account {
  id: string;
  kind: Org['kind'];
  keyId: string;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function newSecret(): string {
  return 'ck_' + randomBytes(24).toString('base64url');
}

/** An OAuth 2.0 error answer (RFC 6749 section 5.2). */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

const unauthorized = (detail: string) =>
  new ApiError(401, { detail: `header.Authorization: ${detail}`, code: 'unauthorized' }, { 'WWW-Authenticate': 'Bearer realm="care"' });

export function createAuth(store: Storage, now: () => number = Date.now) {
  let secret = store.getSetting('jwt_hs256_key');
  if (!secret) {
    secret = randomBytes(32).toString('base64');
    store.setSetting('jwt_hs256_key', secret);
  }
  // A KeyObject once, rather than raw bytes that jose imports again on every verification.
  const key = createSecretKey(Buffer.from(secret, 'base64'));
  // Verified tokens (signature and claims), so a request costs a map lookup; the key's state is checked every time.
  const verified = new Map<string, { account: unknown; kid: string; exp: number }>();

  // API key rows by environment and id while the apikeys table is unchanged, and organisations (only ever inserted,
  // by the seed, never changed): every request reads both, neither needs SQLite again until a key is written.
  const keys = new Map<string, { version: number; stored: ReturnType<Storage['get']> }>();
  function keyRow(env: Environment, keyId: string) {
    const version = store.version('apikeys');
    const cacheKey = `${env} ${keyId}`;
    const hit = keys.get(cacheKey);
    if (hit && hit.version === version) return hit.stored;
    const stored = store.get('apikeys', env, keyId);
    if (keys.size >= 10_000) keys.clear();
    keys.set(cacheKey, { version, stored });
    return stored;
  }
  const orgs = new Map<string, Org>();
  function orgOf(env: Environment, id: string): Org | undefined {
    let org = orgs.get(`${env} ${id}`);
    if (!org) {
      org = store.getOrg(env, id);
      if (org && orgs.size < 10_000) orgs.set(`${env} ${id}`, org);
    }
    return org;
  }

  /** The key record if it may be used now: exists in that environment, secret matches (when given), not revoked or expired. */
  function usableKey(env: Environment, keyId: string, clientSecret?: string) {
    const stored = keyRow(env, keyId);
    if (!stored) return undefined;
    if (clientSecret !== undefined) {
      const expected = Buffer.from(stored.internal.secretHash ?? '', 'hex');
      const given = Buffer.from(hashSecret(clientSecret), 'hex');
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    }
    if (stored.record.revokedAt) return undefined;
    if (stored.record.expiresAt && Date.parse(stored.record.expiresAt) <= now()) return undefined;
    return stored;
  }

  return {
    async exchange(form: Record<string, unknown>): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number }> {
      const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : undefined);
      if (field('grant_type') !== 'client_credentials') {
        throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
      }
      const clientId = field('client_id');
      const clientSecret = field('client_secret');
      if (!clientId || !clientSecret) throw new OAuthError(400, 'invalid_request', 'client_id and client_secret are required');
      const audience = field('audience') ?? 'production';
      if (audience !== 'production' && audience !== 'sandbox') {
        throw new OAuthError(400, 'invalid_target', 'audience must be production or sandbox');
      }
      const stored = usableKey(audience, clientId, clientSecret);
      if (!stored) throw new OAuthError(401, 'invalid_client', 'unknown, revoked or expired API key, or wrong secret');
      const seconds = Math.floor(now() / 1000);
      const token = await new SignJWT({ account: stored.internal.account, environment: audience, kid: clientId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience(audience)
        .setSubject(clientId)
        .setIssuedAt(seconds)
        .setExpirationTime(seconds + TOKEN_TTL_SECONDS)
        .sign(key);
      return { access_token: token, token_type: 'Bearer', expires_in: TOKEN_TTL_SECONDS };
    },

    /** The account of a request's bearer token, or a 401 ApiError. */
    async authenticate(env: Environment, authorization: string | undefined): Promise<Account> {
      const match = /^Bearer\s+([A-Za-z0-9_\-.=]+)\s*$/i.exec(authorization ?? '');
      if (!match) throw unauthorized('missing or invalid bearer token');
      const cacheKey = `${env} ${match[1]}`;
      let claims = verified.get(cacheKey);
      if (!claims || claims.exp * 1000 <= now()) {
        try {
          const result = await jwtVerify(match[1], key, { issuer: ISSUER, audience: env, algorithms: ['HS256'], currentDate: new Date(now()) });
          claims = { account: result.payload.account, kid: String(result.payload.kid ?? ''), exp: Number(result.payload.exp) };
        } catch {
          verified.delete(cacheKey);
          throw unauthorized('missing or invalid bearer token');
        }
        if (verified.size >= 10_000) verified.clear();
        verified.set(cacheKey, claims);
      }
      const keyId = String(claims.kid ?? '');
      const stored = usableKey(env, keyId);
      if (!stored || stored.internal.account !== claims.account) throw unauthorized('the API key of this token is revoked or expired');
      const org = orgOf(env, String(claims.account));
      if (!org) throw unauthorized('unknown account');
      return { id: org.id, kind: org.kind, keyId };
    },
  };
}

export type Auth = ReturnType<typeof createAuth>;
