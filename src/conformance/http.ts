// The suite's own HTTP calls: one small client per account that records every exchange, counts requests and
// renders any exchange as a curl command with the token redacted.
import { redactAuthorization, redactText } from './redact.ts';

export interface RequestOptions {
  method?: string;
  /** Path relative to the base URL (an operation path with its parameters filled in). */
  path: string;
  /** Raw query string without `?`, written literally (the suite's vectors are literal query strings). */
  query?: string;
  /** A JSON body (serialised here), or raw bytes/text with an explicit content type in `headers`. */
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** `false` sends no Authorization header; a string sends that exact header value. Default: the account's token. */
  auth?: false | string;
}

export interface Exchange {
  method: string;
  url: string;
  path: string;
  query: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  headers: Record<string, string>;
  /** The body, or its first MAX_BODY_BYTES when `truncated`. */
  bytes: Buffer;
  text: string;
  /** The parsed body when it is JSON (and whole), else undefined. */
  json: any;
  /** How many body bytes the target sent (counted while reading, beyond what is kept); `bytes.length` when absent. */
  bodyLength?: number;
  /** The body was longer than MAX_BODY_BYTES: only its prefix is kept, and it was not parsed. */
  truncated?: boolean;
}

/**
 * The most of one answer the suite keeps (64 MiB would be enough for anything the description declares; 8 MiB covers
 * a page of 200 items of every list many times over). Beyond it the body is counted and dropped as it arrives, so a
 * target answering 200 MB costs the run 8 MiB, never its memory.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The methods a read-only run sends: none of them may change anything (RFC 9110 §9.2.1). */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A request a read-only run refused to send (its method could change data). The check is skipped, not failed. */
export class ReadOnlyRefused extends Error {}

/** The default bound of one request, from sending it to the last byte of its answer (`--request-timeout`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Counts requests across all clients of a run (checks report how many they made), and carries the run's limits to
 * every request: the timeout of one request and the signal that interrupts the run (SIGINT/SIGTERM).
 */
export class RequestCounter {
  total = 0;
  timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  signal?: AbortSignal;
  /**
   * Set while the run may not write: the target's origin, and the token endpoint (a POST there exchanges credentials
   * and writes nothing). One guard for every request of the run (the raw-socket checks call `refuseUnsafe` too), so
   * a check that forgets its `writes` need still cannot send a verb that could change data.
   */
  readOnly?: { origins: string[]; tokenUrl?: string };

  /** Throws ReadOnlyRefused for a method other than GET/HEAD/OPTIONS to the target in a read-only run. */
  refuseUnsafe(method: string, url: string): void {
    if (!this.readOnly || SAFE_METHODS.has(method.toUpperCase())) return;
    if (url.split('?')[0] === this.readOnly.tokenUrl || !this.readOnly.origins.includes(new URL(url).origin)) return;
    throw new ReadOnlyRefused(`a read-only run sends only GET, HEAD and OPTIONS to the target (${method} ${url} not sent)`);
  }
}

/** A request that got no complete answer within the run's timeout. */
export class RequestTimeout extends Error {}

/** A request cut short because the run was interrupted (SIGINT/SIGTERM). */
export class Interrupted extends Error {
  constructor(readonly signalName = 'interrupted') {
    super(`the run was interrupted (${signalName})`);
  }
}

/** A request that never reached the target (refused, unknown host, reset before an answer). */
export class Unreachable extends Error {}

export type TokenSource = () => Promise<string | undefined>;

export class HttpClient {
  /**
   * Sees every exchange as it arrives: the run judges it against the description there and keeps count of what it
   * created. Exchanges are not kept (a run of thousands of answers of any size would hold them all).
   */
  observe?: (x: Exchange) => void;

  constructor(
    readonly baseUrl: string,
    private readonly token: TokenSource,
    private readonly counter: RequestCounter,
    readonly label: string,
  ) {}

  /** The account's Authorization header value (for the raw-socket checks, which cannot go through fetch). */
  async authorization(): Promise<string | undefined> {
    const token = await this.token();
    return token ? `Bearer ${token}` : undefined;
  }

  async request(opts: RequestOptions): Promise<Exchange> {
    const method = (opts.method ?? 'GET').toUpperCase();
    const query = opts.query ?? '';
    const url = this.baseUrl.replace(/\/$/, '') + opts.path + (query ? `?${query}` : '');
    const headers: Record<string, string> = { accept: 'application/json, */*', ...(opts.headers ?? {}) };
    if (opts.auth === undefined) {
      const token = await this.token();
      if (token) headers.authorization = `Bearer ${token}`;
    } else if (typeof opts.auth === 'string') {
      headers.authorization = opts.auth;
    }
    let body: string | Buffer | undefined = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] ??= 'application/json';
    }
    const x = await send(method, url, headers, body, this.counter, opts.path, query);
    this.observe?.(x);
    return x;
  }
}

