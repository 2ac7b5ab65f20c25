// The front before each Prism (D-42, D-96): routes with the sandbox's router (src/spec/routes.ts, D-95), answers
// itself what Prism cannot take or the service answers otherwise (malformed escapes, HEAD, unknown routes and
// methods, bodies that are not what they claim, uploads, parser refusals), checks the list grammar Prism ignores,
// shapes list pages (src/mock/pages.ts), and makes every answer look like the service's: error envelope, one error per
// problem, a requestId of its own, Location under its base, X-CareAPI-Env always set. Requests wait for Prism's first
// start; while it restarts the front answers 503 with Retry-After.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseListQuery } from '../grammar/index.ts';
import type { CareSpec, Environment, OperationSpec } from '../spec/index.ts';
import { rateLimitFieldNames } from '../spec/rate-limit-fields.ts';
import { createRouter, requestTarget } from '../spec/routes.ts';
import { envelope, errorObject, fromForeignBody, fromGrammarErrors, fromViolations, isEnvelope, newRequestId, serviceStatus, type ErrorEnvelope } from './envelope.ts';
import { everyExtraKey, oneErrorPerUnion } from './body-errors.ts';
import { checkHostLines, checkQuery, expectationFailed, forwardHeaders, readForwardBody, type Refusal } from './guard.ts';
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
  /**
   * Settles once Prism has listened for the first time (rejects if it never does): a request that comes before is
   * held until then rather than answered 503, since nothing is restarting yet.
   */
  firstStart?: Promise<unknown>;
}

/** The one environment an environment bundle serves (its server's `x-care-environment`). */
function environmentOfBundle(spec: CareSpec): Environment {
  const servers: any[] = spec.document?.servers ?? [];
  const envs = [...new Set(servers.map((server) => server?.['x-care-environment']))];
  if (envs.length !== 1 || (envs[0] !== 'production' && envs[0] !== 'sandbox')) {
    throw new Error(`an environment bundle has servers of exactly one environment, got ${JSON.stringify(envs)}`);
  }
  return envs[0];
}

