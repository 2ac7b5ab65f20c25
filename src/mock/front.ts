// The thin front before each Prism: checks the list grammar itself (Prism cannot), forwards everything else, and
// makes every answer look like the service's: error envelope, one error per problem, X-CareAPI-Env always set.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseListQuery } from '../grammar/index.ts';
import type { CareSpec, OperationSpec } from '../spec/index.ts';
import { fromForeignBody, fromGrammarErrors, fromViolations, isEnvelope, serviceStatus, type ErrorEnvelope } from './envelope.ts';

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
}

function routes(spec: CareSpec): RouteMatcher[] {
  return spec.operations.map((operation) => {
    const source = operation.path
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    return { operation, pattern: new RegExp(`^${source}$`) };
  });
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

// Not forwarded either way. fetch decodes compressed bodies, so encodings are dropped rather than passed on wrongly.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'host',
  'upgrade',
  'accept-encoding',
  'content-encoding',
]);

export interface MockFrontOptions {
  /** The environment bundle Prism serves. */
  spec: CareSpec;
  /** Base URL of that Prism, e.g. http://127.0.0.1:4010. */
  prismUrl: string;
}

export function createMockFront(options: MockFrontOptions): Server {
  const { spec, prismUrl } = options;
  const envValue = envHeaderValue(spec);
  const prefix = serverPathPrefix(spec);
  const matchers = routes(spec);

  const send = (res: ServerResponse, status: number, body: ErrorEnvelope, extra: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...CORS,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      [ENV_HEADER]: envValue,
      ...extra,
    });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const path = prefix && (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) ? url.pathname.slice(prefix.length) || '/' : url.pathname;
    const method = (req.method ?? 'GET').toLowerCase();
    const operation = matchers.find((m) => m.operation.method === method && m.pattern.test(path))?.operation;

    // Authentication comes first at the service; Prism answers the 401 itself.
    if (operation?.list && req.headers.authorization) {
      const { errors } = parseListQuery(url.searchParams, operation.list, spec.operators);
      if (errors.length > 0) return send(res, 400, fromGrammarErrors(errors));
    }

    const body = await readBody(req);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
    }
    const search = operation?.list ? prismQuery(url.searchParams) : url.searchParams.toString();
    const answer = await fetch(`${prismUrl}${path}${search ? `?${search}` : ''}`, {
      method: req.method,
      headers,
      body: body.length > 0 ? new Uint8Array(body) : undefined,
    });
    const bytes = Buffer.from(await answer.arrayBuffer());
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

    const out: Record<string, string | string[]> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== ENV_HEADER.toLowerCase()) out[name] = value;
    });
    out[ENV_HEADER] = envValue;
    out['content-length'] = String(bytes.length); // the whole body is here: no need for chunked
    res.writeHead(status, out);
    res.end(bytes);
  };

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // The mock itself failed (Prism gone?): still answer in the envelope, never hang.
      if (!res.headersSent) {
        send(res, 502, { meta: {}, errors: [{ status: '502', title: 'Bad Gateway', detail: `mock: ${String(error)}`, code: 'mock_error' }] });
      } else res.destroy();
    });
  });
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

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
