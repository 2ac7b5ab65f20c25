// One delivery attempt over HTTP (D-17): POST the payload, answer the status and Retry-After. The HTTP client's
// connection step (`createConnection`) resolves the host and checks its addresses (delivery-target.ts, D-94) before
// a socket exists; one connection per attempt, no pool, so no socket outlives the check that allowed it.
import { request as httpRequest } from 'node:http';
import type { ClientRequestArgs } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkedAddresses } from './delivery-target.ts';
import type { Connector, Resolver, TargetPolicy } from './delivery-target.ts';

export interface PostOptions {
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  policy: TargetPolicy;
  resolve: Resolver;
  connect: Connector;
}

export interface PostAnswer {
  status: number;
  retryAfter: string | null;
}

/** The attempt took longer than its timeout (resolution, connection and the answer's headers together). */
export class DeliveryTimeout extends Error {}

export function postDelivery(url: string, options: PostOptions): Promise<PostAnswer> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(target.port) || (secure ? 443 : 80);
  const signal = AbortSignal.timeout(options.timeoutMs);
  const createConnection = ((_args: unknown, created: (error: Error | null, socket?: unknown) => void) => {
    checkedAddresses(hostname, options.policy, options.resolve)
      .then((addresses) => {
        if (signal.aborted) throw new DeliveryTimeout();
        return options.connect({ hostname, port, secure, addresses });
      })
      .then((socket) => created(null, socket), (error: Error) => created(error));
    return undefined; // the socket comes through `created`, once the addresses are checked
  }) as unknown as ClientRequestArgs['createConnection'];
  return new Promise<PostAnswer>((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(
      target,
      { method: 'POST', headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) }, signal, createConnection },
      (response) => {
        const retryAfter = response.headers['retry-after'];
        resolve({ status: response.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
        response.destroy(); // the answer's body is not read
      },
    );
    request.on('error', (error) => reject(signal.aborted ? new DeliveryTimeout() : error));
    request.end(options.body);
  });
}
