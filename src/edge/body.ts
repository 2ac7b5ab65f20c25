// The one request-body reader of the servers (the sandbox, its token endpoint and the mock front): read to the end,
// kept up to a limit the caller takes from the description (x-care-limits, D-100), and past a hard cap the socket is
// cut. Below src/mock and src/sandbox, above nothing but Node.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Bytes read and dropped beyond a limit, so the client receives the 413 rather than a reset; past this the socket is
 * cut. Not a limit of the service (nothing beyond a limit is ever kept): how long a refused sender is listened to.
 */
const DRAIN_CAP = 64 * 1024 * 1024;

/** The media type of the request's `Content-Type`, without parameters, lower case ('' when absent). */
export function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** Whether the request carries a body at all (a length other than 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** The body when it is at most `limit` bytes, else 'too-large' (read to its end, up to the drain cap). */
export async function readBody(req: Readable, limit: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > DRAIN_CAP) {
      req.destroy();
      break;
    }
    if (size <= limit) chunks.push(chunk);
  }
  return size > limit ? 'too-large' : Buffer.concat(chunks);
}

/** Read the rest of a body and keep none of it. */
export async function drainBody(req: Readable): Promise<void> {
  await readBody(req, 0);
}
