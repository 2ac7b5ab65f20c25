// Issue 46, item 2: one fault for each decision whose promise is observable over HTTP and that had none, each a
// plausible mistake of a deployment. The decision a fault breaks is in its description; the check that catches it is
// in the closing note of issue 46.
import { Webhook } from 'standardwebhooks';
import { bundlePath, loadSpec } from '../../src/spec/index.ts';
import { operationOf } from '../../src/conformance/judge.ts';
import { bodyOf, editJson, errorResponse, forEachItem, is, isList, mapQuery, ownError, pathOf, queryOf, withBody } from './fault-kit.ts';
import { jsonOf, withJson, type Delivery, type Fault, type FaultProxy, type ProxyRequest, type ProxyResponse } from './proxy.ts';

const spec = loadSpec(bundlePath('sandbox'));

/** The properties of the JSON body schema of the operation a request is made to. */
function bodyProperties(req: ProxyRequest): Record<string, any> {
  const op = operationOf(spec.operations, req.method, pathOf(req).replace(/^\/care\/v0(\/sandbox)?/, ''));
  const schema = op?.requestBody?.schema as any;
  const resolve = (s: any) => (s?.$ref ? spec.resolve(s.$ref) : s);
  const props = resolve(schema)?.properties ?? {};
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, resolve(v)]));
}

/** Change each top-level member of a JSON request body; `undefined` drops it. */
function mapMembers(req: ProxyRequest, f: (name: string, value: unknown, declared: any) => unknown): ProxyRequest {
  const body = bodyOf(req);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return req;
  const declared = bodyProperties(req);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    const mapped = f(k, v, declared[k]);
    if (mapped !== undefined) out[k] = mapped;
  }
  return withBody(req, out);
}

const typesOf = (schema: any): string[] => (Array.isArray(schema?.type) ? schema.type : [schema?.type]);

/** The same request as a GET of the resource it writes (to read the state a write is decided on). */
const readOf = (proxy: FaultProxy, req: ProxyRequest) => proxy.forward({ ...req, method: 'GET', body: Buffer.alloc(0), url: pathOf(req) });

/** Requests in flight through the proxy: a burst is what an overloaded front refuses. */
let inFlight = 0;
function whenOverloaded(answer: () => ProxyResponse): Pick<Fault, 'request' | 'response'> {
  return {
    request: (req) => {
      if (inFlight >= 10) return answer();
      inFlight++;
      return req;
    },
    response: (res) => {
      inFlight--;
      return res;
    },
  };
}

/** Signing secrets of the subscriptions created while a fault is on, by subscription id. */
const signingSecrets = new Map<string, string>();
const rememberSigningSecret = editJson((json) => {
  if (json?.data?.signingSecret) signingSecrets.set(json.data.id, json.data.signingSecret);
}, (res, req) => res.status === 201 && is(req, 'POST', /\/webhooks$/));

/** A delivery whose payload a deployment built otherwise, signed as it would sign it. */
function rebuilt(d: Delivery, edit: (payload: any) => void): Delivery {
  const payload = JSON.parse(d.body.toString('utf8'));
  const secret = signingSecrets.get(payload?.meta?.webhookId);
  if (!secret) return d;
  edit(payload);
  const body = JSON.stringify(payload);
  const signature = new Webhook(secret).sign(d.headers['webhook-id'], new Date(Number(d.headers['webhook-timestamp']) * 1000), body);
  return { headers: { ...d.headers, 'webhook-signature': signature }, body: Buffer.from(body) };
}

/** Keys created while a fault is on. */
const freshKeys = new Set<string>();
/** The last externalReference written to each contract, by whichever account. */
const sharedReferences = new Map<string, unknown>();
/** A case without contract some list answered (D-07). */
let contractless: any;
/** Partner comments by case, with the authorization that wrote them. */
const partnerComments = new Map<string, { comment: any; authorization?: string }>();

/** What a deployment with composite keys appends to every id (a tenant and a record UUID): past D-38's 64 characters. */
const TENANT_KEY = ':2f1c0a52-7d3e-4b9a-9c61-0e5d8a4b7f13:9b0e4d2c-1a7f-4c3e-8d5b-6f2a0c9e1b47';
const TENANT_KEY_IN_REQUEST = new RegExp(TENANT_KEY.split(':').join('(?::|%3A)'), 'gi');

