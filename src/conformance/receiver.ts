// The suite's webhook receiver: an HTTP server that records every delivery and lets a check wait, boundedly, for
// the delivery it expects (a promise resolved on arrival; a timeout is a failure, never a sleep loop).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Interrupted } from './http.ts';

/** The largest delivery the receiver keeps (a bound of the suite's memory, D-108; a case event is a few KiB). */
const MAX_DELIVERY_BYTES = 4 * 1024 * 1024;

export interface Delivery {
  /** The receiver path the subscription was given (one per subscription). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  /** Arrival order across the whole receiver. */
  seq: number;
  /** When it arrived (ms since the epoch). */
  at: number;
}

interface Waiter {
  match: (d: Delivery) => boolean;
  resolve: (d: Delivery) => void;
}

export class Receiver {
  readonly deliveries: Delivery[] = [];
  private waiters: Waiter[] = [];
  private server?: Server;
  private baseUrl?: string;
  private starting?: Promise<string>;
  private paths = 0;
  /** Paths that answer otherwise than 204 (a check of how the service takes a refusal, e.g. 410 Gone). */
  private readonly answers = new Map<string, { status: number; headers: Record<string, string> }>();

  /** `signal`: the run's interruption; a wait in progress ends at once when it fires. */
  constructor(private readonly signal?: AbortSignal) {}

  /** Start listening (once) on `listen` (`host:port`); answers the URL deliveries should go to. */
  start(listen: string, publicUrl?: string): Promise<string> {
    this.starting ??= new Promise((resolve, reject) => {
      const [host, port] = splitHostPort(listen);
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        req.on('data', (c: Buffer) => {
          size += c.length;
          // Bounded memory (D-108): no event payload comes near this; a larger body is refused, not kept.
          if (size > MAX_DELIVERY_BYTES) {
            res.writeHead(413).end();
            req.destroy();
            return;
          }
          chunks.push(c);
        });
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          const delivery: Delivery = { path: req.url ?? '/', headers: req.headers, body, json, seq: this.deliveries.length, at: Date.now() };
          this.deliveries.push(delivery);
          const answer = this.answers.get(delivery.path);
          res.writeHead(answer?.status ?? 204, answer?.headers).end();
          for (const w of this.waiters.filter((w) => w.match(delivery))) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(delivery);
          }
        });
      });
      server.on('error', reject);
      server.listen(port, host, () => {
        this.server = server;
        const actual = (server.address() as AddressInfo).port;
        this.baseUrl = (publicUrl ?? `http://${host}:${actual}`).replace(/\/$/, '');
        resolve(this.baseUrl);
      });
    });
    return this.starting;
  }

  /** A fresh path for one subscription, so its deliveries can be told apart. */
  async newUrl(listen: string, publicUrl?: string): Promise<{ url: string; path: string }> {
    const base = await this.start(listen, publicUrl);
    const path = `/hooks/${++this.paths}-${Math.random().toString(36).slice(2, 8)}`;
    return { url: base + path, path };
  }

  /** Make deliveries to `path` answered with `status` (and `headers`) from now on. */
  answer(path: string, status: number, headers: Record<string, string> = {}): void {
    this.answers.set(path, { status, headers });
  }

  /** The first delivery (already received or still to come) that matches, or an Error after `timeoutMs`. */
  waitFor(match: (d: Delivery) => boolean, timeoutMs: number, what: string): Promise<Delivery> {
    const found = this.deliveries.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const signal = this.signal;
      const stop = (error: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(error);
      };
      const onAbort = () => stop(new Interrupted(String(signal?.reason ?? 'interrupted')));
      const timer = setTimeout(() => stop(new Error(`no delivery within ${timeoutMs} ms: ${what}`)), timeoutMs);
      const waiter: Waiter = {
        match,
        resolve: (d) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(d);
        },
      };
      this.waiters.push(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  at(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  }
}

function splitHostPort(listen: string): [string, number] {
  const i = listen.lastIndexOf(':');
  if (i < 0) return [listen || '127.0.0.1', 0];
  return [listen.slice(0, i) || '127.0.0.1', Number(listen.slice(i + 1) || 0)];
}
