// Request bodies, within the limits of the description's x-care-limits (D-100): JSON (D-10, D-87) and multipart uploads
// (busboy, D-10, D-93). Over a limit the rest is read and dropped (src/edge/body.ts) so that the client receives the
// 413 instead of a reset connection.
import type { IncomingMessage } from 'node:http';
import { drainBody, hasBody, mediaType, readBody } from '../../edge/body.ts';
import { readFirstFilePart, type UploadedFile } from '../../edge/upload.ts';
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

export type { UploadedFile };

/**
 * The `file` part of a multipart/form-data body, read by the servers' one reader (src/edge/upload.ts: D-10, D-66,
 * D-93, D-114); its refusals as the sandbox's errors. Types longer than the Attachment schema's `contentType` allows
 * (D-101) are kept as application/octet-stream.
 */
export async function readUpload(req: IncomingMessage, spec: CareSpec): Promise<UploadedFile> {
  const typeLength: number = spec.resolve('#/components/schemas/Attachment').properties.contentType.maxLength;
  if (mediaType(req) !== 'multipart/form-data') {
    await drainBody(req);
    throw unsupported('multipart/form-data');
  }
  const result = await readFirstFilePart(req, req.headers, spec.limits.multipart, typeLength);
  if ('file' in result) return result.file;
  const { status, detail, code } = result.refusal;
  throw status === 413 ? tooLarge('body.file', spec.limits.multipart.fileBytes) : badRequest(detail, code);
}
