// The docs site in real headless Chromium: served from 127.0.0.1 (and opened from file://), it renders with
// JavaScript, asks nothing of any other host, shows every operation and webhook of the description, both
// environments and the decisions, and logs no console error.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../scripts/build/context.ts';

const CHROMIUM = '/usr/bin/chromium';
const DOCS_DIR = resolve(repoRoot, 'generated/docs');
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.txt': 'text/plain; charset=utf-8' };

/** operationIds of the complete bundle: the seed's 31 operations and 5 webhooks (test/seed-oracle checks the bundle). */
function operationIds(map: 'paths' | 'webhooks'): string[] {
  const document = parse(readFileSync(resolve(repoRoot, 'generated/care-api.yaml'), 'utf8'), { maxAliasCount: -1 });
  return Object.values<any>(document[map]).flatMap((item) => METHODS.filter((m) => item[m]).map((m) => item[m].operationId));
}

function isLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(protocol)) return protocol === 'data:' || protocol === 'blob:' || protocol === 'file:';
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
}

function serveDocs(): Promise<Server> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname);
    const file = normalize(join(DOCS_DIR, path === '/' ? 'index.html' : path));
    if (!file.startsWith(DOCS_DIR) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

interface Visit {
  requests: string[];
  consoleErrors: string[];
  text: string;
  renderedOperations: string[];
}

let context: BrowserContext;
let userDataDir: string;
let server: Server;

/** Opens `url`, waits until Redoc has rendered the last webhook, and records what happened. */
async function visit(url: string): Promise<Visit> {
  const page: Page = await context.newPage();
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  page.on('requestfailed', (request) => consoleErrors.push(`request failed: ${request.url()}`));
  try {
    await page.goto(url, { waitUntil: 'load' });
    const lastWebhook = operationIds('webhooks').at(-1);
    await page.waitForSelector(`[id="operation/${lastWebhook}"]`, { state: 'attached', timeout: 45_000 });
    const renderedOperations = await page.$$eval('[id^="operation/"]', (elements) => elements.map((e) => e.id.slice('operation/'.length)));
    const text = await page.evaluate(() => document.body.innerText);
    return { requests, consoleErrors, text, renderedOperations };
  } finally {
    await page.close();
  }
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the docs test needs Debian's Chromium. Install it with: apt-get install -y --no-install-recommends chromium`);
  }
  userDataDir = mkdtempSync(join(tmpdir(), 'care-docs-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  // Nothing leaves the machine even if the page asks: every non-loopback request is aborted (and still recorded).
  await context.route('**/*', (route) => (isLoopback(route.request().url()) ? route.continue() : route.abort()));
  server = await serveDocs();
});

afterAll(async () => {
  await context?.close();
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

describe('docs site generated/docs/index.html', () => {
  let served: Visit;
  beforeAll(async () => {
    const { port } = server.address() as { port: number };
    served = await visit(`http://127.0.0.1:${port}/`);
  });

  it('renders every operation (31) and webhook (5) of the description', () => {
    const paths = operationIds('paths');
    const webhooks = operationIds('webhooks');
    expect(paths).toHaveLength(31);
    expect(webhooks).toHaveLength(5);
    expect([...new Set(served.renderedOperations)].sort()).toEqual([...paths, ...webhooks].sort());
  });

  it('makes no request to a host other than the loopback', () => {
    expect(served.requests.length).toBeGreaterThan(1);
    expect(served.requests.filter((url) => !isLoopback(url))).toEqual([]);
  });

  it('logs no console error', () => {
    expect(served.consoleErrors).toEqual([]);
  });

  it('shows both environments, the filter grammar, the coercion table, vendor extensions and the decisions', () => {
    expect(served.text).toMatch(/\/care\/v0\/sandbox/);
    expect(served.text).toMatch(/\/care\/v0(?!\/sandbox)/);
    expect(served.text).toMatch(/Lists: pagination, sorting, filtering/);
    expect(served.text).toMatch(/notBetween/);
    expect(served.text).toMatch(/Input coercion/);
    expect(served.text).toMatch(/x-care-decision/);
    expect(served.text).toMatch(/Decisions/);
  });

  it('prints query examples as the service reads them (nested deepObject filters included)', () => {
    expect(served.text).toContain('filter[status][eq]=10');
    expect(served.text).not.toContain('[object Object]');
  });

  it('works from file:// too, with no request outside the docs folder', async () => {
    const opened = await visit(pathToFileURL(join(DOCS_DIR, 'index.html')).href);
    expect(opened.consoleErrors).toEqual([]);
    expect(opened.requests.filter((url) => !url.startsWith('file:') && !url.startsWith('blob:') && !url.startsWith('data:'))).toEqual([]);
    expect(new Set(opened.renderedOperations).size).toBe(36);
  });
});
