// Area "auth": no token, a malformed token and a revoked API key are refused with 401 in the envelope.
import { exchangeApiKey } from '../auth.ts';
import { Skip, expect, expectErrors, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { MARK } from '../context.ts';
import type { Exchange } from '../http.ts';

function expect401(ctx: Context, x: Exchange, what: string) {
  expectErrors(x, 401, what);
  expect(x.headers['x-careapi-env'] === ctx.envHeader, `${what}: the 401 lacks X-CareAPI-Env: ${ctx.envHeader}`, x);
  expect(/bearer/i.test(x.headers['www-authenticate'] ?? ''), `${what}: the 401 has no WWW-Authenticate: Bearer (decision D-15)`, x);
}

/** Every list with no path parameter: reads any account can make, so refusing them cannot depend on data. */
function probes(ctx: Context): string[] {
  return ctx.operations().filter((o) => o.list && o.method === 'get' && !o.parameters.some((p) => p.in === 'path')).map((o) => o.operationId);
}

/** Refused at the exchange (4xx), or given a token the API refuses with 401. */
async function expectKeyRefused(ctx: Context, keyId: string, secret: string, what: string) {
  if (!ctx.config.authUrl) throw new Skip('no authUrl in the configuration');
  const { token, exchange } = await exchangeApiKey(ctx.config.authUrl, keyId, secret, ctx.environment, ctx.counter);
  if (!token) {
    expect(exchange.status >= 400 && exchange.status < 500, `${what}: the key exchange should refuse with 400/401, got ${exchange.status}`, exchange);
    return;
  }
  const x = await ctx.customer.request({ path: ctx.path('listContracts'), auth: `Bearer ${token}` });
  expect401(ctx, x, `${what}: a token from it`);
}

export const authChecks: Check[] = [
  {
    id: 'auth.no-token',
    area: 'auth',
    title: 'A request without a token is refused with 401',
    statements: ['S5.bearer-jwt', 'S1.error-envelope', 'S7.error-env-header', 'D-15.401'],
    async run(ctx) {
      for (const op of probes(ctx)) {
        const x = await ctx.call(ctx.customer, op, {}, { auth: false });
        expect401(ctx, x, `${op} without Authorization`);
      }
      return `${probes(ctx).length} operations`;
    },
  },
  {
    id: 'auth.malformed-token',
    area: 'auth',
    title: 'A malformed or foreign token is refused with 401',
    statements: ['S5.bearer-jwt', 'S1.error-envelope', 'D-15.401'],
    needs: ['state'],
    async run(ctx) {
      const forged = `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"conformance"}').toString('base64url')}.c2lnbmF0dXJl`;
      const bad = ['Bearer not-a-jwt', `Bearer ${forged}`, 'Bearer ', 'Basic Y29uZm9ybWFuY2U6eA=='];
      for (const auth of bad) {
        const x = await ctx.customer.request({ path: ctx.path('listCases'), auth });
        expect401(ctx, x, `listCases with Authorization "${auth.split(' ')[0]} …"`);
      }
      return `${bad.length} malformed tokens`;
    },
  },
  {
    id: 'auth.revoked-key',
    area: 'auth',
    title: 'A revoked API key is refused with 401',
    statements: ['S5.bearer-jwt', 'S3.apikey-soft-delete', 'D-15.401'],
    needs: ['state'],
    async run(ctx) {
      const revoked = ctx.config.revokedApiKey;
      if (!revoked) throw new Skip('no revokedApiKey in the configuration');
      // A refusal proves something only of a key that exists and is revoked; any wrong key is refused too.
      let record: Exchange | undefined;
      for (const client of ctx.clients()) {
        const x = await ctx.call(client, 'getApiKey', { keyId: revoked.apiKeyId });
        if (x.status === 200) record = x;
      }
      if (!record) throw new Skip(`the configured revoked key ${revoked.apiKeyId} is not a key any configured account can read: its refusal would prove nothing`);
      expect(record.json?.data?.revokedAt, `the configured revoked key ${revoked.apiKeyId} is not revoked (revokedAt is ${JSON.stringify(record.json?.data?.revokedAt)}): the configuration is wrong, or the revocation was lost`, record);
      await expectKeyRefused(ctx, revoked.apiKeyId, revoked.apiKeySecret, 'the revoked key of the configuration');
    },
  },
  {
    id: 'auth.other-environment',
    area: 'auth',
    title: 'Credentials of this environment do not work for the other one (separate credential sets)',
    statements: ['S5.separate-credentials', 'S5.bearer-jwt', 'D-14.environment-tokens'],
    needs: ['state'],
    async run(ctx) {
      const { apiKeyId, apiKeySecret } = ctx.config.customer;
      if (!apiKeyId || !apiKeySecret) throw new Skip('the customer account is configured with a token, not an API key');
      if (!ctx.config.authUrl) throw new Skip('no authUrl in the configuration');
      const other = ctx.environment === 'sandbox' ? 'production' : 'sandbox';
      // The key must work here first: a wrong key is refused everywhere, which would prove nothing about environments.
      const own = await exchangeApiKey(ctx.config.authUrl, apiKeyId, apiKeySecret, ctx.environment, ctx.counter);
      expect(own.token, `the configured key is refused for ${ctx.environment} itself (HTTP ${own.exchange.status}): its refusal for ${other} would prove nothing`, own.exchange);
      const { token, exchange } = await exchangeApiKey(ctx.config.authUrl, apiKeyId, apiKeySecret, other, ctx.counter);
      if (!token) {
        expect(exchange.status >= 400 && exchange.status < 500, `exchanging the ${ctx.environment} key for a ${other} token should be refused with 400/401, got ${exchange.status}`, exchange);
        return `the ${other} exchange refused the ${ctx.environment} key`;
      }
      // Issued anyway: then the token must be refused here, where it does not belong (D-14).
      const x = await ctx.customer.request({ path: ctx.path('listContracts'), auth: `Bearer ${token}` });
      expect401(ctx, x, `a ${other} token on ${ctx.environment}`);
    },
  },
  {
    id: 'auth.key-lifecycle',
    area: 'auth',
    title: 'A new API key works until it is revoked, then it is refused',
    statements: ['S5.bearer-jwt', 'S3.apikey-soft-delete', 'S4.apikey-crud', 'D-13.key-exchange'],
    needs: ['writes'],
    async run(ctx) {
      if (!ctx.config.authUrl) throw new Skip('no authUrl in the configuration');
      const created = await ctx.call(ctx.customer, 'createApiKey', {}, { json: { label: `${MARK} lifecycle ${ctx.runTag}` } });
      expectStatus(created, 201, 'createApiKey');
      const { id, secret } = created.json.data;
      let revoked = false;
      ctx.onCleanup(`revoke API key ${id}`, async () => revoked || ctx.call(ctx.customer, 'revokeApiKey', { keyId: id }));
      const { token, exchange } = await exchangeApiKey(ctx.config.authUrl, id, secret, ctx.environment, ctx.counter);
      expect(token, `a fresh key should be exchanged for a token, got ${exchange.status}`, exchange);
      const ok = await ctx.customer.request({ path: ctx.path('listContracts'), auth: `Bearer ${token}` });
      expectStatus(ok, 200, 'listContracts with a token of a fresh key');
      const del = await ctx.call(ctx.customer, 'revokeApiKey', { keyId: id });
      expectStatus(del, 200, 'revokeApiKey');
      revoked = true;
      const after = await ctx.customer.request({ path: ctx.path('listContracts'), auth: `Bearer ${token}` });
      expect401(ctx, after, 'a token of a key revoked since');
      await expectKeyRefused(ctx, id, secret, 'the key revoked just now');
    },
  },
];
