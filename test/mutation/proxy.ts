// A fault-injecting HTTP proxy between the conformance suite and the reference sandbox. One fault at a time,
// switched per run; every fault names the suite area that must catch it. The proxy also sits on the webhook path:
// subscription URLs are rewritten to pass through it (and rewritten back in answers), so deliveries can be faulted.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxyRequest {
  method: string;
  /** Path and query, e.g. `/care/v0/sandbox/cases?page[size]=2`. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Delivery {
  headers: Record<string, string>;
  body: Buffer;
}

export interface Fault {
  name: string;
  /** The suite area that must fail when this fault is on. */
  area: string;
  description: string;
  request?: (req: ProxyRequest, proxy: FaultProxy) => ProxyRequest | ProxyResponse | Promise<ProxyRequest | ProxyResponse>;
  response?: (res: ProxyResponse, req: ProxyRequest, proxy: FaultProxy) => ProxyResponse | Promise<ProxyResponse>;
  delivery?: (d: Delivery) => Delivery;
  /** Change the receiver's answer to a delivery before the target sees it; `resend` delivers it again. */
  deliveryAnswer?: (res: ProxyResponse, resend: () => Promise<ProxyResponse>) => ProxyResponse | Promise<ProxyResponse>;
}

const DELIVER = '/__deliver/';

/** The request heads the proxy reads: well past the target's own limit (x-care-limits.requestHeadBytes). */
const RAW_HEAD_MAX = 256 * 1024;

