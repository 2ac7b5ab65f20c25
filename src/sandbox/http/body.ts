// Request bodies, within the limits of the description's x-care-limits (D-100): JSON (D-10, D-87) and multipart uploads
// (busboy, D-10, D-93). Over a limit the rest is read and dropped (src/edge/body.ts) so that the client receives the
// 413 instead of a reset connection.
import type { IncomingMessage } from 'node:http';
import { drainBody, hasBody, mediaType, readBody } from '../../edge/body.ts';
import type { CareSpec, ServiceLimits } from '../../spec/index.ts';
import { ApiError, badRequest } from './envelope.ts';
import type { Problem } from './envelope.ts';

export { hasBody };

const unsupported = (expected: string) =>
  new ApiError(415, { detail: `header.Content-Type: expected ${expected}`, code: 'unsupported_media_type' });

const tooLarge = (at: string, limit: number) => new ApiError(413, { detail: `${at}: larger than ${limit} bytes`, code: 'payload_too_large' });

/** The parsed JSON body; `undefined` when there is none. */
export async function readJson(req: IncomingMessage, limits: ServiceLimits): Promise<unknown> {
  const present = hasBody(req);
  const type = mediaType(req);
  if (!present) return undefined;
  if (type !== 'application/json' && !type.endsWith('+json')) {
    await drainBody(req);
    throw unsupported('application/json');
  }
  const limit = limits.bodyBytes['application/json'];
  const raw = await readBody(req, limit);
  if (raw === 'too-large') throw tooLarge('body', limit);
  if (raw.length === 0) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw badRequest('body: Invalid JSON', 'invalid_json');
  }
  const problems = hostileParts(body, limits.jsonDepth);
  if (problems.length > 0) throw new ApiError(400, problems);
  return body;
}

/** Keys that name an object's prototype machinery: never a field of ours, refused wherever they stand (D-87). */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const LONE_SURROGATE = /\p{Cs}/u; // in u-mode a surrogate pair is one code point: only a lone half matches

/**
 * What a parsed body must not hold, one problem per place: nesting beyond `depthLimit` (one problem, the first
 * place), prototype keys (extra_forbidden, D-35, D-87), and text whose JSON `\uD800`-style escape left half a
 * surrogate pair (D-82: such text has no UTF-8 form, storing it would turn it into U+FFFD). Walked with a stack, not
 * recursion: no body can exhaust the call stack.
 */
function hostileParts(body: unknown, depthLimit: number): Problem[] {
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
    if (depth >= depthLimit) {
      if (!tooDeep) problems.push({ detail: `${at}: nested deeper than ${depthLimit} levels`, code: 'too_deep' });
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

// A token of RFC 9110 without `*`: `*/*`, `image/*` and the like name a range of types, not the type of a file.
const TYPE_TOKEN = /^[!#$%&'+.^_`|~0-9a-z-]+$/;

/**
 * The part's media type when it names one concrete type (`type/subtype`) within the `maxLength` of the Attachment
 * schema's `contentType` (D-101), else application/octet-stream (D-93).
 */
function concreteType(mimeType: string, longest: number): string {
  const halves = mimeType.split('/');
  return mimeType.length <= longest && halves.length === 2 && halves.every((half) => TYPE_TOKEN.test(half)) ? mimeType : 'application/octet-stream';
}

/**
 * The `file` part of a multipart/form-data body, with its bytes exactly as sent (D-10, D-66, D-93). At most
 * `multipart.parts` parts are read (every other part is read and dropped, never kept); the file name is cut at
 * `multipart.fileNameCodePoints` code points (the schema's `maxLength` counts code points), never mid-pair (D-82).
 */
export async function readUpload(req: IncomingMessage, spec: CareSpec): Promise<UploadedFile> {
  const limits = spec.limits;
  const typeLength: number = spec.resolve('#/components/schemas/Attachment').properties.contentType.maxLength;
  if (mediaType(req) !== 'multipart/form-data') {
    await drainBody(req);
    throw unsupported('multipart/form-data');
  }
  const { fileBytes, parts, fileNameCodePoints } = limits.multipart;
  const { Busboy: busboy } = await import('@fastify/busboy'); // loaded on the first upload: keeps the cold start short
  return new Promise<UploadedFile>((resolve, reject) => {
    let parser: import('@fastify/busboy').BusboyInstance;
    try {
      // Every part is read as a stream of bytes (isPartAFile): a `file` part without filename= is never decoded as
      // text, whatever charset it declares, and other parts are dropped as they arrive instead of being buffered.
      // fileSize is exclusive here: a part of exactly fileBytes bytes is accepted, one byte more hits the limit.
      parser = busboy({ headers: req.headers as import('@fastify/busboy').BusboyHeaders, isPartAFile: () => true, limits: { fileSize: fileBytes, parts } });
    } catch {
      drainBody(req).finally(() => reject(badRequest('body: Invalid multipart/form-data body', 'value_error')));
      return;
    }
    let found: UploadedFile | undefined;
    let claimed = false; // the first `file` part is taken when it begins: a second one, even in the same chunk, is not (D-93)
    let fileEnded = false;
    let fileTooLarge = false;
    let tooMany = false;
    let broken = false;
    let stopped = false;
    /** The answer, once the parsing is over (finish, or the parts limit) and the taken part has ended. */
    const decide = () => {
      if (broken || (claimed && !fileEnded)) return;
      if (fileTooLarge) reject(tooLarge('body.file', fileBytes));
      else if (found) resolve(found);
      else if (tooMany) reject(badRequest(`body: more than ${parts} parts; the part \`file\` must be among the first ${parts}`, 'value_error'));
      else reject(badRequest('body.file: Field required', 'missing'));
    };
    parser.on('file', (name, stream, filename, _encoding, mimeType) => {
      // a body that ends inside this part fails the part too: the parser's own 'error' below answers it
      stream.on('error', () => undefined);
      if (name !== 'file' || claimed || stopped) {
        stream.resume();
        return;
      }
      claimed = true;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        fileTooLarge = true;
      });
      stream.on('end', () => {
        fileEnded = true;
        // D-66: a part without filename= is named `file`; busboy's default type is text/plain (RFC 7578)
        if (!fileTooLarge) {
          found = {
            fileName: [...(filename ?? 'file')].slice(0, fileNameCodePoints).join('') || 'file',
            contentType: concreteType(mimeType, typeLength),
            bytes: Buffer.concat(chunks),
          };
        }
        if (stopped) decide();
      });
    });
    parser.on('partsLimit', () => {
      // D-114: nothing after the limit is parsed (millions of tiny parts cost seconds of CPU even when dropped);
      // the rest is read and dropped unparsed, and the answer does not wait for it.
      if (stopped) return;
      stopped = true;
      tooMany = true;
      req.unpipe(parser);
      void drainBody(req).catch(() => undefined);
      decide();
    });
    parser.on('error', () => {
      if (stopped) return;
      broken = true; // 'finish' may follow: the body is still refused
      drainBody(req).finally(() => reject(badRequest('body: Invalid multipart/form-data body', 'value_error')));
    });
    parser.on('finish', () => {
      if (stopped) return;
      stopped = true;
      decide();
    });
    req.pipe(parser);
  });
}
