// The sandbox process: one HTTP server for the authentication service (/auth/v2), production (/care/v0), sandbox
// (/care/v0/sandbox), the agent API (/_agent), the bundles (/openapi) and the docs (/docs).
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from '../spec/load.ts';
import type { Environment } from '../spec/types.ts';
import { handleAgent } from './agent.ts';
import { createAuth } from './auth.ts';
import type { Ctx, Reply, Services } from './context.ts';
import { createDispatcher } from './dispatcher.ts';
import { resolveDeployment } from './deployment.ts';
import type { Deployment } from './deployment.ts';
import type { DispatcherOptions } from './dispatcher.ts';
import { handlers } from './handlers/index.ts';
import { readJson } from './http/body.ts';
import { answerClientError, headTooLarge, trackRequestLines } from './http/client-error.ts';
import { requestHeadBytes } from '../edge/head.ts';
import { handleToken } from './token.ts';
import { answerCors, edgeRefusal, installEdge, setSecurityHeaders } from './edge.ts';
import { ApiError, atMostProblems, envHeader, newRequestId, sendError } from './http/envelope.ts';
import { createRouter, requestTarget } from '../spec/routes.ts';
import { readDemo, seedIfEmpty } from './seed.ts';
import type { DemoCredentials } from './seed.ts';
import { serveStatic } from './static.ts';
import { serveTryIt } from './try-it.ts';
import { openSqliteStorage } from './store/sqlite.ts';
import type { ListAnswer } from './store/types.ts';
import { explainLine } from './explain.ts';
import { rateLimiter } from './rate-limit.ts';
import { sandboxSpec } from './spec-cache.ts';
import { validateBody } from './validate.ts';
import { utf8 } from './utf8.ts';

/** JSON bytes of a storage page's records, kept per records array: a page served from the storage's cache is encoded once. */
const pageBytes = new WeakMap<object, Buffer>();

/** The bytes of a reply's `data`: a page of the storage as its records were written (D-84), else encoded. */
function serialized(reply: Reply): Buffer {
  const records = reply.records;
  if (!records) return utf8(JSON.stringify(reply.data) ?? 'null');
  if (records.json) return records.json.bytes();
  let bytes = pageBytes.get(records.items);
  if (bytes === undefined) {
    bytes = utf8(JSON.stringify(records.items));
    pageBytes.set(records.items, bytes);
  }
  return bytes;
}

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** SQLite file, or `:memory:`. */
  db?: string;
  /** Cases seeded into an empty database, per environment (one number for both). */
  seedCases?: number | Record<Environment, number>;
  /** Who answers lists of cases (D-84): the in-memory column engine (default) or SQLite alone. */
  caseLists?: 'memory' | 'sql';
  /** Bundle to read (default generated/care-api.yaml). */
  bundle?: string;
  webhooks?: DispatcherOptions;
  /** Make webhook deliveries (default true); false keeps them queued (fuzzing, benchmarks). */
  deliver?: boolean;
  now?: () => number;
  /** When set, the agent API wants `Authorization: Bearer <agentToken>`. */
  agentToken?: string;
  log?: (line: string) => void;
  /** Log one line per request (method, path, status, milliseconds). */
  logRequests?: boolean;
  /** Log one line per list of cases: the page cache, the column engine and its plan, or SQL and why (explain.ts). */
  explainLists?: boolean;
  /** Requests per second allowed per API key (D-31 429 with Retry-After); off when absent. */
  rateLimit?: number;
  /** Time allowed for a request's headers and body before a 408 (Node's defaults when absent; 30 s when hosted). */
  requestTimeoutMs?: number;
  /** The URL partners reach a hosted sandbox at; declaring it makes the sandbox hosted (D-112, D-113). */
  publicUrl?: string;
  /** Serve the demo keys at /docs/try-it.json even when hosted (D-113). */
  serveDemoKeys?: boolean;
  /** Open connections at most when hosted (default 256, D-113). */
  maxConnections?: number;
}

export interface Sandbox {
  url: string;
  port: number;
  server: Server;
  svc: Services;
  demo: DemoCredentials;
  /** Loopback or hosted, and what follows from it (D-113). */
  deployment: Deployment;
  close(): Promise<void>;
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  // decided before anything is opened: a hosted sandbox without an agent token does not start (D-113)
  const deployment = resolveDeployment({
    host: options.host,
    publicUrl: options.publicUrl,
    agentToken: options.agentToken,
    serveDemoKeys: options.serveDemoKeys,
    allowPrivateWebhooks: options.webhooks?.allowPrivateTargets,
    maxConnections: options.maxConnections,
  });
  const spec = sandboxSpec(options.bundle);
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const onListPlan = options.explainLists ? (answer: ListAnswer, request: Parameters<typeof explainLine>[1]) => log(explainLine(answer, request)) : undefined;
  const store = openSqliteStorage(spec, { file: options.db ?? ':memory:', caseLists: options.caseLists, onListPlan });
  const dispatcher = createDispatcher(store, spec.deliveries, { ...options.webhooks, guardSandbox: deployment.guardSandboxDeliveries, now });
  const svc: Services = { spec, store, auth: createAuth(store, now), dispatcher, now };
  seedIfEmpty(svc, options.seedCases ?? 300);
  const demo = readDemo(store);
  const router = createRouter(spec);
  const missing = spec.operations.filter((op) => !handlers[op.operationId]).map((op) => op.operationId);
  if (missing.length > 0) throw new Error(`No handler for operations: ${missing.join(', ')}`);
  const generatedDir = join(repoRoot, 'generated');
  const limiter = options.rateLimit ? rateLimiter(options.rateLimit, now) : undefined;

