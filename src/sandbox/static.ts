// The bundles at /openapi/*.yaml and the docs site at /docs, read from generated/ (written by `npm run build`) and
// served with validators, compression and hashed asset names (http/docs-host.ts, D-115).
import { existsSync, readdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbsolute, join, normalize } from 'node:path';
import { sendDocsFile } from './http/docs-host.ts';

function decodeOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** Serve `/openapi/<bundle>.yaml` or `/docs/...`; false when the path is not one of them (or the file is missing). */
export function serveStatic(generatedDir: string, pathname: string, req: IncomingMessage, res: ServerResponse): boolean {
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
    return sendDocsFile(req, res, join(generatedDir, 'docs', relative));
  }
  const bundle = /^\/openapi\/(care-api(?:\.[a-z]+)?\.yaml)$/.exec(pathname);
  if (bundle) return sendDocsFile(req, res, join(generatedDir, bundle[1]));
  if (pathname === '/openapi' || pathname === '/openapi/') {
    const names = existsSync(generatedDir) ? readdirSync(generatedDir).filter((n) => /^care-api.*\.yaml$/.test(n)) : [];
    const text = JSON.stringify({ bundles: names.map((n) => `/openapi/${n}`) });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    return true;
  }
  return false;
}
