// Uploads, read by the sandbox's own reader (src/edge/upload.ts: D-66, D-93) and passed to Prism in the one form it
// takes: Prism's multipart parser throws, and its process exits, on a part without Content-Type (RFC 7578 allows
// it; Python's requests sends it). The front takes the first part named `file` as the sandbox does and forwards one
// well-formed part; what the sandbox refuses (no `file` part, a broken body, a part over the limit), the front
// refuses in the sandbox's words.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { readFirstFilePart } from '../edge/upload.ts';
import type { ServiceLimits } from '../spec/index.ts';
import { envelope, errorObject, type ForwardBody, type Refusal } from './envelope.ts';

/** The upload as one part `file` with a name and a concrete type, or the sandbox's refusal; `body` is read to its end. */
export async function uploadForPrism(body: Readable, headers: IncomingHttpHeaders, limits: ServiceLimits['multipart'], typeLength: number): Promise<ForwardBody | Refusal> {
  const result = await readFirstFilePart(body, headers, limits, typeLength);
  if ('refusal' in result) {
    const { status, detail, code } = result.refusal;
    return { status, body: envelope([errorObject(status, detail, code)]) };
  }
  const part = result.file;
  const boundary = `care-mock-${randomBytes(12).toString('hex')}`;
  const quoted = part.fileName.replace(/["\\\r\n]/g, '_');
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted}"\r\nContent-Type: ${part.contentType}\r\n\r\n`;
  return {
    bytes: Buffer.concat([Buffer.from(head, 'utf8'), part.bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
