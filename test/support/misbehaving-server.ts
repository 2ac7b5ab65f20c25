// Small real HTTP servers that misbehave on purpose, for tests of the client and the conformance CLI (issue 40):
// each listens on 127.0.0.1 port 0 and answers by route with one of the behaviours below (text or HTML where JSON is
// expected, truncated JSON, a connection cut mid-body, an empty 2xx, no answer at all, ...).
//
//   const server = await startMisbehavingServer({
//     '/care/v0/sandbox/cases': behave.text(200, 'not json'),
//     '/auth/v2/oauth/token': behave.silent(),            // accepts the request, never answers
//   }, behave.json(200, { meta: {}, data: {} }));        // any other path
//   ... server.url, server.requests ...
//   await server.close();                                // also ends connections left hanging
//
// `startSilentServer()` is lower still: a TCP server that accepts connections and never writes a byte (not even HTTP).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';

/** One request the server received (body read in full, except for behaviours that never read it). */
export interface SeenRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** How to answer one request. `body` is the request body, read before the behaviour runs. */
export type Behaviour = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void | Promise<void>;

/** Routes by exact pathname (query ignored); a function chooses per request. */
export type Routes = Record<string, Behaviour> | ((req: IncomingMessage, body: Buffer) => Behaviour);

export interface MisbehavingServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request received, in order. */
  requests: SeenRequest[];
  /** Stops listening and destroys every open connection (those a `silent` behaviour left hanging too). */
  close(): Promise<void>;
}

const ENV_HEADER = { 'X-CareAPI-Env': 'Sandbox' };

/** The behaviours. Every answer carries `X-CareAPI-Env: Sandbox` unless said otherwise. */
export const behave = {
  /** A well-formed JSON answer. */
  json(status: number, body: unknown, headers: Record<string, string> = {}): Behaviour {
    return (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...ENV_HEADER, ...headers });
      res.end(JSON.stringify(body));
    };
  },
  /** Text (or anything) with the given content type, by default text/plain. */
  text(status: number, text: string, contentType = 'text/plain; charset=utf-8'): Behaviour {
    return (_req, res) => {
      res.writeHead(status, { 'content-type': contentType, ...ENV_HEADER });
      res.end(text);
    };
  },
  /** An HTML page, as a proxy or load balancer in front of the service answers. */
  html(status = 200): Behaviour {
    return behave.text(status, '<!doctype html><html><body><h1>Gateway</h1><p>Please sign in.</p></body></html>', 'text/html');
  },
  /** Complete HTTP answer whose JSON text stops half-way (`{"meta":{"page":`), declared as application/json. */
  truncatedJson(status = 200): Behaviour {
    return behave.text(status, '{"meta":{"page":{"number":1,', 'application/json');
  },
  /** Headers and part of the body, then the connection is destroyed (Content-Length promises more). */
  cutConnection(status = 200): Behaviour {
    return (_req, res) => {
      const part = '{"meta":{},"data":[{"id":"CS00';
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': '4096', ...ENV_HEADER });
      res.write(part, () => res.socket?.destroy());
    };
  },
  /** Headers and the first bytes of the body, then nothing more: the connection stays open until `close()`. */
  stallBody(status = 200): Behaviour {
    return (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...ENV_HEADER });
      res.write('{"meta":{},"data":[');
    };
  },
  /** A 2xx (by default 200) with an empty body: `Content-Length: 0`, or chunked with no chunk when `chunked`. */
  empty(status = 200, options: { chunked?: boolean; contentType?: string } = {}): Behaviour {
    return (_req, res) => {
      const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json', ...ENV_HEADER };
      if (!options.chunked) headers['content-length'] = '0';
      res.writeHead(status, headers);
      if (options.chunked) res.write('');
      res.end();
    };
  },
  /**
   * A 200 JSON answer of `megabytes` MiB: a list envelope whose one item carries a padding string, written a MiB at a
   * time as the client reads (never held whole by the server).
   */
  huge(megabytes: number, headers: Record<string, string> = {}): Behaviour {
    return (_req, res) => {
      const head = '{"meta":{"page":{"number":1,"size":50,"count":1,"totalCount":1}},"data":[{"id":"CS0000001","pad":"';
      const tail = '"}]}';
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(head.length + megabytes * chunk.length + tail.length), ...ENV_HEADER, ...headers });
      res.write(head);
      let sent = 0;
      const more = () => {
        while (sent < megabytes) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end(tail);
      };
      res.on('close', () => (sent = megabytes + 1)); // the client hung up: stop writing
      more();
    };
  },
  /** Accepts the request and never answers (the connection stays open until `close()`). */
  silent(): Behaviour {
    return () => undefined;
  },
  /** Destroys the connection without answering anything. */
  hangUp(): Behaviour {
    return (req) => void req.socket.destroy();
  },
  /** Answers with the first behaviour the first time, the second after, ... (the last one repeats). */
  sequence(...steps: Behaviour[]): Behaviour {
    let i = 0;
    return (req, res, body) => steps[Math.min(i++, steps.length - 1)](req, res, body);
  },
  /**
   * A list endpoint over `items` whose `meta.page` is rewritten by `meta` (for lies: missing fields, wrong totals, a
   * string number, the same page again). `meta` gets the honest page and the page number and size asked for.
   */
  list(
    items: unknown[],
    meta: (honest: { number: number; size: number; count: number; totalCount: number }, asked: { number: number; size: number }) => unknown = (h) => h,
    options: { data?: (honestSlice: unknown[], asked: { number: number; size: number }) => unknown[] } = {},
  ): Behaviour {
    return (req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      const number = Number(query.get('page[number]') ?? 1);
      const size = Number(query.get('page[size]') ?? 50);
      const honestSlice = items.slice((number - 1) * size, number * size);
      const slice = options.data ? options.data(honestSlice, { number, size }) : honestSlice;
      const page = meta({ number, size, count: slice.length, totalCount: items.length }, { number, size });
      behave.json(200, { meta: { page }, data: slice })(req, res, Buffer.alloc(0));
    };
  },
};

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

