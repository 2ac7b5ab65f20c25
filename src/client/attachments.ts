// Attachment bodies: any byte source becomes the multipart body the description declares (one part `file`).

/** What an upload can be read from. Node streams are async iterables of chunks, so they fit here too. */
export type AttachmentSource = Blob | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

export interface UploadOptions {
  /** File name of the part; defaults to the name of a File. Becomes the record's `fileName`. */
  filename?: string;
  /** Content type of the part; defaults to the Blob's type, else application/octet-stream. */
  contentType?: string;
}

/**
 * The multipart form of an upload. Streams are read into memory first: uploads are at most 10 MiB (decision D-10)
 * and a buffered body can be sent again when a 401 makes the client refresh its token.
 */
export async function attachmentForm(source: AttachmentSource, options: UploadOptions = {}): Promise<FormData> {
  const blob = await toBlob(source, options.contentType);
  const filename = options.filename ?? (typeof File !== 'undefined' && source instanceof File ? source.name : undefined);
  if (!filename) throw new TypeError('uploadAttachment needs a filename (options.filename) unless the source is a File');
  const form = new FormData();
  form.append('file', blob, filename);
  return form;
}

async function toBlob(source: AttachmentSource, contentType: string | undefined): Promise<Blob> {
  if (source instanceof Blob) {
    const type = contentType ?? (source.type || 'application/octet-stream');
    return source.type === type ? source : new Blob([source], { type });
  }
  const type = contentType ?? 'application/octet-stream';
  if (source instanceof ArrayBuffer) return new Blob([source], { type });
  if (ArrayBuffer.isView(source)) {
    return new Blob([new Uint8Array(source.buffer, source.byteOffset, source.byteLength) as Uint8Array<ArrayBuffer>], { type });
  }
  const chunks: BlobPart[] = [];
  const iterable: AsyncIterable<Uint8Array | string> =
    source instanceof ReadableStream ? readableStreamChunks(source) : source;
  for await (const chunk of iterable) chunks.push(chunk as BlobPart);
  return new Blob(chunks, { type });
}

async function* readableStreamChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** `filename` of a Content-Disposition header (RFC 6266; the `filename*` UTF-8 form wins). */
export function dispositionFilename(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/.exec(header);
  if (!plain) return undefined;
  return plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1].trim();
}
