// Request bodies: JSON up to 1 MiB (D-10), multipart uploads up to 10 MiB per file (busboy). Over a limit the rest is
// read and dropped (up to a hard cap) so that the client receives the 413 instead of a reset connection.
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest } from './envelope.ts';
import type { Problem } from './envelope.ts';

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
  const problems = hostileParts(body);
  if (problems.length > 0) throw new ApiError(400, problems);
  return body;
}

/** How deep a JSON body may nest (D-87): the deepest schema of the description is a few levels; 32 leaves room. */
const JSON_DEPTH_LIMIT = 32;

/** Keys that name an object's prototype machinery: never a field of ours, refused wherever they stand (D-87). */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const LONE_SURROGATE = /\p{Cs}/u; // in u-mode a surrogate pair is one code point: only a lone half matches

/**
 * What a parsed body must not hold, one problem per place: nesting beyond JSON_DEPTH_LIMIT (one problem, the first
 * place), prototype keys (extra_forbidden, D-35, D-87), and text whose JSON `\uD800`-style escape left half a
 * surrogate pair (D-82: such text has no UTF-8 form, storing it would turn it into U+FFFD). Walked with a stack, not
 * recursion: no body can exhaust the call stack.
 */
function hostileParts(body: unknown): Problem[] {
  const problems: Problem[] = [];
  const stack: Array<{ value: unknown; at: string; depth: number }> = [{ value: body, at: 'body', depth: 0 }];
  let tooDeep = false;
  while (stack.length > 0) {
    const { value, at, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) problems.push({ detail: `${at}: Input should be a valid string, unable to parse raw data as a unicode string`, code: 'string_unicode' });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= JSON_DEPTH_LIMIT) {
      if (!tooDeep) problems.push({ detail: `${at}: nested deeper than ${JSON_DEPTH_LIMIT} levels`, code: 'too_deep' });
      tooDeep = true;
      continue;
    }
    const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i];
      const where = `${at}.${key}`;
      if (!Array.isArray(value) && PROTOTYPE_KEYS.has(key)) {
        problems.push({ detail: `${where}: Extra inputs are not permitted`, code: 'extra_forbidden' });
        continue;
      }
      if (!Array.isArray(value) && LONE_SURROGATE.test(key)) {
        problems.push({ detail: `${where}: Input should be a valid string, unable to parse raw data as a unicode string`, code: 'string_unicode' });
        continue;
      }
      stack.push({ value: item, at: where, depth: depth + 1 });
    }
  }
  return problems;
}

export interface UploadedFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/** Parts of a multipart body read at most (D-93): every other part is read and dropped, never kept. */
export const MAX_PARTS = 100;

/** File names are cut at this many code points (the schema's `maxLength` counts code points), never mid-pair (D-82). */
const NAME_LIMIT = 255;

// A token of RFC 9110 without `*`: `*/*`, `image/*` and the like name a range of types, not the type of a file.
const TYPE_TOKEN = /^[!#$%&'+.^_`|~0-9a-z-]+$/;

/** The part's media type when it names one concrete type (`type/subtype`), else application/octet-stream (D-93). */
function concreteType(mimeType: string): string {
  const halves = mimeType.split('/');
  return halves.length === 2 && halves.every((half) => TYPE_TOKEN.test(half)) ? mimeType : 'application/octet-stream';
}

/** The `file` part of a multipart/form-data body, with its bytes exactly as sent (D-10, D-66, D-93). */
export async function readUpload(req: IncomingMessage): Promise<UploadedFile> {
  if (mediaType(req) !== 'multipart/form-data') {
    await readAll(req, 0);
    throw unsupported('multipart/form-data');
  }
  const { Busboy: busboy } = await import('@fastify/busboy'); // loaded on the first upload: keeps the cold start short
  return new Promise<UploadedFile>((resolve, reject) => {
    let parser: import('@fastify/busboy').BusboyInstance;
    try {
      // Every part is read as a stream of bytes (isPartAFile): a `file` part without filename= is never decoded as
      // text, whatever charset it declares, and other parts are dropped as they arrive instead of being buffered.
      // fileSize is exclusive here: a part of exactly FILE_LIMIT bytes is accepted, one byte more hits the limit.
      parser = busboy({ headers: req.headers as import('@fastify/busboy').BusboyHeaders, isPartAFile: () => true, limits: { fileSize: FILE_LIMIT, parts: MAX_PARTS } });
    } catch {
      readAll(req, 0).finally(() => reject(badRequest('body: Invalid multipart/form-data body', 'value_error')));
      return;
    }
    let found: UploadedFile | undefined;
    let tooLarge = false;
    let tooMany = false;
    let broken = false;
    let claimed = false;
    parser.on('file', (name, stream, filename, _encoding, mimeType) => {
      // a body that ends inside this part fails the part too: the parser's own 'error' below answers it
      stream.on('error', () => undefined);
      // The first `file` part is the file (D-93): claimed when it starts, since a second one may start before the
      // first has ended (both in one chunk of the body).
      if (name !== 'file' || claimed || tooLarge) {
        stream.resume();
        return;
      }
      claimed = true;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        tooLarge = true;
      });
      stream.on('end', () => {
        if (tooLarge) return;
        // D-66: a part without filename= is named `file`; busboy's default type is text/plain (RFC 7578)
        found = {
          fileName: [...(filename ?? 'file')].slice(0, NAME_LIMIT).join('') || 'file',
          contentType: concreteType(mimeType),
          bytes: Buffer.concat(chunks),
        };
      });
    });
    parser.on('partsLimit', () => {
      tooMany = true;
    });
    parser.on('error', () => {
      broken = true; // 'finish' may follow: the body is still refused
      readAll(req, 0).finally(() => reject(badRequest('body: Invalid multipart/form-data body', 'value_error')));
    });
    parser.on('finish', () => {
      if (broken) return;
      if (tooLarge) reject(new ApiError(413, { detail: `body.file: larger than ${FILE_LIMIT} bytes`, code: 'payload_too_large' }));
      else if (found) resolve(found);
      else if (tooMany) reject(badRequest(`body: more than ${MAX_PARTS} parts; the part \`file\` must be among the first ${MAX_PARTS}`, 'value_error'));
      else reject(badRequest('body.file: Field required', 'missing'));
    });
    req.pipe(parser);
  });
}
