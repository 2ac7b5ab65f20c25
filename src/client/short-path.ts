// Requests without a body on a short path: openapi-fetch's own URL and header helpers, then the same answer handling
// as its request function (openapi-fetch 0.17.0, coreFetch). That general function (middleware, per-call
// serializers, bodies) costs 20 to 40 µs per request in a loop that waits for a local server on a busy 2-core
// machine, more than our whole 10 % budget (bench/client-overhead.ts); anything this path does not cover goes there.
import { createFinalURL, defaultPathSerializer, mergeHeaders } from 'openapi-fetch';
import { PlainRequest } from './plain-request.ts';

/** Init keys the short path handles exactly like openapi-fetch; any other key (`body`, `fetch`, `baseUrl`, ...) takes the general one. */
const SHORT_PATH_KEYS = new Set(['params', 'headers', 'parseAs', 'signal']);

type ParseAs = 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';

export interface ShortInit {
  params?: { query?: Record<string, unknown>; path?: Record<string, unknown>; header?: Record<string, unknown> };
  headers?: HeadersInit | Record<string, unknown>;
  parseAs?: ParseAs;
  signal?: AbortSignal | null;
}

export interface ShortPathContext {
  baseUrl: string;
  querySerializer: (query: Record<string, unknown>) => string;
  headers: Record<string, string> | undefined;
  send: (request: PlainRequest) => Promise<Response>;
}

export type Answer = { data?: unknown; error?: unknown; response: Response };

export function takesShortPath(init: unknown): init is ShortInit | undefined {
  if (init === undefined || init === null) return true;
  if (typeof init !== 'object') return false;
  for (const key in init) if (!SHORT_PATH_KEYS.has(key)) return false;
  return true;
}

/** What openapi-fetch's `client[method](path, init)` answers for an init without a body, without its general path. */
export async function sendShort(method: string, path: string, init: ShortInit | undefined, context: ShortPathContext): Promise<Answer> {
  const params = init?.params ?? {};
  const callHeaders = init?.headers;
  const requestInit: RequestInit = {
    redirect: 'follow',
    method,
    body: undefined,
    // Same merge order as openapi-fetch: client headers, call headers, header parameters (null removes a header).
    // Nothing to merge (the usual case): a plain record, which fetch copies for less than a Headers object.
    headers:
      context.headers === undefined && callHeaders === undefined && params.header === undefined
        ? {}
        : mergeHeaders(context.headers, callHeaders as never, params.header as never),
  };
  if (init && 'signal' in init) requestInit.signal = init.signal;
  const url = createFinalURL(path, { baseUrl: context.baseUrl, params, querySerializer: context.querySerializer, pathSerializer: defaultPathSerializer });
  const response = await context.send(new PlainRequest(url, requestInit));

  // From here on, openapi-fetch's handling of the answer, step for step.
  const contentLength = response.headers.get('Content-Length');
  if (response.status === 204 || method === 'HEAD' || (contentLength === '0' && !response.headers.get('Transfer-Encoding')?.includes('chunked'))) {
    return response.ok ? { data: undefined, response } : { error: undefined, response };
  }
  if (response.ok) {
    const parseAs = init?.parseAs ?? 'json';
    if (parseAs === 'stream') return { data: response.body, response };
    if (parseAs === 'json' && !contentLength) {
      const raw = await response.text();
      return { data: raw ? JSON.parse(raw) : undefined, response };
    }
    return { data: await response[parseAs](), response };
  }
  let error: unknown = await response.text();
  try {
    error = JSON.parse(error as string);
  } catch {
    // not JSON: the text as it came
  }
  return { error, response };
}