  const app: App = { svc, router, limiter, demo, generatedDir, options, log, deployment };
  // The one boundary: whatever a request holds, it gets an answer from here and the process goes on (a throw or a
  // rejection becomes a logged 500 in the envelope; an ApiError, its own answer), with the headers the request's
  // handling set for it (the environment, a deprecation).
  // maxHeaderSize: the request line and headers of x-care-limits (D-100), beyond which Node's parser answers 431
  const server = createServer({ requireHostHeader: false, maxHeaderSize: spec.limits.requestHeadBytes, ...timeouts(options.requestTimeoutMs ?? deployment.limits?.requestTimeoutMs) }, (req, res) => {
    const requestId = newRequestId();
    const errorHeaders: Record<string, string> = {};
    const fail = (error: unknown) => {
      if (!(error instanceof ApiError)) log(`[care-sandbox] ${req.method} ${String(req.url).slice(0, 200)}: ${(error as Error)?.stack ?? String(error)}`);
      if (res.headersSent) return void res.destroy();
      // Drain what the handler did not read, so the client gets the answer rather than a reset.
      if (!req.readableEnded) req.resume();
      const apiError = error instanceof ApiError ? atMostProblems(error, spec.limits.errorObjects) : new ApiError(500, { detail: 'server: unexpected failure; quote the requestId', code: 'internal_error' });
      const env = router.environmentOf(requestTarget(req.url)?.pathname ?? '');
      sendError(res, requestId, apiError, { ...(env ? { 'X-CareAPI-Env': envHeader(env) } : {}), ...errorHeaders });
    };
    try {
      const work = route(app, req, res, requestId, errorHeaders);
      if (work) work.catch(fail);
    } catch (error) {
      fail(error);
    }
  });
  server.keepAliveTimeout = 5_000;
  trackRequestLines(server);
  server.on('clientError', answerClientError(router.environmentOf, spec.limits));
  installEdge(server, deployment, router.environmentOf);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  if (options.deliver !== false) dispatcher.start();
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    server,
    svc,
    demo,
    deployment,
    async close() {
      await dispatcher.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
    },
  };
}

/** What the request handlers read, made once by createSandbox. */
interface App {
  svc: Services;
  router: ReturnType<typeof createRouter>;
  limiter: ReturnType<typeof rateLimiter> | undefined;
  demo: DemoCredentials;
  generatedDir: string;
  options: SandboxOptions;
  log: (line: string) => void;
  deployment: Deployment;
}

/**
 * A request to production or the sandbox: routed by operation, authenticated, limited, handled and written. Throws what
 * the one boundary (createSandbox's server) answers; `headers` are given to that answer too (the environment, a
 * deprecation), set here as soon as they are known.
 */
async function handleApi(app: App, req: IncomingMessage, res: ServerResponse, url: URL, requestId: string, headers: Record<string, string>): Promise<void> {
  const { svc, router, limiter, options } = app;
  const { spec } = svc;
  const match = router.match(req.method ?? 'GET', url.pathname);
  const env = match.kind === 'found' ? match.route.env : match.env;
  if (env) headers['X-CareAPI-Env'] = envHeader(env);
  // A deprecated operation announces its sunset on every answer, errors included (D-33, from the bundle).
  if (match.kind === 'found' && match.route.operation.deprecation) Object.assign(headers, match.route.operation.deprecation);
  if (match.kind === 'malformed') {
    throw new ApiError(400, { detail: `path: malformed percent-encoding in ${url.pathname}`, code: 'invalid_path' });
  }
  // URLSearchParams would turn invalid UTF-8 into U+FFFD and filter on that silently (D-82).
  if (!decodesAsUtf8(url.search)) {
    throw new ApiError(400, { detail: `query: percent-escapes that are not UTF-8 in ${url.search}`, code: 'invalid_query' });
  }
  if (match.kind === 'none') {
    throw new ApiError(404, { detail: `path: no operation at ${req.method} ${url.pathname}`, code: 'not_found' });
  }
  if (match.kind === 'method') {
    throw new ApiError(
      405,
      { detail: `method: ${req.method} is not allowed on ${url.pathname}; allowed: ${match.allow.join(', ')}`, code: 'method_not_allowed' },
      { Allow: match.allow.join(', ') },
    );
  }
  const { route, params } = match;
  const account = await svc.auth.authenticate(route.env, req.headers.authorization);
  if (limiter) {
    const { wait, headers: quota } = limiter(account.keyId);
    Object.assign(headers, quota); // on this answer, whatever it is (D-102)
    if (wait > 0) {
      throw new ApiError(429, { detail: `header.Authorization: rate limit of ${options.rateLimit} requests per second exceeded`, code: 'rate_limited' }, { 'Retry-After': String(wait) });
    }
  }
  const op = route.operation;
  const ctx: Ctx = {
    env: route.env as Environment,
    account,
    op,
    params,
    query: url.searchParams,
    req,
    requestId,
    svc,
    body: async () => (op.requestBody ? validateBody(spec, op.requestBody.schema, await readJson(req, spec.limits)) : {}),
  };
  const reply = await handlers[op.operationId](ctx);
  const all = { ...headers, ...reply.headers };
  if (reply.raw) {
    res.writeHead(reply.status, { ...all, 'Content-Type': reply.raw.contentType, 'Content-Length': reply.raw.bytes.length });
    res.end(reply.raw.bytes);
  } else if (reply.status === 204) {
    res.writeHead(204, all);
    res.end();
  } else {
    // {"meta":...,"data":...} written in three pieces: the data bytes of a cached page are reused as they are
    const head = Buffer.from(`{"meta":${JSON.stringify(reply.page ? { requestId, page: reply.page } : { requestId })},"data":`);
    const data = serialized(reply);
    res.writeHead(reply.status, { ...all, 'Content-Type': 'application/json', 'Content-Length': head.length + data.length + 1 });
    res.write(head);
    res.write(data);
    res.end('}');
  }
}

