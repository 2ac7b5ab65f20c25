// What the faults are built from: reading and rewriting requests and answers as a broken deployment would.
import { jsonOf, withJson, type ProxyRequest, type ProxyResponse } from './proxy.ts';

export const isList = (json: any) => Array.isArray(json?.data) && json?.meta?.page;
export const queryOf = (req: ProxyRequest) => new URLSearchParams(req.url.split('?')[1] ?? '');
export const pathOf = (req: ProxyRequest) => req.url.split('?')[0];
export const rawQuery = (req: ProxyRequest) => req.url.split('?')[1] ?? '';

/** Rewrite the query string's raw `key=value` parts (kept raw: the grammar's escapes must survive). */
export function mapQuery(req: ProxyRequest, keep: (part: string) => string | null): ProxyRequest {
  const parts = rawQuery(req).split('&').filter(Boolean).map(keep).filter((p): p is string => p !== null);
  return { ...req, url: pathOf(req) + (parts.length ? `?${parts.join('&')}` : '') };
}

export function editJson(edit: (json: any, res: ProxyResponse, req: ProxyRequest) => any, when: (res: ProxyResponse, req: ProxyRequest) => boolean = () => true) {
  return (res: ProxyResponse, req: ProxyRequest): ProxyResponse => {
    const json = jsonOf(res);
    if (json === undefined || !when(res, req)) return res;
    return withJson(res, edit(json, res, req) ?? json);
  };
}

export function errorResponse(res: ProxyResponse, status: number, title: string, detail: string): ProxyResponse {
  return withJson({ ...res, status, headers: { ...res.headers, 'content-type': 'application/json' } }, {
    meta: {}, errors: [{ status: String(status), title, detail, code: '' }],
  });
}

/** An error envelope the proxy answers itself (a fault that refuses or misroutes before the target sees it). */
export function ownError(status: number, code: string, detail: string, headers: Record<string, string> = {}): ProxyResponse {
  return { status, headers: { 'content-type': 'application/json', 'x-careapi-env': 'Sandbox', ...headers }, body: Buffer.from(JSON.stringify({ meta: {}, errors: [{ status: String(status), title: 'Error', detail, code }] })) };
}

export const forEachItem = (json: any, f: (item: any) => void) => {
  if (Array.isArray(json?.data)) json.data.forEach(f);
  else if (json?.data && typeof json.data === 'object') f(json.data);
};

/** The JSON body of a request, or undefined when it has none. */
export function bodyOf(req: ProxyRequest): any {
  if (!/json/.test(req.headers['content-type'] ?? '') || req.body.length === 0) return undefined;
  try {
    return JSON.parse(req.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The request with `json` as its body. */
export const withBody = (req: ProxyRequest, json: unknown): ProxyRequest => ({ ...req, body: Buffer.from(JSON.stringify(json)) });

/** Whether the request is `method` on a path that ends as `tail` matches (e.g. /\/cases\/[^/]+$/). */
export const is = (req: ProxyRequest, method: string, tail: RegExp) => req.method === method && tail.test(pathOf(req));