/** Requests fetch cannot send as they came: no Host, a target that is not a path, a head near the target's limit. */
const needsRaw = (req: ProxyRequest) =>
  req.headers.host === undefined || !req.url.startsWith('/') || Buffer.byteLength(req.url) + Object.entries(req.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0) > 8192;

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** JSON body helpers for faults. */
export function jsonOf(res: { headers: Record<string, string>; body: Buffer }): any {
  if (!/json/.test(res.headers['content-type'] ?? '')) return undefined;
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function withJson(res: ProxyResponse, json: unknown): ProxyResponse {
  return { ...res, body: Buffer.from(JSON.stringify(json)) };
}

export class FaultProxy {
  fault: Fault | null = null;
  /** The last bearer token the target accepted, for faults that pretend a refused request was fine. */
  lastGoodAuthorization?: string;
  private server?: Server;
  origin = '';

  constructor(readonly target: string) {}

  async start(): Promise<string> {
    // Requests without Host and heads past Node's 16 KiB reach the handler (Node would answer them with its own bare
    // 400 or 431), and what Node cannot parse at all is relayed as it came: the target's own answer is judged (D-70,
    // D-89, D-100).
    this.server = createServer({ requireHostHeader: false, maxHeaderSize: RAW_HEAD_MAX }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const incoming: ProxyRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: flatHeaders(req.headers), body: Buffer.concat(chunks) };
        this.handle(incoming).then(
          (out) => {
            const headers = { ...out.headers };
            delete headers['content-length'];
            delete headers['transfer-encoding'];
            delete headers['connection'];
            delete headers['keep-alive'];
            res.writeHead(out.status, headers).end(out.body);
          },
          (err) => res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${(err as Error).message}`),
        );
      });
    });
    this.server.on('clientError', (error: Error & { rawPacket?: Buffer }, socket: Socket) => this.relayUnparsed(error.rawPacket, socket));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this.origin;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  /** Send a request to the target as is (faults use it to fetch what a broken server would have answered). */
  async forward(req: ProxyRequest, base = this.target): Promise<ProxyResponse> {
    const headers = { ...req.headers };
    delete headers.host;
    delete headers['content-length'];
    delete headers.connection;
    const r = await fetch(base + req.url, {
      method: req.method,
      headers,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : (req.body as unknown as BodyInit),
      redirect: 'manual',
    });
    const out: Record<string, string> = {};
    r.headers.forEach((v, k) => (out[k] = v));
    return { status: r.status, headers: out, body: Buffer.from(await r.arrayBuffer()) };
  }

  /**
   * Send a request to the target over a socket of its own, its request line and headers as they came (a Host header
   * only if it had one): fetch always sends Host, adds headers of its own and takes only URLs.
   */
  forwardRaw(req: ProxyRequest): Promise<ProxyResponse> {
    const headers = Object.entries(req.headers).filter(([k]) => !['connection', 'content-length', 'transfer-encoding'].includes(k));
    const head = [`${req.method} ${req.url} HTTP/1.1`, ...headers.map(([k, v]) => `${k}: ${v}`), 'Connection: close', ...(req.body.length ? [`Content-Length: ${req.body.length}`] : [])].join('\r\n');
    return this.exchangeRaw(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), req.body])).then((raw) => {
      const split = raw.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = raw.subarray(0, split < 0 ? raw.length : split).toString('latin1').split('\r\n');
      const out: Record<string, string> = {};
      for (const l of lines) out[l.slice(0, l.indexOf(':')).trim().toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      let body = split < 0 ? Buffer.alloc(0) : raw.subarray(split + 4);
      if (/chunked/i.test(out['transfer-encoding'] ?? '')) {
        const parts: Buffer[] = [];
        for (let rest = body; ; ) {
          const eol = rest.indexOf('\r\n');
          const size = parseInt(rest.subarray(0, eol).toString('latin1'), 16);
          if (!(size > 0)) break;
          parts.push(rest.subarray(eol + 2, eol + 2 + size));
          rest = rest.subarray(eol + 2 + size + 2);
        }
        body = Buffer.concat(parts);
      }
      return { status: Number(statusLine.split(' ')[1]), headers: out, body };
    });
  }

  /** Bytes to the target on a connection of its own; its answer's bytes when it closes the connection. */
  private exchangeRaw(bytes: Buffer): Promise<Buffer> {
    const url = new URL(this.target);
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks)));
    });
  }

  /** A request Node's parser refused: its bytes go to the target as they came, and the target's answer back. */
  private relayUnparsed(rawPacket: Buffer | undefined, socket: Socket) {
    if (!socket.writable) return;
    const fail = () => socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
    if (!rawPacket?.length) return fail();
    this.exchangeRaw(rawPacket).then((answer) => socket.end(answer), fail);
  }

  private async handle(req: ProxyRequest): Promise<ProxyResponse> {
    if (req.url.startsWith(DELIVER)) return this.deliver(req);
    const rewritten = this.rewriteWebhookUrls(req);
    let current: ProxyRequest | ProxyResponse = rewritten;
    if (this.fault?.request) current = await this.fault.request(rewritten, this);
    if ('status' in current) return current;
    let res = needsRaw(current) ? await this.forwardRaw(current) : await this.forward(current);
    this.remember(current, res);
    if (this.fault?.response) res = await this.fault.response(res, current, this);
    return this.unrewriteWebhookUrls(res);
  }

  private remember(req: ProxyRequest, res: ProxyResponse) {
    if (res.status < 300 && req.headers.authorization?.startsWith('Bearer ')) this.lastGoodAuthorization = req.headers.authorization;
  }

  /** Subscriptions get a URL through the proxy, so the delivery faults can act on deliveries. */
  private rewriteWebhookUrls(req: ProxyRequest): ProxyRequest {
    if (!/\/webhooks(\/[^/?]+)?(\?|$)/.test(req.url) || !/json/.test(req.headers['content-type'] ?? '')) return req;
    try {
      const body = JSON.parse(req.body.toString('utf8'));
      // A URL with user information is left as it is: the target must refuse it (D-16), and a rewritten one would not say it.
      if (typeof body?.url !== 'string' || /^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(body.url)) return req;
      body.url = `${this.origin}${DELIVER}${Buffer.from(body.url).toString('base64url')}`;
      return { ...req, body: Buffer.from(JSON.stringify(body)) };
    } catch {
      return req;
    }
  }

  private unrewriteWebhookUrls(res: ProxyResponse): ProxyResponse {
    const text = res.body.toString('utf8');
    const prefix = `${this.origin}${DELIVER}`;
    if (!text.includes(prefix)) return res;
    const restored = text.replace(new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}([A-Za-z0-9_-]+)`, 'g'), (_, b64) => Buffer.from(b64, 'base64url').toString('utf8'));
    return { ...res, body: Buffer.from(restored) };
  }

  private async deliver(req: ProxyRequest): Promise<ProxyResponse> {
    const target = Buffer.from(req.url.slice(DELIVER.length).split('?')[0], 'base64url').toString('utf8');
    let d: Delivery = { headers: { ...req.headers }, body: req.body };
    if (this.fault?.delivery) d = this.fault.delivery(d);
    const url = new URL(target);
    const send = () => this.forward({ method: req.method, url: url.pathname + url.search, headers: d.headers, body: d.body }, url.origin);
    const answer = await send();
    return this.fault?.deliveryAnswer ? this.fault.deliveryAnswer(answer, send) : answer;
  }
}