function listen(server: Server | TcpServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

/**
 * Starts a server that answers each request by `routes` (exact pathname), else by `fallback` (default: 404 JSON).
 */
export async function startMisbehavingServer(routes: Routes, fallback: Behaviour = behave.json(404, { meta: {}, errors: [] })): Promise<MisbehavingServer> {
  const requests: SeenRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
    const behaviour =
      typeof routes === 'function' ? routes(req, body) : (routes[new URL(req.url ?? '/', 'http://x').pathname] ?? fallback);
    try {
      await behaviour(req, res, body);
    } catch {
      res.socket?.destroy();
    }
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface SilentServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** A TCP server that accepts every connection and never sends a byte: the request hangs until the client gives up. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.resume(); // read and drop what the client sends
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface StallingProxy {
  url: string;
  /** Requests forwarded before the proxy stopped answering. */
  readonly forwarded: number;
  close(): Promise<void>;
}

/**
 * A proxy in front of `target` that forwards the first `answered` requests and then holds every request without an
 * answer until `close()`: a target that stops answering mid-run (a hung upstream, a gateway that lost its backend).
 */
export async function startStallingProxy(target: string, answered: number): Promise<StallingProxy> {
  let forwarded = 0;
  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    if (forwarded >= answered) return; // held: no answer
    forwarded++;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !['host', 'connection', 'content-length'].includes(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    try {
      const r = await fetch(target + (req.url ?? '/'), { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : (body as unknown as BodyInit), redirect: 'manual' });
      const out: Record<string, string> = {};
      r.headers.forEach((v, k) => (['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding'].includes(k) ? undefined : (out[k] = v)));
      res.writeHead(r.status, out).end(Buffer.from(await r.arrayBuffer()));
    } catch {
      res.socket?.destroy();
    }
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    get forwarded() {
      return forwarded;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
