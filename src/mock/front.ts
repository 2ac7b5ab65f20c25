// The front before each Prism (D-42): answers itself what Prism cannot take or the service answers otherwise
// (malformed escapes, HEAD, unknown routes and methods, bodies that are not what they claim, parser refusals),
// checks the list grammar Prism ignores, shapes list pages (src/mock/pages.ts), and makes every answer look like the
// service's: error envelope, one error per problem, X-CareAPI-Env always set. While its Prism is (re)starting it
// answers 503 with Retry-After.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseListQuery } from '../grammar/index.ts';
import type { CareSpec, OperationSpec } from '../spec/index.ts';
import { envelope, errorObject, fromForeignBody, fromGrammarErrors, fromViolations, isEnvelope, serviceStatus, type ErrorEnvelope } from './envelope.ts';
import { checkHostLines, checkPath, checkQuery, expectationFailed, forwardHeaders, readForwardBody, type Refusal } from './guard.ts';
import { createPageShaper } from './pages.ts';
import { clientErrorAnswer, headTooLargeDetail, writeRaw } from './raw-answers.ts';
import { requestHeadBytes } from '../edge/head.ts';

const ENV_HEADER = 'X-CareAPI-Env';

/** The one value of X-CareAPI-Env an environment bundle allows (the build narrows the enum per environment). */
export function envHeaderValue(spec: CareSpec): string {
  const values: unknown[] = spec.document?.components?.headers?.[ENV_HEADER]?.schema?.enum ?? [];
  if (values.length !== 1 || typeof values[0] !== 'string') {
    throw new Error(`${ENV_HEADER} must allow exactly one value in an environment bundle, got ${JSON.stringify(values)}`);
  }
  return values[0];
}

/** Path of the bundle's server (`/care/v0` or `/care/v0/sandbox`), so full service URLs work on the mock too. */
function serverPathPrefix(spec: CareSpec): string {
  const url = String(spec.document?.servers?.[0]?.url ?? '');
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '');
  return path.replace(/\/+$/, '');
}

interface RouteMatcher {
  operation: OperationSpec;
  pattern: RegExp;
  names: string[];
  /** Literal characters: more literal wins over a parameter (`/events/case.updated` over `/events/{eventId}`). */
  weight: number;
}

function routes(spec: CareSpec): RouteMatcher[] {
  return spec.operations
    .map((operation) => {
      const names: string[] = [];
      const source = operation.path
        .split(/(\{[^}]+\})/)
        .map((part) => {
          if (!part.startsWith('{')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(part.slice(1, -1));
          return '([^/]+)';
        })
        .join('');
      return { operation, pattern: new RegExp(`^${source}/?$`), names, weight: operation.path.replace(/\{[^}]+\}/g, '').length };
    })
    .sort((a, b) => b.weight - a.weight);
}

type Match =
  | { kind: 'found'; operation: OperationSpec; params: Record<string, string> }
  | { kind: 'method'; allow: string[] }
  | { kind: 'none' };

/** The operation of a method and path; HEAD is answered by GET wherever GET is (D-69). */
function matchRoute(matchers: RouteMatcher[], method: string, path: string): Match {
  const wanted = method === 'HEAD' ? 'get' : method.toLowerCase();
  const allow = new Set<string>();
  for (const matcher of matchers) {
    const m = matcher.pattern.exec(path);
    if (!m) continue;
    if (matcher.operation.method === wanted) {
      const params: Record<string, string> = {};
      matcher.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
      return { kind: 'found', operation: matcher.operation, params };
    }
    allow.add(matcher.operation.method.toUpperCase());
    if (matcher.operation.method === 'get') allow.add('HEAD');
  }
  return allow.size > 0 ? { kind: 'method', allow: [...allow].sort() } : { kind: 'none' };
}

/** Rewrites `filter[f]=v` as `filter[f][eq]=v`: Prism validates only declared properties, so it needs the long form. */
function prismQuery(search: URLSearchParams): string {
  const out = new URLSearchParams();
  for (const [key, value] of search) {
    out.append(/^filter\[[^\]]*\]$/.test(key) ? `${key}[eq]` : key, value);
  }
  return out.toString();
}

