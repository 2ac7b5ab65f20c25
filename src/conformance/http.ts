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
  bytes: Buffer;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: any;
}

/** Counts requests across all clients of a run; checks read it to report how many requests they made. */
export class RequestCounter {
  total = 0;
}

export type TokenSource = () => Promise<string | undefined>;

export class HttpClient {
  /** Every exchange, in order; the operations area validates them all against the description. */
  readonly log: Exchange[] = [];

  constructor(
    readonly baseUrl: string,
    private readonly token: TokenSource,
    private readonly counter: RequestCounter,
    readonly label: string,
  ) {}

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
    return send(method, url, headers, body, this.counter, this.log, opts.path, query);
  }
}

/** One request with global fetch; never throws for HTTP statuses, only for network failures. */
export async function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  counter: RequestCounter,
  log?: Exchange[],
  path = new URL(url).pathname,
  query = new URL(url).search.slice(1),
): Promise<Exchange> {
  counter.total++;
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
  } catch (err) {
    throw new Error(`${method} ${url}: ${(err as Error).cause ?? (err as Error).message}`);
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  const responseHeaders: Record<string, string> = {};
  res.headers.forEach((v, k) => (responseHeaders[k] = v));
  const text = bytes.toString('utf8');
  let json: unknown;
  if (/json/i.test(responseHeaders['content-type'] ?? '')) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  const requestBody = typeof body === 'string' ? body : body ? `<${body.length} bytes>` : undefined;
  const exchange: Exchange = {
    method, url, path, query, requestHeaders: headers, requestBody,
    status: res.status, headers: responseHeaders, bytes, text, json,
  };
  log?.push(exchange);
  return exchange;
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
