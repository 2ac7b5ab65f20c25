// HTTP as the outside world sends it: bytes on a socket, and the first answer read back as it came (status line,
// headers, body), without a client library that would refuse or repair what the test means to send.
import { connect } from 'node:net';
import type { Socket } from 'node:net';

export interface RawAnswer {
  /** 0 when nothing parsable came back (closed, reset, timed out). */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** What happened when there was no answer. */
  failure?: string;
}

/** Parse the first final (non-1xx) answer in `text`, or undefined while it is incomplete. */
function parseAnswer(text: string): RawAnswer | undefined {
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    if (status >= 100 && status < 200) continue; // an interim answer (100 Continue)
    const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
    if (length !== undefined && Buffer.byteLength(rest, 'latin1') < length) return undefined;
    return { status, headers, body: Buffer.from(length === undefined ? rest : rest.slice(0, length), 'latin1').toString('utf8') };
  }
}

/** Send `request` (string in latin1, or bytes) and resolve with the first answer; the connection is then closed. */
export function rawExchange(port: number, request: string | Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let settled = false;
    const done = (answer: RawAnswer) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done({ status: 0, headers: {}, body: '', failure: 'no answer in time' }));
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const answer = parseAnswer(received);
      if (answer) done(answer);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => done({ status: 0, headers: {}, body: '', failure: error.code ?? error.message }));
    socket.on('close', () => done(parseAnswer(received + '\r\n\r\n') ?? { status: 0, headers: {}, body: '', failure: 'closed without an answer' }));
    socket.write(typeof request === 'string' ? Buffer.from(request, 'latin1') : request);
  });
}

/**
 * A request sent in two steps: `open` writes the head with `Expect: 100-continue` and resolves once the server has
 * answered 100 (it has parsed the head and started the handler), `finish` sends the body and resolves with the answer.
 * Between the two the test may send other requests: the interleaving of "headers, another write, then the body".
 */
export async function heldRequest(port: number, head: string, body: Buffer): Promise<{ finish(): Promise<RawAnswer> }> {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  let onData: () => void = () => undefined;
  socket.on('data', (chunk) => {
    received += chunk.toString('latin1');
    onData();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    onData = () => {
      if (/^HTTP\/1\.1 100 /.test(received)) resolve();
      else if (received.includes('\r\n\r\n')) reject(new Error(`expected 100 Continue, got ${received.slice(0, 300)}`));
    };
    socket.write(`${head}Expect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`, 'latin1');
  });
  return {
    finish() {
      return new Promise((resolve, reject) => {
        const check = () => {
          const answer = parseAnswer(received);
          if (answer) {
            socket.destroy();
            resolve(answer);
          }
        };
        onData = check;
        socket.once('close', () => reject(new Error(`closed before an answer: ${received.slice(0, 300)}`)));
        socket.write(body);
        check();
      });
    },
  };
}