/** The CORS headers Prism sends, also on the front's own answers, so browser apps can read every error. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': '*',
  'access-control-allow-credentials': 'true',
  'access-control-expose-headers': '*',
};

// Not passed back. fetch decodes compressed bodies, so encodings are dropped rather than passed on wrongly.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'content-encoding']);

export interface MockFrontOptions {
  /** The environment bundle Prism serves. */
  spec: CareSpec;
  /** Base URL of that Prism, e.g. http://127.0.0.1:4010; a function when it can change (restarts), undefined while down. */
  prismUrl: string | (() => string | undefined);
}

export function createMockFront(options: MockFrontOptions): Server {
  const { spec } = options;
  const prismUrl = typeof options.prismUrl === 'string' ? () => options.prismUrl as string : options.prismUrl;
  const envValue = envHeaderValue(spec);
  const prefix = serverPathPrefix(spec);
  const matchers = routes(spec);
  const shaper = createPageShaper(spec);

  const send = (res: ServerResponse, status: number, body: ErrorEnvelope, extra: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...CORS,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      [ENV_HEADER]: envValue,
      ...extra,
    });
    res.end(text); // nothing is written for HEAD: Node drops the body
  };
  const refuse = (req: IncomingMessage, res: ServerResponse, refusal: Refusal) => {
    if (!req.readableEnded) req.resume(); // the client gets the answer rather than a reset
    send(res, refusal.status, refusal.body, refusal.headers);
  };
  const unavailable = (req: IncomingMessage, res: ServerResponse, why = 'the mock is restarting its Prism process') =>
    refuse(req, res, {
      status: 503,
      body: envelope([errorObject(503, `server: ${why}; retry in a moment`, 'mock_unavailable')]),
      headers: { 'Retry-After': '1' },
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const rawTarget = req.url ?? '/';
    const rawPath = rawTarget.split('?')[0];
    const problem = checkPath(rawPath) ?? checkQuery(rawTarget.slice(rawPath.length));
    if (problem) return refuse(req, res, problem);
    const url = new URL(rawTarget.startsWith('/') ? rawTarget : `/${rawTarget}`, 'http://mock');
    const path = prefix && (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) ? url.pathname.slice(prefix.length) || '/' : url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();

    // Browser preflights, as Prism and the sandbox answer them.
    if (method === 'OPTIONS' && req.headers['access-control-request-method']) {
      req.resume();
      res.writeHead(204, { ...CORS, 'access-control-allow-methods': 'GET, HEAD, POST, PATCH, DELETE', [ENV_HEADER]: envValue });
      return res.end();
    }
    const match = matchRoute(matchers, method, path);
    if (match.kind === 'none') {
      return refuse(req, res, { status: 404, body: envelope([errorObject(404, `path: no operation at ${method} ${url.pathname}`, 'not_found')]) });
    }
    if (match.kind === 'method') {
      const allow = match.allow.join(', ');
      return refuse(req, res, {
        status: 405,
        body: envelope([errorObject(405, `method: ${method} is not allowed on ${url.pathname}; allowed: ${allow}`, 'method_not_allowed')]),
        headers: { Allow: allow },
      });
    }
    const { operation, params } = match;

    // Authentication comes first at the service; Prism answers the 401 itself.
    const listQuery = operation.list && req.headers.authorization ? parseListQuery(url.searchParams, operation.list, spec.operators) : undefined;
    if (listQuery && listQuery.errors.length > 0) return refuse(req, res, { status: 400, body: fromGrammarErrors(listQuery.errors) });

    const body = await readForwardBody(req, operation, spec.limits);
    if ('status' in body) return refuse(req, res, body);
    const target = prismUrl();
    if (!target) return unavailable(req, res);
    const headers = forwardHeaders(req, operation);
    if (body.contentType) headers.set('content-type', body.contentType);
    const search = operation.list ? prismQuery(url.searchParams) : url.searchParams.toString();
    let answer: Response;
    let bytes: Buffer;
    try {
      const forwardPath = path.length > 1 ? path.replace(/\/$/, '') : path; // Prism has no trailing-slash route
      answer = await fetch(`${target}${forwardPath}${search ? `?${search}` : ''}`, {
        method: operation.method.toUpperCase(),
        headers,
        body: body.bytes && body.bytes.length > 0 ? new Uint8Array(body.bytes) : undefined,
      });
      bytes = Buffer.from(await answer.arrayBuffer());
    } catch (error) {
      // Prism went away mid-request (its supervisor restarts it), or cut the connection
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return unavailable(req, res, `the mock's Prism process did not answer (${cause?.code ?? cause?.message ?? String(error)})`);
    }
    const status = serviceStatus(answer.status);

    if (answer.status >= 400) {
      const rewritten = rewriteError(status, answer, bytes);
      if (rewritten) {
        const extra: Record<string, string> = {};
        const challenge = answer.headers.get('www-authenticate');
        if (challenge) extra['WWW-Authenticate'] = challenge;
        return send(res, status, rewritten, extra);
      }
    }
    if (status === 200 && /json/.test(answer.headers.get('content-type') ?? '')) {
      bytes = shape(operation, listQuery?.query, params, bytes);
    }

    const out: Record<string, string | string[]> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== ENV_HEADER.toLowerCase()) out[name] = value;
    });
    out[ENV_HEADER] = envValue;
    out['content-length'] = String(bytes.length); // the whole body is here: no need for chunked
    res.writeHead(status, out);
    res.end(bytes);
  };

  const shape = (operation: OperationSpec, query: ReturnType<typeof parseListQuery>['query'] | undefined, params: Record<string, string>, bytes: Buffer): Buffer => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      return bytes;
    }
    const shaped = operation.list && query ? shaper.list(operation, query, params, parsed) : operation.method === 'get' ? shaper.single(operation, params, parsed) : parsed;
    return shaped === parsed ? bytes : Buffer.from(JSON.stringify(shaped));
  };

  // maxHeaderSize: the request line and headers of x-care-limits (D-100), beyond which Node's parser answers 431
  const server = createServer({ maxHeaderSize: spec.limits.requestHeadBytes }, (req, res) => {
    // Node's parser lets a head a few bytes past maxHeaderSize through: the limit is checked exactly, as the sandbox does
    if (requestHeadBytes(req) > spec.limits.requestHeadBytes) {
      return refuse(req, res, { status: 431, body: envelope([errorObject(431, headTooLargeDetail(spec.limits), 'header_too_large')]), headers: { Connection: 'close' } });
    }
    const twoHosts = checkHostLines(req);
    if (twoHosts) return refuse(req, res, twoHosts);
    handle(req, res).catch((error: unknown) => {
      // A fault of the front itself: still answer in the envelope, never hang.
      if (!res.headersSent) send(res, 500, envelope([errorObject(500, `server: mock front failed: ${String(error)}`, 'internal_error')]));
      else res.destroy();
    });
  });
  server.on('clientError', clientErrorAnswer(envValue, spec.limits));
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => refuse(req, res, expectationFailed(req)));
  // CONNECT goes to no request handler in Node; without a listener the socket is just closed.
  server.on('connect', (req: IncomingMessage, socket) => {
    writeRaw(socket, 405, `method: CONNECT is not allowed on ${req.url ?? ''}`, 'method_not_allowed', envValue, 'Allow: \r\n');
  });
  return server;
}

/** Prism's answer as the service would give it, or undefined when it already is an envelope with no violations. */
function rewriteError(status: number, answer: Response, bytes: Buffer): ErrorEnvelope | undefined {
  const violations = answer.headers.get('sl-violations');
  if (violations && status !== 401) {
    // Prism answers every invalid request with the same example body; the real reasons are in this header.
    const fromHeader = fromViolations(status, violations);
    if (fromHeader) return fromHeader;
  }
  let parsed: unknown;
  try {
    parsed = bytes.length > 0 ? JSON.parse(bytes.toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  return isEnvelope(parsed) ? undefined : fromForeignBody(status, parsed);
}
