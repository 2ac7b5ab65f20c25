// The one multipart/form-data reader (D-10, D-66, D-93, D-114), for the sandbox and the mock front alike: the first
// part named `file` is taken when it begins (a second one, even in the same chunk, is not), with its bytes exactly as
// sent; at most `parts` parts are parsed (nothing after the limit is, since millions of tiny parts cost seconds of CPU
// even when dropped: the rest is read unparsed and the answer does not wait for it); the file name is cut at
// `fileNameCodePoints` code points, never mid-pair (D-82). Each server turns a refusal into its own answer.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ServiceLimits } from '../spec/index.ts';
import { drainBody } from './body.ts';

export interface UploadedFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/** Why an upload is refused, in the service's words. */
export interface UploadRefusal {
  status: 400 | 413;
  detail: string;
  code: string;
}

export type UploadResult = { file: UploadedFile } | { refusal: UploadRefusal };

// A token of RFC 9110 without `*`: `*/*`, `image/*` and the like name a range of types, not the type of a file.
const TYPE_TOKEN = /^[!#$%&'+.^_`|~0-9a-z-]+$/;

/** The part's media type when it names one concrete type within `longest` characters, else application/octet-stream. */
function concreteType(mimeType: string, longest: number): string {
  const halves = mimeType.split('/');
  return mimeType.length <= longest && halves.length === 2 && halves.every((half) => TYPE_TOKEN.test(half)) ? mimeType : 'application/octet-stream';
}

const invalid: UploadRefusal = { status: 400, detail: 'body: Invalid multipart/form-data body', code: 'value_error' };

/**
 * Reads `body` (a multipart/form-data request) to its end, or stops parsing at the parts limit; answers the first
 * `file` part or the refusal. `typeLength` is the longest media type kept (the Attachment schema's `maxLength`).
 */
export async function readFirstFilePart(body: Readable, headers: IncomingHttpHeaders, limits: ServiceLimits['multipart'], typeLength: number): Promise<UploadResult> {
  const { fileBytes, parts, fileNameCodePoints } = limits;
  const { Busboy: busboy } = await import('@fastify/busboy'); // loaded on the first upload: keeps the cold start short
  return new Promise<UploadResult>((resolve) => {
    let parser: import('@fastify/busboy').BusboyInstance;
    try {
      // Every part is read as a stream of bytes (isPartAFile): a `file` part without filename= is never decoded as
      // text, whatever charset it declares, and other parts are dropped as they arrive instead of being buffered.
      // fileSize is exclusive here: a part of exactly fileBytes bytes is accepted, one byte more hits the limit.
      parser = busboy({ headers: headers as import('@fastify/busboy').BusboyHeaders, isPartAFile: () => true, limits: { fileSize: fileBytes, parts } });
    } catch {
      // read to its end (up to the drain cap): the client gets the answer rather than a reset
      drainBody(body).finally(() => resolve({ refusal: invalid }));
      return;
    }
    let found: UploadedFile | undefined;
    let claimed = false;
    let fileEnded = false;
    let fileTooLarge = false;
    let tooMany = false;
    let broken = false;
    let stopped = false;
    /** The answer, once the parsing is over (finish, or the parts limit) and the taken part has ended. */
    const decide = () => {
      if (broken || (claimed && !fileEnded)) return;
      if (fileTooLarge) resolve({ refusal: { status: 413, detail: `body.file: larger than ${fileBytes} bytes`, code: 'payload_too_large' } });
      else if (found) resolve({ file: found });
      else if (tooMany) resolve({ refusal: { status: 400, detail: `body: more than ${parts} parts; the part \`file\` must be among the first ${parts}`, code: 'value_error' } });
      else resolve({ refusal: { status: 400, detail: 'body.file: Field required', code: 'missing' } });
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
      if (stopped) return;
      stopped = true;
      tooMany = true;
      body.unpipe(parser);
      void drainBody(body).catch(() => undefined); // the rest is read and dropped unparsed
      decide();
    });
    parser.on('error', () => {
      if (stopped) return;
      broken = true; // 'finish' may follow: the body is still refused
      body.unpipe(parser);
      drainBody(body).finally(() => resolve({ refusal: invalid }));
    });
    parser.on('finish', () => {
      if (stopped) return;
      stopped = true;
      body.resume(); // an epilogue after the last boundary is read and dropped
      decide();
    });
    body.pipe(parser);
  });
}
