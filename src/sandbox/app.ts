// The sandbox process: one HTTP server for the authentication service (/auth/v2), production (/care/v0), sandbox
// (/care/v0/sandbox), the agent API (/_agent), the bundles (/openapi) and the docs (/docs).
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ajvFor, bundlePath, loadSpec, repoRoot, specFromDocument } from '../spec/index.ts';
import type { Environment } from '../spec/types.ts';
import { handleAgent } from './agent.ts';
import { OAuthError, createAuth } from './auth.ts';
import type { Ctx, Services } from './context.ts';
import { createDispatcher } from './dispatcher.ts';
import type { DispatcherOptions } from './dispatcher.ts';
import { handlers } from './handlers/index.ts';
import { readJson } from './http/body.ts';
import { ApiError, envHeader, newRequestId, sendError, sendJson } from './http/envelope.ts';
import { createRouter, environmentOf } from './http/router.ts';
import { readDemo, seedIfEmpty } from './seed.ts';
import type { DemoCredentials } from './seed.ts';
import { serveStatic } from './static.ts';
import { openSqliteStorage } from './store/sqlite.ts';
import { prepareAjv, validateBody } from './validate.ts';

/**
 * A token bucket per API key: `perSecond` requests a second, bursts up to the same number. Answers 0 when the request
 * may go, else the whole seconds to wait (for Retry-After).
 */
function rateLimiter(perSecond: number, now: () => number) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (key: string): number => {
    const t = now();
    const bucket = buckets.get(key) ?? { tokens: perSecond, at: t };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((t - bucket.at) / 1000) * perSecond);
    bucket.at = t;
    buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
  };
}

/** JSON bytes of list data, kept per array: a page served from the storage's page cache is serialised once. */
const serializedArrays = new WeakMap<object, Buffer>();
function serialized(data: unknown): Buffer {
  if (!Array.isArray(data)) return Buffer.from(JSON.stringify(data) ?? 'null');
  let bytes = serializedArrays.get(data);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(data));
    serializedArrays.set(data, bytes);
  }
  return bytes;
}

const CORS_EXPOSED = 'X-CareAPI-Env, Location, WWW-Authenticate, Retry-After, Content-Disposition, Allow';

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** SQLite file, or `:memory:`. */
  db?: string;
  /** Cases seeded into an empty database, per environment (one number for both). */
  seedCases?: number | Record<Environment, number>;
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
  /** Requests per second allowed per API key (D-31 429 with Retry-After); off when absent. */
  rateLimit?: number;
}

export interface Sandbox {
  url: string;
  port: number;
  server: Server;
  svc: Services;
  demo: DemoCredentials;
  close(): Promise<void>;
}

/**
 * The bundle's spec, with its own ajv so the sandbox's e-mail format (D-08) stays its own. The parsed document is
 * cached as JSON under .care/ by content hash: parsing the YAML is the largest part of a cold start.
 */