/** One request with global fetch; never throws for HTTP statuses, only for network failures. */
export async function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  counter: RequestCounter,
  path = new URL(url).pathname,
  query = new URL(url).search.slice(1),
): Promise<Exchange> {
  counter.refuseUnsafe(method, url);
  counter.total++;
  if (counter.signal?.aborted) throw new Interrupted(String(counter.signal.reason ?? 'interrupted'));
  const timeout = AbortSignal.timeout(counter.timeoutMs);
  // One signal covers the connection, the headers and the whole body: a target that stops half-way is bounded too.
  // A signal of the run (SIGINT/SIGTERM) cuts reads short; a write already sent is let finish (within the timeout), so
  // that what it created is in its answer and the cleanup undoes it, rather than left behind unseen.
  const interruptible = method === 'GET' || method === 'HEAD';
  const signal = counter.signal && interruptible ? AbortSignal.any([timeout, counter.signal]) : timeout;
  const failed = (err: unknown): Error => {
    if (interruptible && counter.signal?.aborted) return new Interrupted(String(counter.signal.reason ?? 'interrupted'));
    if (timeout.aborted) return new RequestTimeout(`${method} ${url}: no complete answer within ${counter.timeoutMs} ms (--request-timeout)`);
    const cause = (err as Error).cause as { code?: string; message?: string } | undefined;
    return new Unreachable(`${method} ${url}: ${cause?.code ?? ''}${cause?.code ? ' ' : ''}${cause?.message ?? (err as Error).message}`);
  };
  let res: Response;
  let read: BoundedBody;
  try {
    res = await fetch(url, { method, headers, body: body as BodyInit | undefined, redirect: 'manual', signal });
    read = await readBounded(res);
  } catch (err) {
    throw failed(err);
  }
  const { bytes, bodyLength, truncated } = read;
  const responseHeaders: Record<string, string> = {};
  res.headers.forEach((v, k) => (responseHeaders[k] = v));
  const text = bytes.toString('utf8');
  let json: unknown;
  if (!truncated && /json/i.test(responseHeaders['content-type'] ?? '')) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  const requestBody = typeof body === 'string' ? body : body ? `<${body.length} bytes>` : undefined;
  const exchange: Exchange = {
    method, url, path, query, requestHeaders: headers, requestBody,
    status: res.status, headers: responseHeaders, bytes, text, json, bodyLength, ...(truncated ? { truncated } : {}),
  };
  return exchange;
}

interface BoundedBody {
  bytes: Buffer;
  bodyLength: number;
  truncated: boolean;
}

/**
 * Read an answer's body keeping at most MAX_BODY_BYTES. Past the bound the rest is not read: the body is cancelled
 * (the connection closes), and its length is the declared Content-Length when there is one, else what arrived.
 */
async function readBounded(res: Response, max = MAX_BODY_BYTES): Promise<BoundedBody> {
  if (!res.body) return { bytes: Buffer.alloc(0), bodyLength: 0, truncated: false };
  const chunks: Buffer[] = [];
  let kept = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (kept + value.byteLength > max) {
      chunks.push(Buffer.from(value.buffer, value.byteOffset, max - kept));
      const declared = Number(res.headers.get('content-length'));
      const arrived = kept + value.byteLength;
      await reader.cancel().catch(() => undefined);
      return { bytes: Buffer.concat(chunks), bodyLength: Number.isFinite(declared) && declared > arrived ? declared : arrived, truncated: true };
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    kept += value.byteLength;
  }
  return { bytes: Buffer.concat(chunks), bodyLength: kept, truncated: false };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The exchange's request as a curl command: `-g` so brackets in filters are literal, the token redacted. */
export function toCurl(x: Pick<Exchange, 'method' | 'url' | 'requestHeaders' | 'requestBody'>): string {
  const parts = ['curl', '-sS', '-g'];
  if (x.method !== 'GET') parts.push('-X', x.method);
  parts.push(shellQuote(x.url));
  for (const [k, v] of Object.entries(x.requestHeaders)) {
    if (k === 'accept') continue;
    const value = k.toLowerCase() === 'authorization' ? redactAuthorization(v) : v;
    parts.push('-H', shellQuote(`${k}: ${value}`));
  }
  if (x.requestBody !== undefined) {
    if (/^<\d+ bytes>$/.test(x.requestBody)) parts.push('--data-binary', shellQuote(`@file ${x.requestBody}`));
    else parts.push('--data-raw', shellQuote(redactText(x.requestBody)));
  }
  return parts.join(' ');
}

/** A short, redacted excerpt of the response for a failure report. */
export function excerpt(x: Pick<Exchange, 'status' | 'headers' | 'text'>, max = 400): string {
  const env = x.headers['x-careapi-env'];
  const head = `HTTP ${x.status} ${x.headers['content-type'] ?? '(no content type)'}${env ? ` X-CareAPI-Env: ${env}` : ' (no X-CareAPI-Env)'}`;
  const body = redactText(x.text);
  return `${head}\n${body.length > max ? `${body.slice(0, max)}…` : body}`;
}
