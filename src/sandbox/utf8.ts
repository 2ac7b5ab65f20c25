// UTF-8 bytes of a response body or of a page of JSON the storage keeps (shared by http/ and store/, owned by
// neither). `TextEncoder.encodeInto` encodes a large string faster than `Buffer.from`; it writes into a scratch buffer,
// and the bytes are then copied into a buffer of their exact size (a cached page keeps no slack). Lone surrogates
// become U+FFFD in both.
const encoder = new TextEncoder();
const SMALL = 4096;
let scratch = new Uint8Array(0);

export function utf8(text: string): Buffer {
  if (text.length < SMALL) return Buffer.from(text);
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  const { written } = encoder.encodeInto(text, scratch);
  const bytes = Buffer.allocUnsafeSlow(written); // not from the shared pool (64 kB on Node 26): a cached page pins no slab
  bytes.set(scratch.subarray(0, written));
  return bytes;
}
