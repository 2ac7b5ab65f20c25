// Uploads, read as the sandbox reads them (D-66, D-93) and passed to Prism in the one form it takes: Prism's
// multipart parser throws, and its process exits, on a part without Content-Type (RFC 7578 allows it; Python's
// requests sends it). The front parses the body itself (busboy, as the sandbox), takes the first part named `file`,
// and forwards one well-formed part; what the sandbox refuses (no `file` part, a broken body, a part over the
// limit), the front refuses in the sandbox's words. The body is streamed through the parser, as at the sandbox: only
// the file part's bytes are kept, and a body of any size gets the sandbox's answer.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { envelope, errorObject, type ForwardBody, type Refusal } from './envelope.ts';

const FILE_LIMIT = 10 * 1024 * 1024;
/** Parts read at most, as the sandbox (D-93). */
const MAX_PARTS = 100;
// A token of RFC 9110 without `*`: a range such as `image/*` is not the type of a file (D-93).
const TYPE_TOKEN = /^[!#$%&'+.^_`|~0-9a-z-]+$/;

const refuse = (status: number, detail: string, code: string): Refusal => ({ status, body: envelope([errorObject(status, detail, code)]) });

function concreteType(mimeType: string): string {
  const halves = mimeType.split('/');
  return halves.length === 2 && halves.every((half) => TYPE_TOKEN.test(half)) ? mimeType : 'application/octet-stream';
}

interface FilePart {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

function firstFilePart(body: Readable, headers: IncomingHttpHeaders): Promise<FilePart | Refusal> {
  return import('@fastify/busboy').then(({ Busboy: busboy }) => new Promise((resolve) => {
    let parser: import('@fastify/busboy').BusboyInstance;
    try {
      parser = busboy({ headers: headers as import('@fastify/busboy').BusboyHeaders, isPartAFile: () => true, limits: { fileSize: FILE_LIMIT, parts: MAX_PARTS } });
    } catch {
      body.resume(); // read to its end: the client gets the answer rather than a reset
      return resolve(refuse(400, 'body: Invalid multipart/form-data body', 'value_error'));
    }
    let found: FilePart | undefined;
    let tooLarge = false;
    let tooMany = false;
    let broken = false;
    parser.on('file', (name, stream, filename, _encoding, mimeType) => {
      stream.on('error', () => undefined);
      if (name !== 'file' || found || tooLarge) return void stream.resume();
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => (tooLarge = true));
      stream.on('end', () => {
        if (!tooLarge) found = { fileName: filename || 'file', contentType: concreteType(mimeType), bytes: Buffer.concat(chunks) };
      });
    });
    parser.on('partsLimit', () => (tooMany = true));
    parser.on('error', () => {
      broken = true;
      body.unpipe(parser);
      body.resume();
      resolve(refuse(400, 'body: Invalid multipart/form-data body', 'value_error'));
    });
    parser.on('finish', () => {
      if (broken) return;
      body.resume(); // an epilogue after the last boundary is read and dropped
      if (tooLarge) resolve(refuse(413, `body.file: larger than ${FILE_LIMIT} bytes`, 'payload_too_large'));
      else if (found) resolve(found);
      else if (tooMany) resolve(refuse(400, `body: more than ${MAX_PARTS} parts; the part \`file\` must be among the first ${MAX_PARTS}`, 'value_error'));
      else resolve(refuse(400, 'body.file: Field required', 'missing'));
    });
    body.pipe(parser);
  }));
}

/** The upload as one part `file` with a name and a concrete type, or the sandbox's refusal; `body` is read to its end. */
export async function uploadForPrism(body: Readable, headers: IncomingHttpHeaders): Promise<ForwardBody | Refusal> {
  const part = await firstFilePart(body, headers);
  if ('status' in part) return part;
  const boundary = `care-mock-${randomBytes(12).toString('hex')}`;
  const quoted = part.fileName.replace(/["\\\r\n]/g, '_');
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted}"\r\nContent-Type: ${part.contentType}\r\n\r\n`;
  return {
    bytes: Buffer.concat([Buffer.from(head, 'utf8'), part.bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
