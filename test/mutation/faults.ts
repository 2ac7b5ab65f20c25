// The faults the proxy can inject: each a small, realistic way for a deployment to break the contract, and the
// suite area that must notice it. Those of decisions with no fault of their own before issue 46 are in
// decision-faults.ts.
import { DECISION_FAULTS } from './decision-faults.ts';
import { editJson, errorResponse, forEachItem, isList, mapQuery, ownError, pathOf, queryOf, rawQuery } from './fault-kit.ts';
import { jsonOf, withJson, type Fault, type FaultProxy, type ProxyRequest, type ProxyResponse } from './proxy.ts';

/**
 * A server that reads `filter[field][operator]` with its own (wrong) test: the proxy asks the target for the list
 * without that filter and keeps the items the wrong test accepts, so the fault acts on whatever data the list holds.
 */
function misread(operator: string, wrong: (text: string, value: string) => boolean) {
  const pattern = new RegExp(`^filter\\[([^\\]]+)\\]\\[${operator}\\]=(.*)$`);
  return async (res: ProxyResponse, req: ProxyRequest, proxy: FaultProxy): Promise<ProxyResponse> => {
    const part = rawQuery(req).split('&').find((p) => pattern.test(p));
    if (!part || res.status !== 200) return res;
    const [, field, raw] = pattern.exec(part)!;
    const value = decodeURIComponent(raw.replace(/\+/g, ' '));
    // The whole list without this filter (every page), then the wrong test, then the page the request asked for.
    const wider = mapQuery(req, (p) => (p === part || p.startsWith('page[') ? null : p));
    const items: any[] = [];
    let first: any;
    for (let n = 1; ; n++) {
      const page = jsonOf(await proxy.forward({ ...wider, url: `${wider.url}${wider.url.includes('?') ? '&' : '?'}page[size]=200&page[number]=${n}` }));
      if (!isList(page)) return res;
      first ??= page;
      items.push(...page.data);
      if (page.data.length < 200) break;
    }
    const test = (v: unknown) => (Array.isArray(v) ? v.some((e) => typeof e === 'string' && wrong(e, value) && e.length === value.length) : typeof v === 'string' && wrong(v, value));
    const kept = items.filter((i) => test(i[field]));
    const q = queryOf(req);
    const size = Number(q.get('page[size]') ?? 50);
    const number = Number(q.get('page[number]') ?? 1);
    const data = kept.slice((number - 1) * size, number * size);
    return withJson(res, { ...first, data, meta: { ...first.meta, page: { number, size, count: data.length, totalCount: kept.length } } });
  };
}

const likeRegex = (pattern: string, flags: string, sql = false) => new RegExp(`^${[...pattern].map((c) => (c === '*' || (sql && c === '%') ? '[^]*' : c === '?' || (sql && c === '_') ? '[^]' : c.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'))).join('')}$`, flags);
const NAIVE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

/** Secrets the faults that leak them have seen go by (webhook authorization, API key secrets). */
const seenSecrets: string[] = [];

/** Drop the keys __proto__, constructor and prototype below the top level of a JSON value (a top-level-only check). */
function stripNestedPrototypeKeys(value: any, depth = 0): void {
  if (!value || typeof value !== 'object') return;
  for (const key of Object.keys(value)) {
    if (depth > 0 && !Array.isArray(value) && ['__proto__', 'constructor', 'prototype'].includes(key)) delete value[key];
    else stripNestedPrototypeKeys(value[key], depth + 1);
  }
}

/** Cases as a list first answered them: a list that is not kept current by the writes (the risk D-84 names). */
const firstListed = new Map<string, unknown>();

