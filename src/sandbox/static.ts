// The bundles at /openapi/*.yaml and the docs site at /docs, read from generated/ (written by `npm run build`).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, isAbsolute, join, normalize } from 'node:path';

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

function sendFile(res: ServerResponse, file: string): boolean {
  if (!existsSync(file) || !statSync(file).isFile()) return false;
  const bytes = readFileSync(file);
  res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': bytes.length, 'Cache-Control': 'no-cache' });
  res.end(bytes);
  return true;
}

function decodeOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** Serve `/openapi/<bundle>.yaml` or `/docs/...`; false when the path is not one of them (or the file is missing). */
export function serveStatic(generatedDir: string, pathname: string, res: ServerResponse): boolean {
  if (pathname === '/docs') {
    res.writeHead(301, { Location: '/docs/' });
    res.end();
    return true;
  }
  if (pathname.startsWith('/docs/')) {
    const decoded = decodeOrNull(pathname.slice('/docs/'.length));
    if (decoded === null || decoded.includes('\0')) return false; // a malformed escape names no file: 404
    const relative = normalize(decoded || 'index.html');
    if (relative.startsWith('..') || isAbsolute(relative)) return false;
    return sendFile(res, join(generatedDir, 'docs', relative));
  }
  const bundle = /^\/openapi\/(care-api(?:\.[a-z]+)?\.yaml)$/.exec(pathname);
  if (bundle) return sendFile(res, join(generatedDir, bundle[1]));
  if (pathname === '/openapi' || pathname === '/openapi/') {
    const names = existsSync(generatedDir) ? readdirSync(generatedDir).filter((n) => /^care-api.*\.yaml$/.test(n)) : [];
    const text = JSON.stringify({ bundles: names.map((n) => `/openapi/${n}`) });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    return true;
  }
  return false;
}
