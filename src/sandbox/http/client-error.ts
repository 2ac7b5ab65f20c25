// Answers to requests Node's HTTP parser refuses before any handler sees them (over-long URL or headers, malformed
// request line or header, timeout): in the error envelope with X-CareAPI-Env like every other answer (seed §1, D-70).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { byteSize, type ServiceLimits } from '../../spec/index.ts';
import type { Environment } from '../../spec/types.ts';
import { ApiError, envHeader, errorBody, newRequestId, statusTitle } from './envelope.ts';
import type { Problem } from './envelope.ts';

/** The start of the last request line each connection sent: a timeout (408) carries no bytes of its own. */
const lastRequestLine = new WeakMap<Duplex, Buffer>();

/** Remember, per connection, where its latest request began, so a 408 answers in that request's environment. */
export function trackRequestLines(server: Server): void {
  server.on('connection', (socket: Socket) => {
    socket.on('data', (chunk: Buffer) => {
      // a chunk that begins with a method and a space is (almost always) the start of a request
      if (/^[A-Z]{3,7} /.test(chunk.subarray(0, 8).toString('latin1'))) lastRequestLine.set(socket, chunk.subarray(0, 2048));
    });
  });
}

/** What Node's `clientError` event hands over: an llhttp error with the bytes it could not parse. */
type ParserError = Error & { code?: string; rawPacket?: Buffer };

/** The environment is read from the request target when its first line got that far; otherwise production (D-70). */
export const DEFAULT_ENVIRONMENT: Environment = 'production';

function environmentOfRaw(rawPacket: Buffer | undefined, environmentOf: EnvironmentOf): Environment {
  // The request line is `METHOD SP target SP version`; only its target is wanted, and only as far as it arrived.
  const start = rawPacket?.subarray(0, 2048).toString('latin1') ?? '';
  const target = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\S+)/.exec(start)?.[1];
  if (!target) return DEFAULT_ENVIRONMENT;
  const path = target.startsWith('/') ? target : /^https?:\/\/[^/]*(\/\S*)?/i.exec(target)?.[1] ?? '';
  return environmentOf(path.split('?')[0]) ?? DEFAULT_ENVIRONMENT;
}

/** The 431 of a request head over `requestHeadBytes` of x-care-limits (D-70, D-100). */
export function headTooLarge(limits: ServiceLimits): ApiError {
  return new ApiError(431, { detail: `header: the request line and headers are too large (at most ${byteSize(limits.requestHeadBytes)} together)`, code: 'header_too_large' });
}

function statusAndProblem(error: ParserError, limits: ServiceLimits): [number, Problem] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, headTooLarge(limits).problems[0]];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, { detail: 'request: not received completely in time', code: 'request_timeout' }];
    default:
      return [400, { detail: `request: malformed HTTP request (${error.message.replace(/^Parse Error: /, '')})`, code: 'malformed_request' }];
  }
}

/** The environment of a path by its base path (the router's, from the description), or null. */
export type EnvironmentOf = (pathname: string) => Environment | null;

/** One raw HTTP/1.1 error answer in the envelope, then the connection is closed (also CONNECT's, D-114). */
export function writeRawError(socket: Duplex, apiError: ApiError, env: Environment, extra = ''): void {
  const body = JSON.stringify(errorBody(newRequestId(), apiError));
  socket.end(
    `HTTP/1.1 ${apiError.status} ${statusTitle(apiError.status)}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-CareAPI-Env: ${envHeader(env)}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      extra +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/**
 * Listener for the http server's `clientError` event: one raw HTTP/1.1 answer, then the connection is closed. The
 * limits name the request-head size of x-care-limits in a 431 (D-100).
 */
export const answerClientError = (environmentOf: EnvironmentOf, limits: ServiceLimits) => (error: ParserError, socket: Duplex): void => {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, problem] = statusAndProblem(error, limits);
  writeRawError(socket, new ApiError(status, problem), environmentOfRaw(error.rawPacket ?? lastRequestLine.get(socket), environmentOf));
};
