// The size of a request's head as the limit `requestHeadBytes` of x-care-limits counts it (D-100): the request line and
// each header field as `name: value`, each ended by CRLF, and the blank line. Node's parser refuses a head some bytes
// past its `maxHeaderSize` (its count is not this one); a server checks this exact count on what got through.
import type { IncomingMessage } from 'node:http';

export function requestHeadBytes(req: IncomingMessage): number {
  let size = Buffer.byteLength(`${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`, 'latin1') + 2;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) size += Buffer.byteLength(`${raw[i]}: ${raw[i + 1]}\r\n`, 'latin1');
  return size;
}
