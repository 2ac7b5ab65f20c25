// What the front checks before Prism sees a request, answering as the service does (D-42): Prism throws on some
// inputs (a malformed escape in the path, a malformed Accept header) and exits, and answers others with a 500.
import type { IncomingMessage } from 'node:http';
import type { OperationSpec } from '../spec/index.ts';
import { envelope, errorObject, type ForwardBody, type Refusal } from './envelope.ts';
export type { ForwardBody, Refusal } from './envelope.ts';
import { hostileParts } from './hostile-json.ts';
import { uploadForPrism } from './multipart.ts';


const refuse = (status: number, detail: string, code: string, headers?: Record<string, string>): Refusal => ({
  status,
  body: envelope([errorObject(status, detail, code)]),
  headers,
});

/** The service's limit of JSON bodies (D-10); uploads: src/mock/multipart.ts. */
export const JSON_LIMIT = 1024 * 1024;

/** Read and dropped beyond a limit, so the client gets the 413 rather than a reset; past this the socket is cut. */
const DRAIN_CAP = 64 * 1024 * 1024;
export { JSON_DEPTH_LIMIT } from './hostile-json.ts';

/** A query whose escapes are not UTF-8 (D-82); a `%` without two hex digits stays a literal `%`, as URLSearchParams reads it. */
export function checkQuery(rawSearch: string): Refusal | undefined {
  try {
    decodeURIComponent(rawSearch.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
    return undefined;
  } catch {
    return refuse(400, `query: percent-escapes that are not UTF-8 in ${rawSearch}`, 'invalid_query');
  }
}

function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

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


/**
 * The body to pass to Prism, or the refusal the service would give: bodies that are not what they claim (not JSON,
 * not UTF-8, nested too deep, the wrong media type) and bodies over the limits. An operation without a request body
 * gets none forwarded (the service ignores it); the request is read to its end either way.
 */
export async function readForwardBody(req: IncomingMessage, operation: OperationSpec): Promise<ForwardBody | Refusal> {
  const declared = operation.requestBody?.contentTypes ?? [];
  const present = hasBody(req);
  if (declared.length === 0 || !present) {
    await readAll(req, 0);
    return {};
  }
  const type = mediaType(req);
  if (declared.includes('multipart/form-data')) {
    if (type !== 'multipart/form-data') {
      await readAll(req, 0);
      return refuse(415, 'header.Content-Type: expected multipart/form-data', 'unsupported_media_type');
    }
    return uploadForPrism(req, req.headers);
  }
  if (type !== 'application/json' && !type.endsWith('+json')) {
    await readAll(req, 0);
    return refuse(415, 'header.Content-Type: expected application/json', 'unsupported_media_type');
  }
  const bytes = await readAll(req, JSON_LIMIT);
  if (bytes === 'too-large') return refuse(413, `body: larger than ${JSON_LIMIT} bytes`, 'payload_too_large');
  if (bytes.length === 0) return { contentType: 'application/json' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return refuse(400, 'body: Invalid JSON', 'invalid_json');
  }
  const hostile = hostileParts(parsed);
  if (hostile.length > 0) return { status: 400, body: envelope(hostile) };
  // every JSON body of the description is an object: anything else is refused as the service words it (Prism: dict_type)
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return refuse(400, 'body: Input should be a valid dictionary or object to extract fields from', 'model_attributes_type');
  }
  return { bytes, contentType: 'application/json' };
}

/** Prism's `Prefer` header (code=, example=, dynamic=), passed on only when well formed. */
const PREFER = /^\s*(?:code=\d{3}|example=[\w.-]{1,100}|dynamic=(?:true|false))(?:\s*,\s*(?:code=\d{3}|example=[\w.-]{1,100}|dynamic=(?:true|false)))*\s*$/;

/**
 * The request headers Prism gets: authorization, the operation's declared header parameters, and a well-formed
 * Prefer. Nothing else: the service reads no other header, and Prism has exited on a malformed Accept.
 */
export function forwardHeaders(req: IncomingMessage, operation: OperationSpec): Headers {
  const headers = new Headers();
  const names = ['authorization', ...operation.parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase())];
  for (const name of names) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  const prefer = req.headers.prefer;
  if (typeof prefer === 'string' && PREFER.test(prefer)) headers.set('prefer', prefer);
  return headers;
}
