// The docs site and the bundles served as a docs host serves them (D-115): validators (ETag, Last-Modified) and 304,
// brotli or gzip (node:zlib, compressed once per file and kept), a long cache for asset names that carry their
// hash (`redoc.standalone.<hash>.js`, written into the pages as they are served: generated/ keeps plain names, so
// the site still works from file://), and a Content-Security-Policy with frame-ancestors 'none' on the pages (D-114).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.yaml': 'application/yaml; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.yaml', '.json', '.txt', '.svg']);

/** A year: an asset whose name carries its hash never changes under that name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Plain names: kept, but asked about again each time (a 304 when unchanged). */
export const REVALIDATE = 'no-cache';

/** How a hashed name is written: the first 12 hex digits of the file's sha256 before its extension. */
const HASHED_NAME = /^(.+)\.([0-9a-f]{12})(\.[a-z]+)$/;

interface Prepared {
  mtimeMs: number;
  size: number;
  bytes: Buffer;
  hash: string;
  lastModified: string;
  encoded: Map<'br' | 'gzip', Buffer>;
  csp?: string;
}

const cache = new Map<string, Prepared>();

function contentHash(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The policy of a docs page: its own scripts and styles, its inline scripts by their hash, inline styles (Redoc and
 * Swagger UI style elements as they render), requests to its own origin, and no framing by any other page.
 */
export function pageCsp(html: string): string {
  const hashes = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1]).digest('base64')}'`);
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** A page with its local scripts and stylesheets named by their hash, so that they can be kept a year. */
function withHashedAssets(html: string, dir: string): string {
  return html.replace(/(<script src="|<link rel="stylesheet" href=")([\w.-]+\.(?:js|css))"/g, (whole, before: string, name: string) => {
    const file = join(dir, name);
    if (!existsSync(file)) return whole;
    const asset = prepare(file);
    const ext = extname(name);
    return `${before}${name.slice(0, -ext.length)}.${asset.hash.slice(0, 12)}${ext}"`;
  });
}

function prepare(file: string): Prepared {
  const stat = statSync(file);
  const known = cache.get(file);
  // a page names its assets by their hashes: it is made again (it is small) whenever an asset may have changed
  if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size && !known.csp) return known;
  let bytes = readFileSync(file);
  let csp: string | undefined;
  if (extname(file) === '.html') {
    const html = withHashedAssets(bytes.toString('utf8'), dirname(file));
    bytes = Buffer.from(html);
    csp = pageCsp(html);
  }
  const prepared: Prepared = { mtimeMs: stat.mtimeMs, size: stat.size, bytes, hash: contentHash(bytes), lastModified: stat.mtime.toUTCString(), encoded: new Map(), csp };
  cache.set(file, prepared);
  return prepared;
}

/** The encoding of the answer: brotli, else gzip, when the client takes it (q > 0) and the type compresses. */
function chosenEncoding(req: IncomingMessage, file: string): 'br' | 'gzip' | undefined {
  if (!COMPRESSIBLE.has(extname(file))) return undefined;
  const accepted = new Map<string, number>();
  for (const part of String(req.headers['accept-encoding'] ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const takes = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  return takes('br') ? 'br' : takes('gzip') ? 'gzip' : undefined;
}

function encode(prepared: Prepared, encoding: 'br' | 'gzip'): Buffer {
  let bytes = prepared.encoded.get(encoding);
  if (!bytes) {
    // brotli at quality 5: close to its best ratio on these files at a small fraction of quality 11's time
    bytes = encoding === 'br' ? brotliCompressSync(prepared.bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }) : gzipSync(prepared.bytes, { level: 6 });
    prepared.encoded.set(encoding, bytes);
  }
  return bytes;
}

/** Whether the client's copy is current: If-None-Match first, If-Modified-Since only without it (RFC 9110 13.2.2). */
function notModified(req: IncomingMessage, etags: string[], prepared: Prepared): boolean {
  const match = req.headers['if-none-match'];
  if (match !== undefined) {
    const listed = match.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    return listed.includes('*') || listed.some((tag) => etags.includes(tag));
  }
  const since = Date.parse(String(req.headers['if-modified-since'] ?? ''));
  return !Number.isNaN(since) && Math.floor(prepared.mtimeMs / 1000) * 1000 <= since;
}

/** The file at `file`, or its hashed name; false when neither is there (or the hash is not the file's). */
export function sendDocsFile(req: IncomingMessage, res: ServerResponse, file: string): boolean {
  let cacheControl = REVALIDATE;
  if (!existsSync(file) || !statSync(file).isFile()) {
    const hashed = HASHED_NAME.exec(basename(file));
    const plain = hashed ? join(dirname(file), `${hashed[1]}${hashed[3]}`) : undefined;
    if (!plain || !existsSync(plain) || !statSync(plain).isFile() || !prepare(plain).hash.startsWith(hashed![2])) return false;
    file = plain;
    cacheControl = IMMUTABLE;
  }
  const prepared = prepare(file);
  const encoding = chosenEncoding(req, file);
  const etags = [`"${prepared.hash.slice(0, 32)}"`, `"${prepared.hash.slice(0, 32)}-br"`, `"${prepared.hash.slice(0, 32)}-gzip"`];
  const headers: Record<string, string | number> = {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': cacheControl,
    ETag: encoding ? `"${prepared.hash.slice(0, 32)}-${encoding}"` : etags[0],
    'Last-Modified': prepared.lastModified,
  };
  if (COMPRESSIBLE.has(extname(file))) headers.Vary = 'Accept-Encoding';
  if (prepared.csp) {
    headers['Content-Security-Policy'] = prepared.csp;
    headers['X-Frame-Options'] = 'DENY';
  }
  if (notModified(req, etags, prepared)) {
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  const body = encoding ? encode(prepared, encoding) : prepared.bytes;
  if (encoding) headers['Content-Encoding'] = encoding;
  headers['Content-Length'] = body.length;
  res.writeHead(200, headers);
  res.end(body);
  return true;
}