export function createMockFront(options: MockFrontOptions): Server {
  const { spec } = options;
  const prismUrl = typeof options.prismUrl === 'string' ? () => options.prismUrl as string : options.prismUrl;
  const envValue = envHeaderValue(spec);
  const environment = environmentOfBundle(spec);
  // the sandbox's router (D-95): `/cases` and `/care/v0/sandbox/cases` both reach listCases on the sandbox mock
  const router = createRouter(spec, { bare: environment });
  const base = router.bases[environment] ?? '';
  const shaper = createPageShaper(spec);
  // what a 503 says: Prism restarting (it was up once), still starting, or never started (the mock is stopping)
  let prismHistory: 'starting' | 'started' | 'never-started' = options.firstStart === undefined ? 'started' : 'starting';
  void options.firstStart?.then(
    () => (prismHistory = 'started'),
    () => (prismHistory = 'never-started'),
  );
  const WHY_UNAVAILABLE = {
    starting: 'the mock is starting its Prism process',
    started: 'the mock is restarting its Prism process',
    'never-started': 'the mock\'s Prism process did not start',
  };

  // The mock limits nothing (docs/mocks.md, "No rate limiting"): the RateLimit examples Prism would send are dropped.
  const rateLimitFields = new Set(rateLimitFieldNames(spec).map((name) => name.toLowerCase()));
  const send = (res: ServerResponse, status: number, body: ErrorEnvelope, extra: Record<string, string> = {}) => {
    const text = JSON.stringify({ ...body, meta: { ...body.meta, requestId: newRequestId() } });
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
  const unavailable = (req: IncomingMessage, res: ServerResponse, why: string) =>
    refuse(req, res, {
      status: 503,
      body: envelope([errorObject(503, `server: ${why}; retry in a moment`, 'mock_unavailable')]),
      headers: { 'Retry-After': '1' },
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = requestTarget(req.url);
    const method = (req.method ?? 'GET').toUpperCase();
    if (!url) {
      const detail = `request: the request target ${JSON.stringify(String(req.url).slice(0, 200))} is not a path`;
      return refuse(req, res, { status: 400, body: envelope([errorObject(400, detail, 'invalid_target')]) });
    }

    // Browser preflights, as Prism and the sandbox answer them.
    if (method === 'OPTIONS' && req.headers['access-control-request-method']) {
      req.resume();
      res.writeHead(204, { ...CORS, 'access-control-allow-methods': 'GET, HEAD, POST, PATCH, DELETE', [ENV_HEADER]: envValue });
      return res.end();
    }
    // The order of the sandbox's checks: the path's escapes, the query's, the route, the method.
    const match = router.match(method, url.pathname);
    if (match.kind === 'malformed') {
      return refuse(req, res, { status: 400, body: envelope([errorObject(400, `path: malformed percent-encoding in ${url.pathname}`, 'invalid_path')]) });
    }
    const badQuery = checkQuery(url.search);
    if (badQuery) return refuse(req, res, badQuery);
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
    const { params } = match;
    const operation = match.route.operation;
    // Prism serves the paths below the base
    const path = url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : url.pathname;

    // Authentication comes first at the service; Prism answers the 401 itself.
    const listQuery = operation.list && req.headers.authorization ? parseListQuery(url.searchParams, operation.list, spec.operators) : undefined;
    if (listQuery && listQuery.errors.length > 0) return refuse(req, res, { status: 400, body: fromGrammarErrors(listQuery.errors) });

    const body = await readForwardBody(req, operation, spec);
    if ('status' in body) return refuse(req, res, body);
    if (prismHistory === 'starting' && !prismUrl()) await options.firstStart?.catch(() => undefined);
    const target = prismUrl();
    if (!target) return unavailable(req, res, WHY_UNAVAILABLE[prismHistory]);
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
      const prismError = rewriteError(status, answer, bytes);
      const rewritten = prismError && (idsThatCannotExist(operation, params, prismError) ?? bodyErrors(operation, body.bytes, prismError));
      if (rewritten) {
        const extra: Record<string, string> = {};
        const challenge = answer.headers.get('www-authenticate');
        if (challenge) extra['WWW-Authenticate'] = challenge;
        // the errors' own status: an id that cannot exist is 404 where Prism said 400
        return send(res, Number(rewritten.errors[0]?.status ?? status), rewritten, extra);
      }
    }
    const out: Record<string, string | string[]> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== ENV_HEADER.toLowerCase() && !rateLimitFields.has(name)) out[name] = value;
    });
    if (/json/.test(answer.headers.get('content-type') ?? '')) {
      const parsed = parseJson(bytes);
      if (parsed !== undefined) {
        const shaped = status === 200 ? shape(operation, listQuery?.query, params, parsed) : parsed;
        // one requestId per answer, as the service makes (Prism repeats the example's)
        if (shaped && typeof shaped === 'object' && shaped.meta && typeof shaped.meta === 'object') shaped.meta = { ...shaped.meta, requestId: newRequestId() };
        bytes = Buffer.from(JSON.stringify(shaped));
        // Location names the created resource under this environment's base (D-74), not the description's example
        if (status === 201 && typeof shaped?.data?.id === 'string') out.location = locationOf(operation, params, shaped.data.id);
      }
    }
    out[ENV_HEADER] = envValue;
    out['content-length'] = String(bytes.length); // the whole body is here: no need for chunked
    res.writeHead(status, out);
    res.end(bytes);
  };

  const shape = (operation: OperationSpec, query: ReturnType<typeof parseListQuery>['query'] | undefined, params: Record<string, string>, parsed: any): any =>
    operation.list && query ? shaper.list(operation, query, params, parsed) : operation.method === 'get' ? shaper.single(operation, params, parsed) : parsed;

  const bodyErrors = (operation: OperationSpec, bytes: Buffer | undefined, errors: ErrorEnvelope): ErrorEnvelope => {
    const schema = operation.requestBody?.schema;
    return oneErrorPerUnion(spec, schema, everyExtraKey(spec, schema, bytes, errors));
  };

  /** `<base><collection path>/<id>`: the path the created resource's GET answers, as the sandbox writes it. */
  const locationOf = (operation: OperationSpec, params: Record<string, string>, id: string): string =>
    base + operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? '')) + '/' + encodeURIComponent(id);

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

/**
 * Prism checks path parameters against their schema (an id over 64 characters is 400, named in lower case); the
 * service looks the id up and answers 404, as for any id it does not hold. Undefined when some error is elsewhere.
 */
function idsThatCannotExist(operation: OperationSpec, params: Record<string, string>, errors: ErrorEnvelope): ErrorEnvelope | undefined {
  const names = operation.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const named = errors.errors.map((error) => {
    const at = /^path\.([^:]+):/.exec(error.detail)?.[1];
    return at === undefined ? undefined : names.find((name) => name.toLowerCase() === at.toLowerCase());
  });
  if (named.length === 0 || named.some((name) => name === undefined)) return undefined;
  const name = named[0]!;
  return envelope([errorObject(404, `path.${name}: ${name.replace(/Id$/, '')} ${params[name]} not found`, 'not_found')]);
}

function parseJson(bytes: Buffer): any {
  try {
    return bytes.length > 0 ? JSON.parse(bytes.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
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