export const FAULTS: Fault[] = [
  // operations: envelope, headers, shapes
  { name: 'env-header-missing', area: 'operations', description: 'no X-CareAPI-Env on any answer',
    response: (res) => { const h = { ...res.headers }; delete h['x-careapi-env']; return { ...res, headers: h }; } },
  { name: 'env-header-wrong', area: 'operations', description: 'X-CareAPI-Env says Production in sandbox',
    response: (res) => ({ ...res, headers: { ...res.headers, 'x-careapi-env': 'Production' } }) },
  { name: 'env-header-missing-on-errors', area: 'operations', description: 'X-CareAPI-Env only on success answers',
    response: (res) => { if (res.status < 400) return res; const h = { ...res.headers }; delete h['x-careapi-env']; return { ...res, headers: h }; } },
  { name: 'error-envelope-broken', area: 'operations', description: 'errors answered as {"error": "..."} without meta/errors',
    response: (res) => (res.status >= 400 && jsonOf(res) ? withJson(res, { error: jsonOf(res).errors?.[0]?.detail ?? 'error' }) : res) },
  { name: 'wrong-content-type', area: 'operations', description: 'JSON answered as text/plain',
    response: (res) => (/json/.test(res.headers['content-type'] ?? '') ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain; charset=utf-8' } } : res) },
  { name: 'missing-field', area: 'operations', description: 'resources lose their createdAt',
    response: editJson((json) => forEachItem(json, (i) => { if (i && typeof i === 'object') delete i.createdAt; })) },
  { name: 'wrong-field-type', area: 'operations', description: 'case priority answered as a string',
    response: editJson((json) => forEachItem(json, (i) => { if (typeof i?.priority === 'number') i.priority = String(i.priority); })) },
  { name: 'undeclared-status', area: 'operations', description: 'reads answer 203 instead of 200',
    response: (res, req) => (req.method === 'GET' && res.status === 200 ? { ...res, status: 203 } : res) },
  { name: 'wrong-method-as-404', area: 'operations', description: 'a wrong method on a known path is 404, not 405',
    response: (res) => (res.status === 405 ? errorResponse(res, 404, 'Not Found', 'path: not found') : res) },

  // auth
  { name: 'auth-ignored', area: 'auth', description: 'requests without a valid token are served anyway',
    request: (req, proxy) => {
      const ok = req.headers.authorization?.startsWith('Bearer ey') && req.headers.authorization.split('.').length === 3;
      return ok || !proxy.lastGoodAuthorization || req.url.includes('/oauth/') ? req : { ...req, headers: { ...req.headers, authorization: proxy.lastGoodAuthorization } };
    } },
  { name: 'revoked-key-accepted', area: 'auth', description: 'the token exchange of a refused (revoked) key succeeds',
    response: (res, req, proxy) => (req.url.endsWith('/oauth/token') && res.status >= 400 && proxy.lastGoodAuthorization
      ? withJson({ status: 200, headers: { 'content-type': 'application/json' }, body: res.body }, { access_token: proxy.lastGoodAuthorization.slice('Bearer '.length), token_type: 'Bearer', expires_in: 3600 }) : res) },
  { name: '401-without-envelope', area: 'auth', description: '401 answered with an empty body',
    response: (res) => (res.status === 401 ? { ...res, headers: { ...res.headers, 'content-type': 'application/json' }, body: Buffer.from('{}') } : res) },

  // pagination
  { name: 'total-count-off-by-one', area: 'pagination', description: 'meta.page.totalCount one too high',
    response: editJson((json) => { json.meta.page.totalCount += 1; }, (res) => isList(jsonOf(res))) },
  { name: 'count-wrong', area: 'pagination', description: 'meta.page.count is the page size, not the items in the page',
    response: editJson((json) => { json.meta.page.count = json.meta.page.size; }, (res) => isList(jsonOf(res))) },
  { name: 'default-page-size-20', area: 'pagination', description: 'the default page size is 20',
    response: editJson((json, _res, req) => {
      if (queryOf(req).has('page[size]')) return;
      json.data = json.data.slice(0, 20);
      json.meta.page.size = 20;
      json.meta.page.count = json.data.length;
    }, (res) => isList(jsonOf(res))) },
  { name: 'page-past-end-not-empty', area: 'pagination', description: 'a page past the end repeats the first page',
    response: async (res, req, proxy) => {
      const json = jsonOf(res);
      if (!isList(json) || json.data.length > 0 || json.meta.page.totalCount === 0) return res;
      const first = jsonOf(await proxy.forward(mapQuery(req, (p) => (p.startsWith('page[number]=') ? 'page[number]=1' : p))));
      json.data = first.data;
      json.meta.page.count = first.data.length;
      return withJson(res, json);
    } },
  { name: 'max-page-size-clamped', area: 'pagination', description: 'page[size] above 200 is clamped instead of refused',
    request: (req) => mapQuery(req, (p) => (/^page\[size\]=(\d+)$/.test(p) && Number(p.split('=')[1]) > 200 ? 'page[size]=200' : p)) },

  // filters
  { name: 'filter-operator-ignored', area: 'filters', description: 'the ne operator is ignored',
    request: (req) => mapQuery(req, (p) => (/^filter\[[^\]]+\]\[ne\]=/.test(p) ? null : p)) },
  { name: 'filter-lt-as-le', area: 'filters', description: 'lt includes the bound',
    request: (req) => mapQuery(req, (p) => p.replace(/^(filter\[[^\]]+\])\[lt\]=/, '$1[le]=')) },
  { name: 'filter-only-first-applies', area: 'filters', description: 'of several filters only the first applies',
    request: (req) => { let seen = false; return mapQuery(req, (p) => (p.startsWith('filter[') ? (seen ? null : ((seen = true), p)) : p)); } },
  { name: 'filter-invalid-accepted', area: 'filters', description: 'an invalid filter is ignored instead of refused',
    response: async (res, req, proxy) => (res.status === 400 && queryOf(req).toString().includes('filter')
      ? proxy.forward(mapQuery(req, (p) => (p.startsWith('filter[') ? null : p))) : res) },
  { name: 'sameas-self-refused', area: 'filters', description: 'sameas and notSameas refuse the field itself as operand, which the list operand enum lists (D-105)',
    response: (res, req) => (/(?:^|&)filter\[([^\]]+)\]\[(?:sameas|notSameas)\]=\1(?:&|$)/.test(rawQuery(req))
      ? errorResponse(res, 400, 'Bad Request', 'query.filter: a field cannot be compared with itself') : res) },

  // filters: faults a data-dependent suite lets pass (issue 11), caught only by data built to tell operators apart
  { name: 'startswith-as-contains', area: 'filters', description: 'startswith (and notStartswith) run as contains',
    request: (req) => mapQuery(req, (p) => p.replace(/^(filter\[[^\]]+\])\[(s|notS)tartswith\]=/, (_, f, n) => `${f}[${n === 's' ? 'contains' : 'notContains'}]=`)) },
  { name: 'endswith-as-contains', area: 'filters', description: 'endswith run as contains',
    request: (req) => mapQuery(req, (p) => p.replace(/^(filter\[[^\]]+\])\[endswith\]=/, '$1[contains]=')) },
  { name: 'text-ops-ignore-case', area: 'filters', description: 'contains compares without case',
    response: misread('contains', (text, value) => text.toLowerCase().includes(value.toLowerCase())) },
  { name: 'like-star-literal', area: 'filters', description: 'like takes * and ? literally (no wildcards)',
    response: misread('like', (text, value) => text === value) },
  { name: 'like-sql-wildcards', area: 'filters', description: 'like also reads SQL % and _ as wildcards',
    response: misread('like', (text, value) => likeRegex(value, 'u', true).test(text)) },
  { name: 'like-ignore-case', area: 'filters', description: 'like compares without case',
    response: misread('like', (text, value) => likeRegex(value, 'iu').test(text)) },
  { name: 'match-metacharacters-literal', area: 'filters', description: 'match reads its pattern as plain text',
    response: misread('match', (text, value) => text.includes(value)) },
  { name: 'filter-gt-as-ge', area: 'filters', description: 'gt includes the bound',
    request: (req) => mapQuery(req, (p) => p.replace(/^(filter\[[^\]]+\])\[gt\]=/, '$1[ge]=')) },
  { name: 'between-exclusive', area: 'filters', description: 'between leaves out its ends',
    request: (req) => mapQuery(req, (p) => {
      const m = /^(filter\[[^\]]+\])\[between\]=([^,]*),(.*)$/.exec(p);
      return m ? `${m[1]}[gt]=${m[2]}&${m[1]}[lt]=${m[3]}` : p;
    }) },
  { name: 'null-as-not-exists', area: 'filters', description: 'null answers only fields that are absent (none)',
    request: (req) => mapQuery(req, (p) => p.replace(/^(filter\[[^\]]+\])\[null\](=?)$/, '$1[notExists]$2')) },
  { name: 'empty-as-null', area: 'filters', description: 'empty does not count the empty string and the empty list',
    request: (req) => mapQuery(req, (p) => p.replace(/^(filter\[[^\]]+\])\[empty\](=?)$/, '$1[null]$2')) },

  // coercion: a datetime without a zone read as the server's local time (UTC+2) instead of UTC
  { name: 'naive-datetime-as-local', area: 'coercion', description: 'a datetime without zone read as UTC+02:00, in queries and bodies',
    request: (req) => {
      const q = mapQuery(req, (p) => {
        const eq = p.indexOf('=');
        if (!p.startsWith('filter[') || eq < 0) return p;
        const values = p.slice(eq + 1).split(',').map((v) => (NAIVE.test(decodeURIComponent(v)) ? `${v}%2B02:00` : v));
        return `${p.slice(0, eq + 1)}${values.join(',')}`;
      });
      if (!/json/.test(req.headers['content-type'] ?? '') || req.body.length === 0) return q;
      const body = req.body.toString('utf8').replace(/"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)"/g, '"$1+02:00"');
      return { ...q, body: Buffer.from(body) };
    } },

  // sorting
  { name: 'sort-reversed', area: 'sorting', description: 'sorted lists come in reverse order',
    response: editJson((json) => { json.data.reverse(); }, (res, req) => isList(jsonOf(res)) && queryOf(req).has('sort')) },
  { name: 'sort-invalid-accepted', area: 'sorting', description: 'an unknown sort field is ignored instead of refused',
    response: async (res, req, proxy) => (res.status === 400 && queryOf(req).has('sort') ? proxy.forward(mapQuery(req, (p) => (p.startsWith('sort=') ? null : p))) : res) },

  // coercion
  { name: 'boolean-spellings-refused', area: 'coercion', description: 'only true/false are read as booleans in queries',
    response: (res, req) => (/=(?:on|yes|y|t|off|no|n|f|True|False)(?:&|$)/.test(rawQuery(req)) ? errorResponse(res, 400, 'Bad Request', 'query.filter: Input should be a valid boolean') : res) },
  { name: 'datetime-offset-ignored', area: 'coercion', description: 'a UTC offset in a body datetime is dropped',
    request: (req) => (req.method === 'PATCH' && /\/apikeys\//.test(req.url)
      ? { ...req, body: Buffer.from(req.body.toString('utf8').replace(/([0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)[+-][0-9]{2}:?[0-9]{2}"/g, '$1"')) } : req) },

  // validation
  { name: 'errors-merged', area: 'validation', description: 'several problems merged into one error object',
    response: editJson((json) => { json.errors = [{ ...json.errors[0], detail: json.errors.map((e: any) => e.detail).join('; ') }]; }, (res) => res.status === 400 && (jsonOf(res)?.errors?.length ?? 0) > 1) },
  { name: '500-on-bad-input', area: 'validation', description: 'bad input crashes the server',
    response: (res) => (res.status === 400 ? errorResponse(res, 500, 'Internal Server Error', 'server: unexpected failure') : res) },
  { name: 'required-detail-reworded', area: 'validation', description: '"Field required" reworded',
    response: editJson((json) => { for (const e of json.errors) e.detail = e.detail.replace(/^body\.(\w+): Field required$/, '$1 is required'); }, (res) => res.status === 400) },
  { name: 'contact-rules-ignored', area: 'validation', description: 'contacts of the wrong organisation are accepted',
    request: (req) => (req.method === 'POST' && /\/cases$/.test(pathOf(req))
      ? { ...req, body: Buffer.from(req.body.toString('utf8').replace(/"contact":"[^"]*@partner\.example",?/g, '').replace(/,"watchList":\["[^"]*@partner\.example"\]/g, '').replace(/,}/g, '}')) } : req) },

  // scoping
  { name: 'forbidden-as-404', area: 'scoping', description: '403 answered as 404',
    response: (res) => (res.status === 403 ? errorResponse(res, 404, 'Not Found', 'path: not found') : res) },
  { name: 'forbidden-as-200', area: 'scoping', description: '403 answered as 200 with empty data',
    response: (res) => (res.status === 403 ? withJson({ ...res, status: 200 }, { meta: {}, data: [] }) : res) },
  { name: 'foreign-item-listed', area: 'scoping', description: 'case lists leak a case of another contract',
    response: editJson((json) => { if (json.data[0]) json.data.push({ ...json.data[0], id: 'CS9999999', contract: 'CT0000104' }); }, (res, req) => isList(jsonOf(res)) && /\/cases$/.test(pathOf(req))) },

  // resources
  { name: 'corrupted-download', area: 'resources', description: 'downloads lose their last byte',
    response: (res, req) => (/\/download$/.test(pathOf(req)) && res.status === 200 ? { ...res, body: res.body.subarray(0, Math.max(0, res.body.length - 1)) } : res) },
  { name: 'location-missing', area: 'resources', description: 'no Location header on 201',
    response: (res) => { if (res.status !== 201) return res; const h = { ...res.headers }; delete h.location; return { ...res, headers: h }; } },
  { name: 'revoke-is-hard-delete', area: 'resources', description: 'a revoked key is gone (404) instead of kept with revokedAt',
    response: (res, req) => (req.method === 'GET' && /\/apikeys\/[^/]+$/.test(pathOf(req)) && jsonOf(res)?.data?.revokedAt ? errorResponse(res, 404, 'Not Found', 'path.keyId: not found') : res) },

  // decisions a client can observe (issue 11)
  { name: 'webhook-secrets-echoed', area: 'resources', description: 'webhook reads answer the authorization secrets given at creation',
    request: (req) => {
      if (/\/webhooks(\/[^/?]+)?(\?|$)/.test(pathOf(req)) && req.body.length) {
        try {
          const auth = JSON.parse(req.body.toString('utf8'))?.authorization;
          for (const s of Array.isArray(auth) ? auth : auth ? [auth] : []) seenSecrets.push(s.password ?? s.token ?? s.value);
        } catch { /* not JSON: nothing to remember */ }
      }
      return req;
    },
    response: (res, req) => (req.method === 'GET' && /\/webhooks/.test(pathOf(req)) && seenSecrets.length
      ? { ...res, body: Buffer.from(res.body.toString('utf8').replace(/"\*{8}"/g, () => JSON.stringify(seenSecrets[seenSecrets.length - 1]))) } : res) },
  { name: 'apikey-secret-echoed', area: 'resources', description: 'API key reads answer the secret in place of the prefix',
    response: (res, req) => {
      const json = jsonOf(res);
      if (req.method === 'POST' && /\/apikeys$/.test(pathOf(req)) && json?.data?.secret) seenSecrets.push(json.data.secret);
      if (req.method !== 'GET' || !/\/apikeys/.test(pathOf(req)) || !json || !seenSecrets.length) return res;
      forEachItem(json, (i) => { if (i?.prefix) i.prefix = seenSecrets[seenSecrets.length - 1]; });
      return withJson(res, json);
    } },
  { name: 'allow-missing', area: 'operations', description: '405 answered without Allow',
    response: (res) => { if (res.status !== 405) return res; const h = { ...res.headers }; delete h.allow; return { ...res, headers: h }; } },
  { name: 'allow-incomplete', area: 'operations', description: 'Allow on 405 names only GET',
    response: (res) => (res.status === 405 ? { ...res, headers: { ...res.headers, allow: 'GET' } } : res) },
  { name: 'gone-ignored', area: 'webhooks', description: 'a delivery answered 410 leaves the subscription enabled',
    deliveryAnswer: (res) => (res.status === 410 ? { ...res, status: 200 } : res) },

  // webhooks (on the delivery path)
  { name: 'delivery-without-authorization', area: 'webhooks', description: 'deliveries lose their authorization headers',
    delivery: (d) => { const h = { ...d.headers }; delete h.authorization; for (const k of Object.keys(h)) if (k.startsWith('x-conformance')) delete h[k]; return { ...d, headers: h }; } },
  { name: 'delivery-bad-signature', area: 'webhooks', description: 'deliveries signed with another secret',
    delivery: (d) => ({ ...d, headers: { ...d.headers, 'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' } }) },
  { name: 'delivery-payload-without-updated', area: 'webhooks', description: 'case.updated payloads lack meta.updated',
    delivery: (d) => ({ ...d, body: Buffer.from(d.body.toString('utf8').replace(/,"updated":\[[^\]]*\]/, '')) }) },

  // issue 46: promises of the decisions that no check sent a request for, or checked too loosely
  { name: 'depth-counts-arrays-only', area: 'validation', description: 'objects nested 3000 deep get a type error, not too_deep (only arrays count toward the depth)',
    request: (req) => (req.body.includes('{"a":{"a":{"a":{"a":{"a":') && req.body.length > 10_000 ? ownError(400, 'string_type', 'body.description: Input should be a valid string') : req) },
  { name: 'prototype-keys-top-level-only', area: 'validation', description: 'a __proto__ key below the top level of a body is not refused',
    request: (req) => {
      if (!/json/.test(req.headers['content-type'] ?? '') || !/"(__proto__|constructor|prototype)"/.test(req.body.toString('utf8'))) return req;
      try {
        const json = JSON.parse(req.body.toString('utf8'));
        stripNestedPrototypeKeys(json);
        return { ...req, body: Buffer.from(JSON.stringify(json)) };
      } catch {
        return req;
      }
    } },
  { name: 'datetime-answered-as-sent', area: 'coercion', description: 'a PATCH answers a datetime as sent (…05Z), not in its stored form (…05.000Z, D-39)',
    response: editJson((json, _res, req) => {
      const sent = (() => { try { return JSON.parse(req.body.toString('utf8'))?.expiresAt; } catch { return undefined; } })();
      if (typeof sent === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(sent) && Date.parse(json.data?.expiresAt) === Date.parse(sent)) json.data.expiresAt = sent;
    }, (res, req) => req.method === 'PATCH' && res.status === 200) },
  { name: 'upload-location-missing', area: 'resources', description: 'an attachment upload answers 201 without Location (D-74)',
    response: (res, req) => { if (res.status !== 201 || !/\/attachments$/.test(pathOf(req))) return res; const h = { ...res.headers }; delete h.location; return { ...res, headers: h }; } },
  { name: 'download-wildcard-type', area: 'resources', description: 'downloads are served as Content-Type */*',
    response: (res, req) => (/\/download$/.test(pathOf(req)) && res.status === 200 ? { ...res, headers: { ...res.headers, 'content-type': '*/*' } } : res) },
  { name: 'download-type-not-the-records', area: 'resources', description: 'downloads of anything but an image are served as application/octet-stream, not the type of the record',
    response: (res, req) => (/\/download$/.test(pathOf(req)) && res.status === 200 && !/^image\//.test(res.headers['content-type'] ?? '') ? { ...res, headers: { ...res.headers, 'content-type': 'application/octet-stream' } } : res) },
  { name: 'list-keeps-old-case', area: 'resources', description: 'lists of cases keep a case as first listed after it was updated, while getCase shows the new one (D-84)',
    response: editJson((json) => {
      json.data = json.data.map((item: any) => (firstListed.has(item.id) ? firstListed.get(item.id) : (firstListed.set(item.id, item), item)));
    }, (res, req) => req.method === 'GET' && /\/cases$/.test(pathOf(req)) && res.status === 200) },
  { name: 'upload-wildcard-type-stored', area: 'resources', description: 'an upload part typed */* or image/* is stored with that wildcard type (D-93)',
    response: editJson((json, _res, req) => {
      const type = /name="file"[^\r]*\r\nContent-Type: ([^\r]+)\r\n/.exec(req.body.toString('latin1'))?.[1];
      if (type && type.includes('*') && json.data) json.data.contentType = type;
    }, (res, req) => res.status === 201 && /\/attachments$/.test(pathOf(req))) },
  { name: 'nameless-file-part-refused', area: 'resources', description: 'a file part without filename= is not taken as the file (D-66)',
    request: (req) => (/\/attachments$/.test(pathOf(req)) && /name="file"\r\n/.test(req.body.toString('latin1')) ? ownError(400, 'missing', 'body.file: Field required') : req) },
  { name: 'upload-limit-exclusive', area: 'resources', description: 'an upload of exactly 10 MiB is refused 413 (D-10, D-93)',
    request: (req) => (/\/attachments$/.test(pathOf(req)) && req.body.length >= 10_485_760 ? ownError(413, 'payload_too_large', 'body.file: larger than 10485760 bytes') : req) },
  { name: 'webhook-userinfo-accepted', area: 'resources', description: 'a webhook url with user information is accepted (D-16)',
    request: (req) => {
      if (!/\/webhooks(\/[^/?]+)?$/.test(pathOf(req))) return req;
      const text = req.body.toString('utf8');
      return /"url":"[a-z]+:\/\/[^"/]*@/.test(text) ? { ...req, body: Buffer.from(text.replace(/("url":"[a-z]+:\/\/)[^"/@]*@/, '$1')) } : req;
    } },
  { name: 'masked-secret-replaces', area: 'webhooks', description: 'a webhook secret sent back as ******** replaces the stored one (D-107)',
    request: (req) => (req.method === 'PATCH' && /\/webhooks\//.test(pathOf(req)) && req.body.includes('"********"') ? { ...req, body: Buffer.from(req.body.toString('utf8').split('"********"').join('"x********"')) } : req) },
  { name: 'token-repeated-parameter-accepted', area: 'auth', description: 'the token endpoint reads a parameter given twice (the first wins) instead of refusing it (D-89)',
    request: (req) => {
      if (!req.url.includes('/oauth/token') || req.method !== 'POST') return req;
      const seen = new Set<string>();
      const parts = req.body.toString('utf8').split('&').filter((p) => { const k = p.split('=')[0]; if (seen.has(k)) return false; seen.add(k); return true; });
      return { ...req, body: Buffer.from(parts.join('&')) };
    } },
  { name: 'trigger-get-reads-event', area: 'operations', description: 'GET on a trigger path reads an event of that id (404), not 405 (D-89)',
    request: (req) => (req.method === 'GET' && /\/events\/case\.[a-z.]+$/.test(pathOf(req)) ? ownError(404, 'not_found', `path.eventId: event ${pathOf(req).split('/').pop()} not found`) : req) },
  { name: 'no-host-served', area: 'operations', description: 'an HTTP/1.1 request without Host is served as if it had one (D-89)',
    request: (req) => (req.headers.host === undefined ? { ...req, headers: { ...req.headers, host: 'served.invalid' } } : req) },
  ...DECISION_FAULTS,
];