function sandboxSpec(bundle = bundlePath()) {
  const text = readFileSync(bundle, 'utf8');
  const cacheFile = join(repoRoot, '.care', 'bundle-cache', `${createHash('sha256').update(text).digest('hex').slice(0, 32)}.json`);
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(cacheFile, 'utf8'));
  } catch {
    document = loadSpec(bundle).document;
    try {
      mkdirSync(dirname(cacheFile), { recursive: true });
      writeFileSync(cacheFile, JSON.stringify(document));
    } catch {
      // a read-only checkout: no cache, same result
    }
  }
  const spec = specFromDocument(document);
  prepareAjv(spec, ajvFor(spec));
  return spec;
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const spec = sandboxSpec(options.bundle);
  const now = options.now ?? Date.now;
  const store = openSqliteStorage(spec, { file: options.db ?? ':memory:' });
  const dispatcher = createDispatcher(store, { ...options.webhooks, now });
  const svc: Services = { spec, store, auth: createAuth(store, now), dispatcher, now };
  seedIfEmpty(svc, options.seedCases ?? 300);
  const demo = readDemo(store);
  const router = createRouter(spec.operations);
  const missing = spec.operations.filter((op) => !handlers[op.operationId]).map((op) => op.operationId);
  if (missing.length > 0) throw new Error(`No handler for operations: ${missing.join(', ')}`);
  const generatedDir = join(repoRoot, 'generated');
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const limiter = options.rateLimit ? rateLimiter(options.rateLimit, now) : undefined;

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    const match = router.match(req.method ?? 'GET', url.pathname);
    const env = match.kind === 'none' ? match.env : match.kind === 'method' ? match.env : match.route.env;
    const headers: Record<string, string> = env ? { 'X-CareAPI-Env': envHeader(env) } : {};
    try {
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
        const wait = limiter(account.keyId);
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
        body: async () => (op.requestBody ? validateBody(spec, op.requestBody.schema, await readJson(req)) : {}),
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
        const data = serialized(reply.data);
        res.writeHead(reply.status, { ...all, 'Content-Type': 'application/json', 'Content-Length': head.length + data.length + 1 });
        res.write(head);
        res.write(data);
        res.end('}');
      }
    } catch (error) {
      if (!(error instanceof ApiError)) log(`[care-sandbox] ${req.method} ${url.pathname}: ${(error as Error)?.stack ?? String(error)}`);
      const apiError = error instanceof ApiError ? error : new ApiError(500, { detail: 'server: unexpected failure; quote the requestId', code: 'internal_error' });
      // Drain what the handler did not read, so the client gets the answer rather than a reset.
      if (!req.readableEnded) req.resume();
      sendError(res, requestId, apiError, headers);
    }
  }

  async function handleToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
    try {
      if (req.method !== 'POST') throw new OAuthError(405, 'invalid_request', 'use POST');
      const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      let form: Record<string, unknown>;
      if (type === 'application/json') {
        const json = await readJson(req).catch(() => undefined);
        form = json && typeof json === 'object' ? (json as Record<string, unknown>) : {};
      } else {
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of req) {
          size += chunk.length;
          if (size <= 64 * 1024) chunks.push(chunk);
        }
        form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      }
      // HTTP Basic client authentication is the other way RFC 6749 allows to send the client credentials.
      const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
      if (basic && !form.client_id) {
        const [id, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
        form = { ...form, client_id: decodeURIComponent(id ?? ''), client_secret: decodeURIComponent(secret ?? '') };
      }
      sendJson(res, 200, await svc.auth.exchange(form), noStore);
    } catch (error) {
      if (!(error instanceof OAuthError)) log(`[care-sandbox] token: ${(error as Error)?.stack}`);
      const e = error instanceof OAuthError ? error : new OAuthError(500, 'server_error', 'unexpected failure');
      sendJson(res, e.status, { error: e.error, error_description: e.description }, { ...noStore, ...(e.status === 401 ? { 'WWW-Authenticate': 'Basic realm="care-auth"' } : {}) });
    }
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const requestId = newRequestId();
    const path = url.pathname;
    if (options.logRequests) {
      const started = performance.now();
      res.once('finish', () => log(`${req.method} ${req.url} ${res.statusCode} ${(performance.now() - started).toFixed(1)} ms`));
    }
    // Browsers (frontend teams) call the sandbox from other origins: allow it, and answer preflights.
    if (req.headers.origin) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED);
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
        res.writeHead(204, {
          'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE',
          'Access-Control-Allow-Headers': String(req.headers['access-control-request-headers'] ?? 'authorization, content-type'),
          'Access-Control-Max-Age': '600',
          ...(environmentOf(path) ? { 'X-CareAPI-Env': envHeader(environmentOf(path)!) } : {}),
        });
        res.end();
        return;
      }
    }
    let work: Promise<void>;
    if (path === '/auth/v2/oauth/token') work = handleToken(req, res);
    else if (path === '/_agent' || path.startsWith('/_agent/')) work = handleAgent(svc, req, res, url, requestId, options.agentToken);
    else if (environmentOf(path)) work = handleApi(req, res, url, requestId);
    else if (path === '/' && req.method === 'GET') {
      res.writeHead(302, { Location: '/docs/' });
      res.end();
      return;
    } else if ((req.method === 'GET' || req.method === 'HEAD') && serveStatic(generatedDir, path, res)) return;
    else {
      req.resume();
      sendError(res, requestId, new ApiError(404, { detail: `path: nothing at ${path}`, code: 'not_found' }));
      return;
    }
    work.catch((error) => {
      log(`[care-sandbox] ${(error as Error)?.stack}`);
      if (!res.headersSent) sendError(res, requestId, new ApiError(500, { detail: 'server: unexpected failure', code: 'internal_error' }));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;

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
