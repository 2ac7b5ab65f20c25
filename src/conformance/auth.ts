// Tokens for the suite's accounts: a bearer JWT given directly, or an API key exchanged with the OAuth 2.0
// client-credentials grant at `{authUrl}/oauth/token` (decision D-13).
import type { Environment } from '../spec/types.ts';
import { send, type Exchange, type RequestCounter } from './http.ts';

export interface ExchangeResult {
  token?: string;
  exchange: Exchange;
}

/** Ask the authentication service for a token; never throws on an HTTP refusal (the caller judges it). */
export async function exchangeApiKey(
  authUrl: string,
  keyId: string,
  secret: string,
  environment: Environment,
  counter: RequestCounter,
): Promise<ExchangeResult> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: keyId,
    client_secret: secret,
    audience: environment,
  }).toString();
  const exchange = await send(
    'POST',
    `${authUrl.replace(/\/$/, '')}/oauth/token`,
    { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    form,
    counter,
  );
  const token = exchange.status === 200 && typeof exchange.json?.access_token === 'string' ? exchange.json.access_token : undefined;
  return { token, exchange };
}

/** A memoised token source for one account. */
export function tokenSource(
  account: { token?: string; apiKeyId?: string; apiKeySecret?: string },
  authUrl: string | undefined,
  environment: Environment,
  counter: RequestCounter,
): () => Promise<string | undefined> {
  let pending: Promise<string | undefined> | undefined;
  return () => {
    if (account.token) return Promise.resolve(account.token);
    pending ??= (async () => {
      if (!account.apiKeyId || !account.apiKeySecret) return undefined;
      if (!authUrl) throw new Error('an API key is configured but no authUrl to exchange it at');
      const { token, exchange } = await exchangeApiKey(authUrl, account.apiKeyId, account.apiKeySecret, environment, counter);
      if (!token) throw new Error(`the API key exchange at ${authUrl}/oauth/token was refused with HTTP ${exchange.status}`);
      return token;
    })();
    return pending;
  };
}