/** One request, routed by its path; throws only for what the one boundary (createSandbox's server) turns into an answer. */
function route(app: App, req: IncomingMessage, res: ServerResponse, requestId: string, errorHeaders: Record<string, string>): Promise<void> | void {
  const { svc, options, log, demo, generatedDir, deployment, router } = app;
  const { spec } = svc;
  const target = requestTarget(req.url);
  setSecurityHeaders(res, target?.pathname ?? ''); // nosniff on every answer, a CSP on all but the docs (D-114)
  if (!target) {
    req.resume();
    return sendError(res, requestId, new ApiError(400, { detail: `request: the request target ${JSON.stringify(String(req.url).slice(0, 200))} is not a path`, code: 'invalid_target' }));
  }
  const url = target;
  const path = url.pathname;
  const env = router.environmentOf(path);
  // Node's parser lets a head a few bytes past its maxHeaderSize through: the limit is checked here, exactly (D-100)
  if (requestHeadBytes(req) > spec.limits.requestHeadBytes) {
    req.resume();
    return sendError(res, requestId, headTooLarge(spec.limits), env ? { 'X-CareAPI-Env': envHeader(env), Connection: 'close' } : { Connection: 'close' });
  }
  // one Host naming this sandbox, and no other site's page at the demo keys or the agent API (D-111, D-112, D-114)
  const refusal = edgeRefusal(req, path, deployment);
  if (refusal) {
    req.resume();
    return sendError(res, requestId, refusal, env ? { 'X-CareAPI-Env': envHeader(env) } : {});
  }
  if (options.logRequests) {
    const started = performance.now();
    res.once('finish', () => log(`${req.method} ${req.url} ${res.statusCode} ${(performance.now() - started).toFixed(1)} ms`));
  }
  // Browsers (frontend teams) call the API from other origins: allowed there, and preflights answered (D-42, D-111).
  if (answerCors(req, res, path, env)) return;
  if (path === '/auth/v2/oauth/token') return handleToken(svc.auth, spec.limits, req, res, log);
  if (path === '/_agent' || path.startsWith('/_agent/')) return handleAgent(svc, req, res, url, requestId, options.agentToken, log);
  if (env) return handleApi(app, req, res, url, requestId, errorHeaders);
  if (path === '/' && req.method === 'GET') {
    res.writeHead(302, { Location: '/docs/' });
    res.end();
    return;
  }
  // the docs' API console reads the demo keys of this sandbox (D-92)
  if (req.method === 'GET' && serveTryIt(path, deployment.serveDemoKeys ? demo : null, res)) return;
  if ((req.method === 'GET' || req.method === 'HEAD') && serveStatic(generatedDir, path, req, res)) return;
  req.resume();
  sendError(res, requestId, new ApiError(404, { detail: `path: nothing at ${path}`, code: 'not_found' }));
}

/** Timeouts for a request's headers and whole body, when set (tests); Node's defaults otherwise. */
function timeouts(ms: number | undefined) {
  return ms === undefined ? {} : { requestTimeout: ms, headersTimeout: ms, connectionsCheckingInterval: Math.max(10, Math.floor(ms / 4)) };
}

/** Whether the percent-escapes of a query string decode, as UTF-8, to well-formed text (a lone `%` stays literal). */
function decodesAsUtf8(search: string): boolean {
  try {
    decodeURIComponent(search.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
    return true;
  } catch {
    return false;
  }
}
