// What the front checks before Prism sees a request, answering as the service does (D-42): Prism throws on some
// inputs (a malformed escape in the path, a malformed Accept header) and exits, and answers others with a 500.
import type { IncomingMessage } from 'node:http';
import { drainBody, hasBody, mediaType, readBody } from '../edge/body.ts';
import type { CareSpec, OperationSpec } from '../spec/index.ts';
import { envelope, errorObject, type ForwardBody, type Refusal } from './envelope.ts';
export type { ForwardBody, Refusal } from './envelope.ts';
import { hostileParts } from '../edge/json.ts';
import { uploadForPrism } from './multipart.ts';


const refuse = (status: number, detail: string, code: string, headers?: Record<string, string>): Refusal => ({
  status,
  body: envelope([errorObject(status, detail, code)]),
  headers,
});

/** Two or more `Host` lines: 400, as RFC 9112 section 3.2 requires and the sandbox answers (D-114). */
export function checkHostLines(req: IncomingMessage): Refusal | undefined {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'host') count++;
  return count > 1 ? refuse(400, `header.Host: sent ${count} times; a request names one host (RFC 9112 section 3.2)`, 'duplicate_host') : undefined;
}

/** An `Expect` other than 100-continue (Node would answer a bare 417): 417 in the envelope (D-114). */
export function expectationFailed(req: IncomingMessage): Refusal {
  return refuse(417, `header.Expect: only 100-continue is supported, got ${JSON.stringify(String(req.headers.expect).slice(0, 100))}`, 'expectation_failed', { Connection: 'close' });
}

/** A query whose escapes are not UTF-8 (D-82); a `%` without two hex digits stays a literal `%`, as URLSearchParams reads it. */
export function checkQuery(rawSearch: string): Refusal | undefined {
  try {
    decodeURIComponent(rawSearch.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
    return undefined;
  } catch {
    return refuse(400, `query: percent-escapes that are not UTF-8 in ${rawSearch}`, 'invalid_query');
  }
}


/**
 * The body to pass to Prism, or the refusal the service would give: bodies that are not what they claim (not JSON,
 * not UTF-8, nested too deep, the wrong media type) and bodies over the limits of the description's x-care-limits
 * (D-100). An operation without a request body gets none forwarded (the service ignores it); the request is read to
 * its end either way.
 */
export async function readForwardBody(req: IncomingMessage, operation: OperationSpec, spec: CareSpec): Promise<ForwardBody | Refusal> {
  const limits = spec.limits;
  const declared = operation.requestBody?.contentTypes ?? [];
  const present = hasBody(req);
  if (declared.length === 0 || !present) {
    await drainBody(req);
    return {};
  }
  const type = mediaType(req);
  if (declared.includes('multipart/form-data')) {
    if (type !== 'multipart/form-data') {
      await drainBody(req);
      return refuse(415, 'header.Content-Type: expected multipart/form-data', 'unsupported_media_type');
    }
    const typeLength: number = spec.resolve('#/components/schemas/Attachment').properties.contentType.maxLength;
    return uploadForPrism(req, req.headers, limits.multipart, typeLength);
  }
  if (type !== 'application/json' && !type.endsWith('+json')) {
    await drainBody(req);
    return refuse(415, 'header.Content-Type: expected application/json', 'unsupported_media_type');
  }
  const limit = limits.bodyBytes['application/json'];
  const bytes = await readBody(req, limit);
  if (bytes === 'too-large') return refuse(413, `body: larger than ${limit} bytes`, 'payload_too_large');
  if (bytes.length === 0) return { contentType: 'application/json' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return refuse(400, 'body: Invalid JSON', 'invalid_json');
  }
  const hostile = hostileParts(parsed, limits.jsonDepth);
  if (hostile.length > 0) return { status: 400, body: envelope(hostile.map((p) => errorObject(400, p.detail, p.code))) };
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
