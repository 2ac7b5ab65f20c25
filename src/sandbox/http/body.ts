// Request bodies: JSON up to 1 MiB (D-10), multipart uploads up to 10 MiB per file (busboy). Over a limit the rest is
// read and dropped (up to a hard cap) so that the client receives the 413 instead of a reset connection.
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest } from './envelope.ts';

export const JSON_LIMIT = 1024 * 1024;
export const FILE_LIMIT = 10 * 1024 * 1024;
const DRAIN_CAP = 64 * 1024 * 1024;

function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

const unsupported = (expected: string) =>
  new ApiError(415, { detail: `header.Content-Type: expected ${expected}`, code: 'unsupported_media_type' });

async function readAll(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
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

/** Whether the request carries a body at all (a length, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** The parsed JSON body; `undefined` when there is none. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const present = hasBody(req);
  const type = mediaType(req);
  if (!present) return undefined;
  if (type !== 'application/json' && !type.endsWith('+json')) {
    await readAll(req, 0);
    throw unsupported('application/json');
  }
  const raw = await readAll(req, JSON_LIMIT);
  if (raw === 'too-large') throw new ApiError(413, { detail: `body: larger than ${JSON_LIMIT} bytes`, code: 'payload_too_large' });
  if (raw.length === 0) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw badRequest('body: Invalid JSON', 'invalid_json');
  }
  const broken = loneSurrogates(body, 'body');
  if (broken.length > 0) throw new ApiError(400, broken.map((at) => ({ detail: `${at}: Input should be a valid string, unable to parse raw data as a unicode string`, code: 'string_unicode' })));
  return body;
}

const LONE_SURROGATE = /\p{Cs}/u; // in u-mode a surrogate pair is one code point: only a lone half matches

/**
 * Where a JSON `\uD800`-style escape left half a surrogate pair (D-82): such text has no UTF-8 form, so storing it
 * would silently turn it into U+FFFD. Every location is named, keys included.
 */
function loneSurrogates(value: unknown, at: string): string[] {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? [at] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => loneSurrogates(item, `${at}.${index}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => (LONE_SURROGATE.test(key) ? [`${at}.${key}`] : loneSurrogates(item, `${at}.${key}`)));
}

export interface UploadedFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * The bytes of a field busboy decoded: latin1 (our default charset) maps back one to one; a part that declared a
 * multi-byte charset such as UTF-8 was decoded as text and is stored as UTF-8 (D-66).
 */
function fieldBytes(value: string): Buffer {
  return Buffer.from(value, /[^\x00-\xff]/.test(value) ? 'utf8' : 'latin1');
}

/** The `file` part of a multipart/form-data body. */
export async function readUpload(req: IncomingMessage): Promise<UploadedFile> {
  if (mediaType(req) !== 'multipart/form-data') {
    await readAll(req, 0);
    throw unsupported('multipart/form-data');
  }
  const { default: busboy } = await import('busboy'); // loaded on the first upload: keeps the cold start short
  return new Promise<UploadedFile>((resolve, reject) => {
    let parser: import('busboy').Busboy;
    try {
      // latin1 as the default charset of fields maps bytes to characters one to one: a `file` part that busboy
      // reports as a field (no filename) is turned back into its exact bytes.
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', defCharset: 'latin1', limits: { fileSize: FILE_LIMIT, fieldSize: FILE_LIMIT, files: 5, fields: 5 } });
    } catch {
      readAll(req, 0).finally(() => reject(badRequest('body: Invalid multipart/form-data body', 'value_error')));
      return;
    }
    let found: UploadedFile | undefined;
    let tooLarge = false;
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || found || tooLarge) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        tooLarge = true;
      });
      stream.on('end', () => {
        if (tooLarge) return;
        found = {
          fileName: (info.filename ?? 'file').slice(0, 255) || 'file',
          contentType: info.mimeType || 'application/octet-stream',
          bytes: Buffer.concat(chunks),
        };
      });
    });
    // A part named `file` without `filename=` (D-66): the same file, named `file`. busboy decoded it with the part's
    // charset (latin1 unless it declares one), so encoding it back gives the bytes.
    parser.on('field', (name, value, info) => {
      if (name !== 'file' || found || tooLarge) return;
      if (info.valueTruncated) {
        tooLarge = true;
        return;
      }
      found = { fileName: 'file', contentType: info.mimeType || 'text/plain', bytes: fieldBytes(value) };
    });
    parser.on('error', () => {
      readAll(req, 0).finally(() => reject(badRequest('body: Invalid multipart/form-data body', 'value_error')));
    });
    parser.on('close', () => {
      if (tooLarge) reject(new ApiError(413, { detail: `body.file: larger than ${FILE_LIMIT} bytes`, code: 'payload_too_large' }));
      else if (!found) reject(badRequest('body.file: Field required', 'missing'));
      else resolve(found);
    });
    req.pipe(parser);
  });
}
