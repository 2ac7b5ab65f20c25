// Decisions a client can observe over HTTP that no other check covers (issue 11): secrets are never answered back
// after creation (D-12, D-16), a delivery answered 410 disables the subscription (D-17), 405 carries `Allow` with
// the path's methods (D-37), 429 carries `Retry-After` (D-31), the case rules of D-03, D-04, D-06, D-36 and D-39,
// and unknown query parameters ignored (D-34).
import { Skip, expect, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { MARK } from '../context.ts';
import type { Exchange } from '../http.ts';
import { isRetryAfter } from '../judge.ts';
import { eventIdOf, fire, subscribe } from './webhooks.ts';

const MASK = '********';

/** Every member named like a secret in the authorization of a webhook answer. */
function authorizationSecrets(webhook: any): unknown[] {
  const auth = webhook?.authorization;
  const schemes = Array.isArray(auth) ? auth : auth ? [auth] : [];
  return schemes.map((s: any) => (s.type === 'basic' ? s.password : s.type === 'bearer' ? s.token : s.value));
}

function expectNoSecret(x: Exchange, secrets: string[], what: string) {
  for (const s of secrets) expect(!x.text.includes(s), `${what}: the answer contains a secret given at creation (${s.slice(0, 4)}…)`, x);
}

/** Methods the description declares on the path of `operationId`, upper case. */
function declaredMethods(ctx: Context, path: string): string[] {
  return ctx.operations().filter((o) => o.path === path).map((o) => o.method.toUpperCase());
}

/** Wait, boundedly, until `test` holds on a fresh read. The service acts after our receiver answered, with nothing to
 *  wait on: a short poll with a deadline is the only way to see it. */
async function eventually(timeoutMs: number, read: () => Promise<Exchange>, test: (x: Exchange) => boolean): Promise<Exchange> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const x = await read();
    if (test(x) || Date.now() > deadline) return x;
    await new Promise((r) => setTimeout(r, 25));
  }
}

const UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const observableChecks: Check[] = [
  {
    id: 'resources.case-rules',
    area: 'resources',
    title: 'A new case has status 1 and priority 3, createdAt = created, UTC datetimes with milliseconds; any status may follow any other; read-only fields in an update are 400',
    statements: ['D-03.created-same', 'D-04.defaults', 'D-06.any-transition', 'D-36.read-only-refused', 'D-39.utc-millis'],
    needs: ['writes'],
    async run(ctx) {
      const contract = await ctx.fixtures.contract();
      const x = await ctx.call(ctx.customer, 'createCase', {}, { json: { contract, shortDescription: `${MARK} ${ctx.runTag} case rules` } });
      expectStatus(x, 201, 'createCase without priority');
      const c = x.json.data;
      const statuses = (ctx.spec.document.components?.schemas?.CaseStatus?.enum ?? []) as number[];
      expect(c.status === 1 && c.priority === 3, `a new case without priority should have status 1 and priority 3 (D-04), got status ${c.status}, priority ${c.priority}`, x);
      expect(c.createdAt === c.created, `createdAt (${c.createdAt}) and created (${c.created}) should be the same instant (D-03)`, x);
      for (const f of ['createdAt', 'created', 'updatedAt']) expect(UTC_MILLIS.test(c[f]), `${f} "${c[f]}" should be UTC with milliseconds and Z (D-39)`, x);
      // Every status after every other, in both directions of the declared order (D-06).
      const order = [...statuses, ...statuses.slice().reverse()];
      for (const status of order) {
        const u = await ctx.call(ctx.customer, 'updateCase', { caseId: c.id }, { json: { status } });
        expectStatus(u, 200, `updateCase status ${status}`);
        expect(u.json.data.status === status, `updateCase status ${status} answered status ${u.json.data.status}`, u);
      }
      for (const field of ['incident', 'createdAt', 'id']) {
        const u = await ctx.call(ctx.customer, 'updateCase', { caseId: c.id }, { json: { [field]: field === 'createdAt' ? '2026-01-01T00:00:00Z' : 'conformance' } });
        expectStatus(u, 400, `updateCase with read-only ${field} (D-36)`);
      }
      return `${order.length} status changes, 3 read-only fields refused`;
    },
  },
  {
    id: 'operations.unknown-query',
    area: 'operations',
    title: 'Unknown query parameters are ignored: the list answers as without them',
    statements: ['D-34.unknown-query'],
    needs: ['state'],
    async run(ctx) {
      const plain = await ctx.list(ctx.customer, 'listCases', {}, 'page[size]=5');
      const extra = await ctx.list(ctx.customer, 'listCases', {}, `page[size]=5&conformanceUnknown=${ctx.runTag}&fields=id`);
      const ids = (r: typeof plain) => r.items.map((i) => i.id).join(',');
      expect(ids(plain) === ids(extra) && plain.page.totalCount === extra.page.totalCount, 'listCases with unknown query parameters answered other items than without them', extra.exchange);
    },
  },
  {
    id: 'resources.secrets-masked',
    area: 'resources',
    title: 'Secrets are never answered after creation: webhook authorization as ********, no signing or API key secret',
    statements: ['D-12.secret-once', 'D-16.secrets-masked'],
    needs: ['writes'],
    async run(ctx) {
      const tag = ctx.runTag;
      const authorization = [
        { type: 'basic', username: 'conformance', password: `pw-${tag}-secret` },
        { type: 'header', name: 'X-Conformance-Secret', value: `hv-${tag}-secret` },
      ];
      const c = await ctx.call(ctx.customer, 'createWebhook', {}, { json: { url: ctx.unusedWebhookUrl('secrets'), enabled: false, authorization } });
      expectStatus(c, 201, 'createWebhook with basic and header authorization');
      const id = c.json.data.id;
      ctx.onCleanup(`delete webhook ${id}`, () => ctx.call(ctx.customer, 'deleteWebhook', { webhookId: id }));
      const signing = String(c.json.data.signingSecret ?? '');
      const secrets = [`pw-${tag}-secret`, `hv-${tag}-secret`, `bt-${tag}-secret`];
      expect(authorizationSecrets(c.json.data).every((s) => s === MASK), `createWebhook answers the authorization secrets, not ${MASK}`, c);
      const bearer = await ctx.call(ctx.customer, 'updateWebhook', { webhookId: id }, { json: { authorization: { type: 'bearer', token: `bt-${tag}-secret` } } });
      expectStatus(bearer, 200, 'updateWebhook with a bearer token');
      expect(authorizationSecrets(bearer.json.data).every((s) => s === MASK), `updateWebhook answers the bearer token, not ${MASK}`, bearer);
      const back = await ctx.call(ctx.customer, 'updateWebhook', { webhookId: id }, { json: { authorization } });
      expectStatus(back, 200, 'updateWebhook with basic and header authorization');
      const reads = [
        ['getWebhook', await ctx.call(ctx.customer, 'getWebhook', { webhookId: id })],
        ['listWebhooks', await ctx.call(ctx.customer, 'listWebhooks', {}, { query: `filter[id]=${encodeURIComponent(id)}` })],
        ['updateWebhook', back],
      ] as const;
      for (const [what, x] of reads) {
        expectStatus(x, 200, what);
        const items = Array.isArray(x.json.data) ? x.json.data : [x.json.data];
        expect(items.length === 1 && authorizationSecrets(items[0]).length === 2 && authorizationSecrets(items[0]).every((s) => s === MASK), `${what}: each authorization secret should read ${MASK}`, x);
        expectNoSecret(x, signing ? [...secrets, signing] : secrets, what);
        expect(!('signingSecret' in items[0]), `${what}: the signing secret is answered after creation`, x);
      }
      // API keys: the secret once, in the create answer; never in a read, a list or an update.
      const k = await ctx.call(ctx.customer, 'createApiKey', {}, { json: { label: `${MARK} secrets ${tag}`, expiresAt: '2099-06-01T00:00:00Z' } });
      expectStatus(k, 201, 'createApiKey');
      const keyId = k.json.data.id;
      ctx.onCleanup(`revoke API key ${keyId}`, () => ctx.call(ctx.customer, 'revokeApiKey', { keyId }));
      const secret = String(k.json.data.secret ?? '');
      expect(secret.length > 0, 'createApiKey answers no secret', k);
      for (const [what, x] of [
        ['getApiKey', await ctx.call(ctx.customer, 'getApiKey', { keyId })],
        ['listApiKeys', await ctx.call(ctx.customer, 'listApiKeys', {}, { query: `filter[id]=${encodeURIComponent(keyId)}` })],
        ['updateApiKey', await ctx.call(ctx.customer, 'updateApiKey', { keyId }, { json: { label: `${MARK} secrets ${tag} renamed` } })],
      ] as const) {
        expectStatus(x, 200, what);
        expectNoSecret(x, [secret], what);
        const item = Array.isArray(x.json.data) ? x.json.data[0] : x.json.data;
        expect(item && !('secret' in item), `${what}: the API key's secret member is answered after creation`, x);
      }
      return 'webhook basic, bearer and header secrets; signing secret; API key secret';
    },
  },
  {
    id: 'webhooks.gone-disables',
    area: 'webhooks',
    title: 'A delivery answered 410 Gone disables the subscription',
    statements: ['D-17.gone-disables'],
    needs: ['writes', 'sandbox', 'webhooks'],
    async run(ctx) {
      const sub = await subscribe(ctx, 'answers 410', { eventTypes: ['case.updated'] });
      ctx.receiver.answer(sub.path, 410);
      const caseId = await ctx.fixtures.caseId();
      const eventId = await fire(ctx, 'case.updated', { caseId });
      try {
        await ctx.receiver.waitFor((d) => d.path === sub.path && eventIdOf(d) === eventId, ctx.options.deliveryTimeoutMs, `delivery of ${eventId} to the subscription that answers 410`);
      } catch (err) {
        ctx.fail((err as Error).message);
      }
      const x = await eventually(ctx.options.deliveryTimeoutMs, () => ctx.call(ctx.customer, 'getWebhook', { webhookId: sub.id }), (r) => r.json?.data?.enabled === false);
      expectStatus(x, 200, 'getWebhook after a 410');
      expect(x.json.data.enabled === false, `the subscription that answered 410 Gone is still enabled (enabled: ${x.json.data.enabled})`, x);
      return `${sub.id} disabled after answering 410 to ${eventId}`;
    },
  },
  {
    id: 'operations.allow',
    area: 'operations',
    title: 'A method the path does not have answers 405 with Allow listing (at least) the methods the description declares',
    statements: ['D-37.allow', 'D-89.trigger-methods'],
    needs: ['state'],
    async run(ctx) {
      const paths = new Map<string, string>();
      for (const op of ctx.operations()) if (!paths.has(op.path)) paths.set(op.path, op.operationId);
      let checked = 0;
      for (const [path, operationId] of paths) {
        const declared = declaredMethods(ctx, path);
        // GET where the path has none (a trigger path: never a read of an event named like it, D-89); else a write
        // verb, which a read-only run does not send.
        const wrong = !declared.includes('GET') ? 'GET' : ctx.readOnly ? undefined : ['PUT', 'DELETE', 'PATCH', 'POST'].find((m) => !declared.includes(m));
        if (!wrong) continue;
        const params = await ctx.fixtures.pathParams(operationId);
        const x = await ctx.customer.request({ method: wrong, path: ctx.path(operationId, params), json: wrong === 'GET' ? undefined : {} });
        expectStatus(x, 405, `${wrong} ${path}`);
        const allow = (x.headers.allow ?? '').split(',').map((m) => m.trim().toUpperCase()).filter(Boolean);
        const missing = declared.filter((m) => !allow.includes(m));
        expect(allow.length > 0 && missing.length === 0, `${wrong} ${path}: Allow is "${x.headers.allow ?? ''}", it should list ${declared.join(', ')}${missing.length ? ` (missing ${missing.join(', ')})` : ''}`, x);
        checked++;
      }
      if (checked === 0) throw new Skip('read-only run: every path has GET, and the other methods are not sent');
      return `${checked} paths`;
    },
  },
  {
    id: 'operations.rate-limit',
    area: 'operations',
    title: 'A 429 carries Retry-After (seconds), the error envelope and X-CareAPI-Env',
    statements: ['D-31.retry-after'],
    needs: ['state'],
    async run(ctx) {
      // A burst the target may limit; a target that does not limit it leaves nothing to check (skipped, said why).
      const burst = 40;
      const answers = await Promise.all(Array.from({ length: burst }, () => ctx.call(ctx.customer, 'listContracts', {}, { query: 'page[size]=1' })));
      const limited = answers.filter((x) => x.status === 429);
      if (limited.length === 0) throw new Skip(`no 429 in a burst of ${burst} requests: the target's rate limit, if any, was not reached`);
      for (const x of limited) {
        expect(isRetryAfter(x.headers['retry-after']), `429 without a valid Retry-After (got ${x.headers['retry-after'] ?? 'none'})`, x);
        expect(x.headers['x-careapi-env'] === ctx.envHeader && Array.isArray(x.json?.errors), '429 outside the error envelope or without X-CareAPI-Env', x);
      }
      return `${limited.length} of ${burst} requests answered 429, each with Retry-After`;
    },
  },
];
