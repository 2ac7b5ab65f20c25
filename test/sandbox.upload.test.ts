// Multipart uploads written by hand over HTTP (issue 12, D-66): a `file` part without `filename=` is the file.
import { describe, expect, it } from 'vitest';
import { harnessWithCase } from './helpers/sandbox.ts';

const withCase = harnessWithCase();

const BOUNDARY = 'care-test-boundary';

/** One part with exactly these headers, then the bytes. */
function multipart(partHeaders: string[], bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\n${partHeaders.join('\r\n')}\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

async function upload(partHeaders: string[], bytes: Buffer) {
  return withCase.h.call('sandbox', 'customer', 'POST', `/cases/${withCase.caseId}/attachments`, new Uint8Array(multipart(partHeaders, bytes)), {
    'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
  });
}

async function download(id: string) {
  return withCase.h.call('sandbox', 'customer', 'GET', `/cases/${withCase.caseId}/attachments/${id}/download`);
}

describe('a `file` part without filename=', () => {
  it('is accepted byte for byte, named `file`, with the part content type', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i)); // every byte value, invalid as UTF-8
    const created = await upload(['Content-Disposition: form-data; name="file"', 'Content-Type: image/png'], bytes);
    expect(created.status, created.text).toBe(201);
    expect(created.json.data).toMatchObject({ fileName: 'file', contentType: 'image/png', size: 256 });
    const got = await download(created.json.data.id);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.bytes.equals(bytes)).toBe(true);
  });

  it('without a Content-Type is text/plain, the multipart default (RFC 7578), like a part with a filename', async () => {
    const bytes = Buffer.from('49.4C02 service error\n\u00ff\u0000', 'latin1');
    const bare = await upload(['Content-Disposition: form-data; name="file"'], bytes);
    expect(bare.status, bare.text).toBe(201);
    const named = await upload(['Content-Disposition: form-data; name="file"; filename="printer.log"'], bytes);
    expect(named.status, named.text).toBe(201);
    expect(bare.json.data.contentType).toBe(named.json.data.contentType);
    expect(bare.json.data.contentType).toBe('text/plain');
    expect((await download(bare.json.data.id)).bytes.equals(bytes)).toBe(true);
  });

  it('declaring charset=utf-8 is text, stored as UTF-8', async () => {
    const text = 'Drucker 故障 \u{1F5A8}';
    const created = await upload(['Content-Disposition: form-data; name="file"', 'Content-Type: text/plain; charset=utf-8'], Buffer.from(text, 'utf8'));
    expect(created.status, created.text).toBe(201);
    expect((await download(created.json.data.id)).bytes.toString('utf8')).toBe(text);
  });

  it('over the size limit is 413, as with a filename', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 0x61);
    const refused = await upload(['Content-Disposition: form-data; name="file"'], big);
    expect(refused.status).toBe(413);
    expect(refused.json.errors[0].code).toBe('payload_too_large');
  });

  it('a body without any `file` part is still 400 body.file: Field required', async () => {
    const refused = await upload(['Content-Disposition: form-data; name="other"'], Buffer.from('x'));
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0].detail).toBe('body.file: Field required');
  });
});