const RESERVED_HEADERS: string[] = spec.resolve('#/components/schemas/WebhookAuthHeader').properties.name['x-care-reserved-names'] ?? [];
const EVENT_TYPES = Object.keys(spec.document.webhooks ?? {});
const CASE_READ_ONLY = ['id', 'createdAt', 'created', 'updatedAt', 'incident'];

export const DECISION_FAULTS: Fault[] = [
  // operations
  { name: 'unknown-query-refused', area: 'operations', description: 'a query parameter the operation does not declare is 400 extra_forbidden, not ignored (D-34)',
    request: (req) => {
      const unknown = [...queryOf(req).keys()].find((k) => !/^(page\[|filter\[|sort$)/.test(k));
      return req.method === 'GET' && unknown ? ownError(400, 'extra_forbidden', `query.${unknown}: Extra inputs are not permitted`) : req;
    } },
  { name: 'ids-past-64-characters', area: 'operations', description: 'ids are composite keys (the id, a tenant and a record UUID), longer than 64 characters (D-38)',
    request: (req) => ({ ...req, url: req.url.replace(TENANT_KEY_IN_REQUEST, ''), body: Buffer.from(req.body.toString('latin1').replace(TENANT_KEY_IN_REQUEST, ''), 'latin1') }),
    response: editJson((json) => forEachItem(json, (i) => { if (typeof i?.id === 'string') i.id += TENANT_KEY; })) },
  { name: 'malformed-target-502', area: 'operations', description: 'a front gateway answers a request target that is no path and no URL with 502, not 400 (D-89)',
    request: (req) => (req.url.startsWith('/') ? req : { status: 502, headers: { 'content-type': 'text/html' }, body: Buffer.from('<html><body>502 Bad Gateway</body></html>') }) },
  { name: 'unknown-path-as-403', area: 'operations', description: 'a path of no operation is 403, as an API gateway answers "missing authentication token" (D-37)',
    response: (res) => (res.status === 404 && /^path: no operation/.test(jsonOf(res)?.errors?.[0]?.detail ?? '') ? errorResponse(res, 403, 'Forbidden', 'path: missing authentication token') : res) },
  { name: 'head-not-served', area: 'operations', description: 'HEAD is 405 where GET is served: a framework without automatic HEAD (D-69)',
    request: (req) => (req.method === 'HEAD' ? ownError(405, 'method_not_allowed', `method: HEAD is not allowed on ${pathOf(req)}`, { allow: 'GET' }) : req) },
  { name: 'http-layer-refusals-bare', area: 'operations', description: "a front proxy answers over-long request heads with its own HTML page, outside the envelope (D-70)",
    response: (res) => ([414, 431].includes(res.status) ? { status: res.status, headers: { 'content-type': 'text/html' }, body: Buffer.from('<html><body><h1>Request Header Or Cookie Too Large</h1></body></html>') } : res) },
  { name: 'rate-limit-fields-old-draft', area: 'operations', description: 'RateLimit fields in the form of an older draft (limit=10, remaining=9, reset=1) (D-102)',
    response: (res, req) => (req.headers.authorization && res.status < 500 ? { ...res, headers: { ...res.headers, ratelimit: 'limit=10, remaining=9, reset=1', 'ratelimit-policy': '10;w=1' } } : res) },
  { name: 'throttle-without-retry-after', area: 'operations', description: 'a burst of requests is throttled with 429 without Retry-After (D-31)',
    ...whenOverloaded(() => ownError(429, 'rate_limited', 'header.Authorization: too many requests')) },
  { name: 'load-shedding-503', area: 'operations', description: 'a burst of requests is shed with 503 without Retry-After (D-103)',
    ...whenOverloaded(() => ownError(503, 'unavailable', 'server: overloaded, try again later')) },

  // auth
  { name: 'fresh-key-not-exchangeable', area: 'auth', description: 'a key created just now is refused by the token exchange until a cache refreshes (D-13)',
    request: (req) => {
      if (!req.url.includes('/oauth/token')) return req;
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const id = new URLSearchParams(req.body.toString('utf8')).get('client_id') ?? (basic ? decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0]) : '');
      return freshKeys.has(id) ? { status: 401, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"error":"invalid_client"}') } : req;
    },
    response: editJson((json) => { freshKeys.add(json.data.id); }, (res, req) => res.status === 201 && is(req, 'POST', /\/apikeys$/)) },
  { name: 'token-audience-ignored', area: 'auth', description: 'the token endpoint ignores the audience: a key of one environment gets tokens for both (D-14)',
    request: (req) => (req.url.includes('/oauth/token') ? { ...req, body: Buffer.from(req.body.toString('utf8').replace(/audience=production/, 'audience=sandbox')) } : req) },

  // sorting
  { name: 'sort-field-not-indexed', area: 'sorting', description: 'a declared sortable field (created) is refused as not sortable (D-21)',
    request: (req) => (/^-?created$/.test((queryOf(req).get('sort') ?? '').split(',')[0]) ? ownError(400, 'invalid_sort', 'query.sort: created is not a sortable field') : req) },
  { name: 'sort-nulls-last', area: 'sorting', description: 'nulls sort last ascending and first descending, as PostgreSQL does by default (D-28)',
    response: editJson((json, _res, req) => {
      const key = (queryOf(req).get('sort') ?? '').split(',')[0];
      const field = key.replace(/^-/, '');
      const isNull = (i: any) => i[field] === null || i[field] === undefined;
      const nulls = json.data.filter(isNull);
      const rest = json.data.filter((i: any) => !isNull(i));
      json.data = key.startsWith('-') ? [...nulls, ...rest] : [...rest, ...nulls];
    }, (res, req) => isList(jsonOf(res)) && queryOf(req).has('sort')) },

  // filters
  { name: 'list-escape-ignored', area: 'filters', description: 'a list value read without its \\, escape: a comma inside a value splits it (D-23)',
    request: (req) => mapQuery(req, (p) => (p.startsWith('filter[') ? p.replace(/(%5C|\\)(%2C|,)/gi, ',') : p)) },
  { name: 'datetime-filter-millis', area: 'filters', description: 'datetime filter values cut to the millisecond (D-71)',
    request: (req) => mapQuery(req, (p) => {
      const eq = p.indexOf('=');
      if (!p.startsWith('filter[') || eq < 0) return p;
      return p.slice(0, eq + 1) + encodeURIComponent(decodeURIComponent(p.slice(eq + 1)).replace(/(T\d\d:\d\d:\d\d\.\d{3})\d+/g, '$1').replace(/^(\d+\.\d{3})\d+$/, '$1'));
    }) },
  { name: 'backreference-accepted', area: 'filters', description: 'match runs a backtracking engine that takes backreferences (D-68)',
    response: async (res, req, proxy) => (res.status === 400 && /\[match\]=[^&]*(%5C|\\)\d/i.test(req.url) ? proxy.forward(mapQuery(req, (p) => (/\[match\]=/.test(p) ? null : p))) : res) },

  { name: 'integer-operand-as-double', area: 'filters', description: 'an integer operand past 2^53 − 1 is taken as the nearest double, not refused (D-105)',
    // The target is made to take it by the safe integer a double parser would have compared with.
    request: (req) => mapQuery(req, (p) => (p.startsWith('filter[') ? p.replace(/=(-?\d{16,})$/, (_, n) => `=${Math.sign(Number(n)) * Math.min(Math.abs(Number(n)), Number.MAX_SAFE_INTEGER)}`) : p)) },

  // coercion
  { name: 'numbers-taken-as-strings', area: 'coercion', description: 'a number for a string field is stored as its text (lax coercion) (D-46)',
    request: (req) => mapMembers(req, (_k, v, declared) => (typeof v === 'number' && typesOf(declared).includes('string') && !typesOf(declared).includes('integer') ? String(v) : v)) },

  // validation
  { name: 'error-codes-upper-case', area: 'validation', description: 'error codes are answered in upper case (EXTRA_FORBIDDEN), not the codes the decisions name (D-25)',
    response: editJson((json) => { for (const e of json.errors) if (typeof e.code === 'string') e.code = e.code.toUpperCase(); }, (res) => res.status >= 400 && Array.isArray(jsonOf(res)?.errors)) },
  { name: 'unknown-members-dropped', area: 'validation', description: 'members a body schema does not declare are dropped, not refused (D-35)',
    request: (req) => (req.method === 'GET' ? req : mapMembers(req, (k, v, declared) => (declared === undefined ? undefined : v))) },
  { name: 'customer-partner-comment-downgraded', area: 'validation', description: "a customer's partner comment is stored as a plain comment, not refused 403 (D-09)",
    response: async (res, req, proxy) => {
      const body = bodyOf(req);
      if (res.status !== 403 || !is(req, 'POST', /\/comments$/) || body?.partnerComment !== true) return res;
      delete body.partnerComment;
      return proxy.forward(withBody(req, body));
    } },
  { name: 'empty-contract-as-403', area: 'validation', description: 'an empty contract id is looked up and refused 403, not 400 (D-73)',
    request: (req) => (is(req, 'POST', /\/cases$/) && bodyOf(req)?.contract === '' ? ownError(403, 'contract_forbidden', 'body.contract: contract "" is not one of the account\'s contracts') : req) },
  { name: 'lone-surrogate-replaced', area: 'validation', description: 'half a surrogate pair in a body string is stored as U+FFFD (D-82)',
    request: (req) => (/json/.test(req.headers['content-type'] ?? '') ? { ...req, body: Buffer.from(req.body.toString('utf8').replace(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})/gi, '\\ufffd')) } : req) },
  { name: 'contact-domain-as-sent', area: 'validation', description: "a contact is answered with its domain as sent, not in lower case (D-77)",
    response: editJson((json, _res, req) => { json.data.contact = bodyOf(req).contact; }, (res, req) => res.status < 300 && /\/cases(\/[^/]+)?$/.test(pathOf(req)) && typeof bodyOf(req)?.contact === 'string') },
  { name: 'contact-null-ignored', area: 'validation', description: 'contact: null in an update leaves the contact as it was (D-78)',
    request: (req) => (is(req, 'PATCH', /\/cases\/[^/]+$/) ? mapMembers(req, (k, v) => (k === 'contact' && v === null ? undefined : v)) : req) },
  { name: 'comma-list-untrimmed', area: 'validation', description: 'a comma-separated watch list is split without trimming: " b@…" is no e-mail (D-81)',
    request: (req) => (/\/cases(\/[^/]+)?$/.test(pathOf(req)) ? mapMembers(req, (k, v) => (k === 'watchList' && typeof v === 'string' ? v.split(',') : v)) : req) },
  { name: 'value-bound-exclusive', area: 'validation', description: 'a string or list exactly at its maxLength or maxItems is refused (an off-by-one) (D-101)',
    request: (req) => {
      const body = bodyOf(req);
      const declared = body && typeof body === 'object' ? bodyProperties(req) : {};
      const at = Object.entries(body ?? {}).find(([k, v]) => (typeof v === 'string' && [...v].length === declared[k]?.maxLength) || (Array.isArray(v) && v.length === declared[k]?.maxItems));
      return at ? ownError(400, 'too_long', `body.${at[0]}: should have fewer than ${declared[at[0]].maxLength ?? declared[at[0]].maxItems} characters or items`) : req;
    } },

  // scoping
  { name: 'contractless-cases-listed-to-all', area: 'scoping', description: 'a case without contract is listed to partner accounts too, not only to its customer (D-07)',
    response: editJson((json) => {
      contractless ??= json.data.find((c: any) => c.contract === null);
      if (!contractless || json.data.some((c: any) => c.id === contractless.id)) return;
      json.data.push(contractless);
      json.meta.page.count++;
      json.meta.page.totalCount++;
    }, (res, req) => req.method === 'GET' && /\/cases$/.test(pathOf(req)) && !queryOf(req).toString().includes('filter') && isList(jsonOf(res))) },
  { name: 'foreign-contract-filter-empty', area: 'scoping', description: 'a list filtered on a contract the account does not control is empty, not 403 (D-30)',
    response: (res, req) => (res.status === 403 && req.method === 'GET' && queryOf(req).toString().includes('filter%5Bcontract%5D')
      ? { status: 200, headers: { 'content-type': 'application/json', 'x-careapi-env': 'Sandbox' }, body: Buffer.from(JSON.stringify({ meta: { page: { number: 1, size: 50, count: 0, totalCount: 0 } }, data: [] })) } : res) },
  { name: 'partner-comments-shown', area: 'scoping', description: 'partner comments are listed to the customer account too (D-79)',
    response: editJson((json, res, req) => {
      const caseId = pathOf(req).split('/').at(-2)!;
      if (req.method === 'POST' && res.status === 201 && json.data?.partnerComment === true) partnerComments.set(caseId, { comment: json.data, authorization: req.headers.authorization });
      const kept = partnerComments.get(caseId);
      if (req.method !== 'GET' || !isList(json) || !kept || kept.authorization === req.headers.authorization || json.data.some((c: any) => c.id === kept.comment.id)) return;
      json.data.push(kept.comment);
      json.meta.page.count++;
      json.meta.page.totalCount++;
    }, (_res, req) => /\/comments$/.test(pathOf(req))) },

  // resources
  { name: 'created-stamped-apart', area: 'resources', description: "a case's created is stamped by the database a millisecond after createdAt (D-03)",
    response: editJson((json) => forEachItem(json, (i) => { if (i?.created && i.created === i.createdAt) i.created = new Date(Date.parse(i.createdAt) + 1).toISOString(); }), (_res, req) => /\/cases(\/[^/]+)?$/.test(pathOf(req))) },
  { name: 'default-priority-low', area: 'resources', description: 'a new case without priority gets priority 4, not 3 (D-04)',
    request: (req) => (is(req, 'POST', /\/cases$/) && bodyOf(req) && !('priority' in bodyOf(req)) ? withBody(req, { ...bodyOf(req), priority: 4 }) : req) },
  { name: 'status-only-forward', area: 'resources', description: 'a case status cannot go back to a lower code (D-06)',
    request: async (req, proxy) => {
      const status = bodyOf(req)?.status;
      if (!is(req, 'PATCH', /\/cases\/[^/]+$/) || typeof status !== 'number') return req;
      const now = jsonOf(await readOf(proxy, req))?.data?.status;
      return typeof now === 'number' && status < now ? ownError(400, 'value_error', `body.status: a case cannot go back from status ${now} to ${status}`) : req;
    } },
  { name: 'case-read-only-ignored', area: 'resources', description: 'read-only members of a case in an update are dropped silently, not refused (D-36)',
    request: async (req, proxy) => {
      if (!is(req, 'PATCH', /\/cases\/[^/]+$/)) return req;
      const kept = mapMembers(req, (k, v) => (CASE_READ_ONLY.includes(k) ? undefined : v));
      // Nothing left to write: the case as it is.
      return Object.keys(bodyOf(kept) ?? {}).length === 0 && Object.keys(bodyOf(req) ?? {}).length > 0 ? readOf(proxy, req) : kept;
    } },
  { name: 'contract-name-writable', area: 'resources', description: "a contract's name can be changed with its externalReference (D-11)",
    request: async (req, proxy) => {
      const body = bodyOf(req);
      if (!is(req, 'PATCH', /\/contracts\/[^/]+$/) || typeof body?.name !== 'string') return req;
      const { name, ...rest } = body;
      const res = await proxy.forward(withBody(req, rest));
      return res.status === 200 ? withJson(res, { ...jsonOf(res), data: { ...jsonOf(res).data, name } }) : res;
    } },
  { name: 'patch-answers-previous-state', area: 'resources', description: 'an update answers the case as it was read before the write, not as stored (D-88)',
    request: async (req, proxy) => {
      if (!is(req, 'PATCH', /\/cases\/[^/]+$/)) return req;
      const before = await readOf(proxy, req);
      const res = await proxy.forward(req);
      return res.status === 200 && before.status === 200 ? { ...res, body: before.body } : res;
    } },
  { name: 'external-reference-shared', area: 'resources', description: "one externalReference per contract, shared by every account that controls it (D-75)",
    response: editJson((json, _res, req) => {
      if (req.method === 'PATCH' && 'externalReference' in (bodyOf(req) ?? {})) sharedReferences.set(json.data.id, bodyOf(req).externalReference);
      forEachItem(json, (c) => { if (c?.id && sharedReferences.has(c.id)) c.externalReference = sharedReferences.get(c.id); });
    }, (res, req) => res.status === 200 && /\/contracts(\/[^/]+)?$/.test(pathOf(req))) },
  { name: 'move-keeps-contacts', area: 'resources', description: "a case moved to another customer's contract keeps contacts of the first customer (D-47)",
    response: async (res, req, proxy) => {
      const errors = jsonOf(res)?.errors ?? [];
      if (res.status !== 400 || !is(req, 'PATCH', /\/cases\/[^/]+$/) || !errors.length || !errors.every((e: any) => e.code === 'contact_not_allowed')) return res;
      const now = await readOf(proxy, req);
      return withJson(now, { ...jsonOf(now), data: { ...jsonOf(now).data, contract: bodyOf(req).contract } });
    } },

  // webhooks
  { name: 'unknown-event-type-accepted', area: 'webhooks', description: 'an exact event type that does not exist is dropped from a subscription, not refused (D-16, D-80)',
    request: (req) => (/\/webhooks(\/[^/]+)?$/.test(pathOf(req)) ? mapMembers(req, (k, v) => (k === 'eventTypes' && Array.isArray(v) ? v.filter((t) => typeof t !== 'string' || t.includes('*') || EVENT_TYPES.includes(t)) : v)) : req) },
  { name: 'reserved-header-accepted', area: 'webhooks', description: 'a webhook authorization header with a reserved name is accepted (D-76)',
    request: (req) => {
      if (!/\/webhooks(\/[^/]+)?$/.test(pathOf(req))) return req;
      const rename = (s: any) => (s?.type === 'header' && RESERVED_HEADERS.includes(String(s.name).toLowerCase()) ? { ...s, name: `X-Was-${s.name}` } : s);
      return mapMembers(req, (k, v) => (k !== 'authorization' ? v : Array.isArray(v) ? v.map(rename) : rename(v)));
    } },
  { name: 'retry-at-once', area: 'webhooks', description: 'a delivery answered 503 is retried at once, ignoring its Retry-After (D-17)',
    deliveryAnswer: async (res, resend) => (res.status === 503 ? resend() : res) },
  { name: 'event-meta-untriggered', area: 'webhooks', description: 'deliveries of triggered events say meta.triggered false (D-18)',
    response: rememberSigningSecret,
    delivery: (d) => rebuilt(d, (payload) => { payload.meta.triggered = false; }) },
  { name: 'event-log-lags', area: 'webhooks', description: 'the event log lists an event only a minute after it happened (D-19)',
    response: editJson((json) => {
      json.data = json.data.filter((e: any) => Date.now() - Date.parse(e.createdAt) > 60_000);
      json.meta.page.count = json.data.length;
    }, (res, req) => req.method === 'GET' && /\/events$/.test(pathOf(req)) && isList(jsonOf(res))) },
  { name: 'trigger-answers-empty', area: 'webhooks', description: 'a trigger answers 202 with no body, not the recorded event (D-20)',
    response: (res, req) => (req.method === 'POST' && /\/events\/case\.[a-z.]+$/.test(pathOf(req)) && res.status === 202 ? { status: 202, headers: { 'x-careapi-env': res.headers['x-careapi-env'] }, body: Buffer.alloc(0) } : res) },
  { name: 'own-actions-fire', area: 'webhooks', description: "an account's own update of a case fires case.updated to its own subscriptions (D-41)",
    response: async (res, req, proxy) => {
      if (!is(req, 'PATCH', /\/cases\/[^/]+$/) || res.status !== 200) return res;
      const caseId = pathOf(req).split('/').pop();
      await proxy.forward({ ...req, method: 'POST', url: pathOf(req).replace(/\/cases\/[^/]+$/, '/events/case.updated'), body: Buffer.from(JSON.stringify({ caseId, updated: Object.keys(bodyOf(req) ?? {}) })) });
      return res;
    } },
];
