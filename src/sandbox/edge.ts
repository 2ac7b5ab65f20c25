// The sandbox's HTTP edge, before any route (docs/security.md): one Host line naming this sandbox (D-112, D-114),
// the demo keys and the agent API kept from other origins (D-111), CORS only where the API's browser clients need it,
// security headers on every answer, and the requests Node answers itself (Expect, CONNECT) in the envelope (D-114).
import { isIP } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Environment } from '../spec/types.ts';
import type { Deployment } from './deployment.ts';
import { TRY_IT_PATH } from './try-it.ts';
import { DEFAULT_ENVIRONMENT, writeRawError, type EnvironmentOf } from './http/client-error.ts';
import { ApiError, envHeader, newRequestId, sendError } from './http/envelope.ts';

const CORS_EXPOSED = 'X-CareAPI-Env, Location, WWW-Authenticate, Retry-After, Content-Disposition, Allow, Deprecation, Sunset, RateLimit, RateLimit-Policy';

/** What an API answer may do in a browser that opens it (an attachment of type text/html, say): nothing (D-114). */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** How many `Host` lines a request carried (Node keeps the first in `req.headers`). */
function hostLines(req: IncomingMessage): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].length === 4 && req.rawHeaders[i].toLowerCase() === 'host') count++;
  return count;
}

/** The host name of a `Host` value, lower case, without port, brackets or a final dot; null when it is not one. */
export function hostName(value: string): string | null {
  // only host[:port]: no user info, path, query or fragment that a URL parser would read around
  if (value === '' || /[\s/\\@?#]/.test(value) || !URL.canParse(`http://${value}/`)) return null;
  return new URL(`http://${value}/`).hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/**
 * Whether a Host name may reach this sandbox (D-112): a loopback name, an IP address (a page of another site cannot
 * be served under a literal address), or a host of the public URL. Any other name is what DNS rebinding sends.
 */
export function hostAccepted(name: string, publicHosts: readonly string[]): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0 || publicHosts.includes(name);
}

/** The agent API and the demo keys: never for another origin (D-111). */
function isSecretPath(path: string): boolean {
  return path === TRY_IT_PATH || path === '/_agent' || path.startsWith('/_agent/');
}

/** Where the API's browser clients need CORS (the API, its token endpoint, the bundles); nowhere else. */
function isCorsPath(path: string, env: Environment | null): boolean {
  return env !== null || path === '/auth/v2/oauth/token' || path === '/openapi' || path.startsWith('/openapi/');
}

/**
 * Why a request made by a page of another site is refused, from what browsers add to it; undefined when it is not.
 * The page's origin is this sandbox when it names the request's Host, or the public URL (a proxy may rewrite Host).
 */
function crossSite(req: IncomingMessage, publicUrl: string | undefined): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site: ${site}`;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  if (!URL.canParse(origin)) return `Origin: ${origin.slice(0, 100)}`;
  const url = new URL(origin);
  return url.host === String(req.headers.host ?? '').toLowerCase() || url.origin === publicUrl ? undefined : `Origin: ${origin.slice(0, 100)}`;
}

/** The refusal a request gets at the edge, or undefined to route it. */
export function edgeRefusal(req: IncomingMessage, path: string, deployment: Deployment): ApiError | undefined {
  const lines = hostLines(req);
  if (lines > 1) return new ApiError(400, { detail: `header.Host: sent ${lines} times; a request names one host (RFC 9112 section 3.2)`, code: 'duplicate_host' });
  const host = req.headers.host;
  // HTTP/1.1 requires Host (RFC 9112 section 3.2); Node's own refusal would answer outside the envelope.
  if (host === undefined) {
    if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) return new ApiError(400, { detail: 'header.Host: Field required (HTTP/1.1)', code: 'missing' });
  } else {
    const name = hostName(host);
    if (name === null) return new ApiError(400, { detail: `header.Host: ${JSON.stringify(host.slice(0, 100))} is not a host`, code: 'invalid_host' });
    if (!hostAccepted(name, deployment.publicHosts)) {
      const named = deployment.publicHosts.length ? `, ${deployment.publicHosts.join(', ')}` : '; a hosted sandbox also takes the host of --public-url';
      return new ApiError(421, { detail: `header.Host: ${name} is not a name of this sandbox (loopback names, IP addresses${named})`, code: 'misdirected_host' });
    }
  }
  if (isSecretPath(path)) {
    const why = crossSite(req, deployment.publicUrl);
    if (why) return new ApiError(403, { detail: `request: ${path.startsWith('/_agent') ? 'the agent API' : 'the demo keys'} answer pages of this sandbox only, not another site (${why})`, code: 'cross_site' });
  }
  return undefined;
}

/** Security headers of every answer (D-114); the docs site sets its own Content-Security-Policy (D-115). */
export function setSecurityHeaders(res: ServerResponse, path: string): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (!path.startsWith('/docs/')) res.setHeader('Content-Security-Policy', API_CSP);
}

/** CORS for the API's browser clients (ACAO: *, D-42); true when a preflight was answered. */
export function answerCors(req: IncomingMessage, res: ServerResponse, path: string, env: Environment | null): boolean {
  if (!req.headers.origin || !isCorsPath(path, env)) return false;
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED);
  if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) return false;
  res.writeHead(204, {
    'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE',
    'Access-Control-Allow-Headers': String(req.headers['access-control-request-headers'] ?? 'authorization, content-type'),
    'Access-Control-Max-Age': '600',
    ...(env ? { 'X-CareAPI-Env': envHeader(env) } : {}),
  });
  res.end();
  return true;
}

/** The request target's path, for answers made before routing (a CONNECT's authority-form target has none). */
function pathOf(target: string | undefined): string {
  const text = target ?? '';
  if (text.startsWith('/')) return text.split('?')[0];
  return /^https?:\/\/[^/]*(\/[^?]*)?/i.exec(text)?.[1] ?? '';
}

/** Listeners and caps of the server: Expect and CONNECT in the envelope, a hosted sandbox's limits (D-113, D-114). */
export function installEdge(server: Server, deployment: Deployment, environmentOf: EnvironmentOf): void {
  // Node answers an Expect other than 100-continue with a bare 417 unless someone listens.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const env = environmentOf(pathOf(req.url));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Connection', 'close'); // the body may follow or not: this connection ends with the answer
    sendError(res, newRequestId(), new ApiError(417, { detail: `header.Expect: only 100-continue is supported, got ${JSON.stringify(String(req.headers.expect).slice(0, 100))}`, code: 'expectation_failed' }), env ? { 'X-CareAPI-Env': envHeader(env) } : {});
  });
  // CONNECT reaches no request handler in Node; without a listener the socket is closed with no answer.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const env = environmentOf(pathOf(req.url));
    writeRawError(socket, new ApiError(405, { detail: `method: CONNECT is not allowed on ${String(req.url).slice(0, 200)}`, code: 'method_not_allowed' }), env ?? DEFAULT_ENVIRONMENT, 'Allow: \r\n');
  });
  if (deployment.limits) {
    server.maxConnections = deployment.limits.maxConnections;
    server.timeout = deployment.limits.idleTimeoutMs; // a connection that sends nothing is closed, not kept for a minute
  }
}
