// Request bodies, within the limits of the description's x-care-limits (D-100): JSON (D-10, D-87) and multipart uploads
// (busboy, D-10, D-93). Over a limit the rest is read and dropped (src/edge/body.ts) so that the client receives the
// 413 instead of a reset connection.
import type { IncomingMessage } from 'node:http';
import { drainBody, hasBody, mediaType, readBody } from '../../edge/body.ts';
import { hostileParts } from '../../edge/json.ts';
import { readFirstFilePart, type UploadedFile } from '../../edge/upload.ts';
import type { CareSpec, ServiceLimits } from '../../spec/index.ts';
import { ApiError, badRequest } from './envelope.ts';

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
