// Answers written straight to the socket, for requests Node's HTTP parser refuses before the front sees them
// (over-long URL or headers, malformed request line or header) and for CONNECT, which Node hands to no handler:
// in the envelope with X-CareAPI-Env and Connection: close, as the sandbox does (D-70).
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { byteSize, type ServiceLimits } from '../spec/index.ts';
import { envelope, errorObject, newRequestId } from './envelope.ts';

type ParserError = Error & { code?: string };

/** The detail of a 431: the request-head limit of x-care-limits (D-70, D-100). */
export const headTooLargeDetail = (limits: ServiceLimits) => `header: the request line and headers are too large (at most ${byteSize(limits.requestHeadBytes)} together)`;

function statusOf(error: ParserError, limits: ServiceLimits): [number, string, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, headTooLargeDetail(limits), 'header_too_large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request: not received completely in time', 'request_timeout'];
    default:
      return [400, `request: malformed HTTP request (${error.message.replace(/^Parse Error: /, '')})`, 'malformed_request'];
  }
}

export function writeRaw(socket: Duplex, status: number, detail: string, code: string, envValue: string, extra = ''): void {
  const body = JSON.stringify({ ...envelope([errorObject(status, detail, code)]), meta: { requestId: newRequestId() } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-CareAPI-Env: ${envValue}\r\n` +
      'Access-Control-Allow-Origin: *\r\n' +
      extra +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** Listener for the server's `clientError` event; a 431 names the request-head limit of x-care-limits (D-100). */
export function clientErrorAnswer(envValue: string, limits: ServiceLimits) {
  return (error: ParserError, socket: Duplex): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, detail, code] = statusOf(error, limits);
    writeRaw(socket, status, detail, code, envValue);
  };
}

/** Listener for the server's `connect` event: CONNECT is a method of no operation, so 405. */
export function connectAnswer(envValue: string) {
  return (req: { url?: string }, socket: Duplex): void => {
    writeRaw(socket, 405, `method: CONNECT is not allowed on ${req.url ?? ''}`, 'method_not_allowed', envValue);
  };
}
