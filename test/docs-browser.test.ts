// The docs site in real headless Chromium: served from 127.0.0.1 (and opened from file://), it renders with
// JavaScript, asks nothing of any other host, shows every operation and webhook of the description, both
// environments and the decisions, and logs no console error. Its hygiene (each section once, every link and anchor
// resolves, no repository paths), every deep link rendering, and the API console sending requests to a sandbox that
// serves the site (issue 37). One browser; the reference page is loaded once per origin and reused.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../scripts/build/context.ts';
import { REPOSITORY_PATH } from '../scripts/build/docs/public.ts';
import { createSandbox, type Sandbox } from '../src/sandbox/app.ts';

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
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.txt': 'text/plain; charset=utf-8' };

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
  /** Texts of the section headings (h1, h2 outside operations), ids, and every link's href. */
  headings: string[];
  ids: string[];
  hrefs: string[];
  /** The page, still open, for the tests that reuse it (closed in afterAll). */
  page: Page;
}

let context: BrowserContext;
let userDataDir: string;
let server: Server;
let sandbox: Sandbox;
const openPages: Page[] = [];

/** Opens `url`, waits until Redoc says it is ready (and has rendered the last webhook), and records what happened. */
async function visit(url: string): Promise<Visit> {
  const page: Page = await context.newPage();
  openPages.push(page);
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  page.on('requestfailed', (request) => consoleErrors.push(`request failed: ${request.url()}`));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('body[data-docs="ready"]', { state: 'attached', timeout: 90_000 });
  const lastWebhook = operationIds('webhooks').at(-1);
  await page.waitForSelector(`[id="operation/${lastWebhook}"]`, { state: 'attached', timeout: 45_000 });
  const renderedOperations = await page.$$eval('[id^="operation/"]', (elements) => elements.map((e) => e.id.slice('operation/'.length)));
  const text = await page.evaluate(() => document.body.innerText);
  const { headings, ids, hrefs } = await page.evaluate(() => ({
    headings: Array.from(document.querySelectorAll('h1, h2')).filter((h) => !h.closest('[id*="operation/"]')).map((h) => (h.textContent ?? '').trim()),
    ids: Array.from(document.querySelectorAll('[id]')).map((e) => e.id),
    hrefs: Array.from(document.querySelectorAll('a[href]')).map((a) => a.getAttribute('href') ?? ''),
  }));
  return { requests, consoleErrors, text, renderedOperations, headings, ids, hrefs, page };
}

let fromFile: Promise<Visit> | undefined;
/** The reference page opened once from file:// (at `hash` the first time), for the tests that use it. */
function openedFromFile(hash = ''): Promise<Visit> {
  fromFile ??= visit(pathToFileURL(join(DOCS_DIR, 'index.html')).href + hash);
  return fromFile;
}

function duplicates(values: string[]): string[] {
  return [...new Set(values.filter((value, i) => values.indexOf(value) !== i))];
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
  sandbox = await createSandbox({ deliver: false, seedCases: 60, log: () => {} });
}, 120_000);

afterAll(async () => {
  for (const page of openPages) await page.close().catch(() => {});
  await context?.close();
  await sandbox?.close();
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

let served: Visit;

describe('docs site generated/docs/index.html', () => {
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
    expect(served.text).toMatch(/Paging and sorting/);
    expect(served.text).toMatch(/notBetween/);
    expect(served.text).toMatch(/Input coercion/);
    expect(served.text).toMatch(/x-care-decision/);
    expect(served.text).toMatch(/Decisions/);
  });

  it('prints query examples as the service reads them (nested deepObject filters included)', () => {
    expect(served.text).toContain('filter[status][eq]=10');
    expect(served.text).not.toContain('[object Object]');
  });

  it('each section appears once: no heading outside the operations twice, no id twice', () => {
    expect(served.headings.length).toBeGreaterThan(20);
    expect(duplicates(served.headings)).toEqual([]);
    expect(duplicates(served.ids)).toEqual([]);
  });

  it('every anchor of the page resolves, and every operation and webhook has its deep link in the menu', () => {
    const anchors = [...new Set(served.hrefs.filter((href) => href.startsWith('#')))];
    expect(anchors.length).toBeGreaterThan(36);
    expect(anchors.filter((href) => !served.ids.includes(decodeURIComponent(href.slice(1))))).toEqual([]);
    for (const id of [...operationIds('paths'), ...operationIds('webhooks')]) {
      expect(anchors.filter((href) => href.endsWith(`/operation/${id}`)), id).toHaveLength(1);
    }
  });

  it('every link to a file resolves on the server, and every console link names an operation of the console', async () => {
    const { port } = server.address() as { port: number };
    const files = [...new Set(served.hrefs.filter((href) => !/^(#|[a-z]+:)/i.test(href)))];
    expect(files.length).toBeGreaterThan(1);
    for (const href of [...new Set(files.map((href) => href.split('#')[0]))]) {
      const response = await fetch(new URL(href, `http://127.0.0.1:${port}/`));
      expect(response.status, href).toBe(200);
    }
    const consoleLinks = files.filter((href) => href.startsWith('console.html#/'));
    expect(consoleLinks).toHaveLength(operationIds('paths').length);
    const consolePage = await context.newPage();
    openPages.push(consolePage);
    await consolePage.goto(`http://127.0.0.1:${port}/console.html`);
    await consolePage.waitForSelector('body[data-console="ready"]', { state: 'attached', timeout: 60_000 });
    // a server other than the sandbox: the console shows the description and says where try-it works
    expect(await consolePage.getAttribute('#care-try-it', 'data-state')).toBe('offline');
    const blocks = await consolePage.$$eval('[id^="operations-"]', (elements) => elements.map((e) => e.id));
    for (const href of consoleLinks) {
      const [, tag, operationId] = /^console\.html#\/([^/]+)\/(.+)$/.exec(href)!;
      expect(blocks, href).toContain(`operations-${decodeURIComponent(tag)}-${operationId}`);
    }
    // the console's own jumps (a response's links to the next operation) name operations it shows
    await consolePage.click('#operations-Cases-createCase .opblock-summary');
    const jumps = await consolePage.$$eval('#operations-Cases-createCase a[href^="#"]', (anchors) => anchors.map((a) => a.getAttribute('href') ?? ''));
    expect(jumps.length).toBeGreaterThan(0);
    for (const href of jumps) {
      const [, tag, operationId] = /^#\/([^/]+)\/(\w+)$/.exec(href) ?? [];
      expect(blocks, href).toContain(`operations-${decodeURIComponent(tag ?? '')}-${operationId}`);
    }
  }, 180_000);

  it('shows no path of the repository', () => {
    expect(served.text).not.toMatch(REPOSITORY_PATH);
  });

  it("publishes the contract's decisions only", () => {
    expect(served.text).toMatch(/D-01 Servers and hosts/);
    expect(served.text).toMatch(/D-22 Operator semantics/);
    expect(served.text).not.toMatch(/Tooling choices/);
    expect(served.text).not.toMatch(/D-48 |D-84 |D-92 /);
  });

  it('explains every operator where a list offers it, with code to call the operation', async () => {
    const listCases = await served.page.$eval('[id="operation/listCases"]', (e) => (e as HTMLElement).innerText);
    expect(listCases).toMatch(/Operators of this list \(28\)/);
    expect(listCases).toMatch(/RE2/);
    expect(listCases).toMatch(/no escape/);
    expect(listCases).toMatch(/It names another of/);
    expect(listCases).toMatch(/inclusive range/);
    expect(listCases).toMatch(/filter\[shortDescription\]\[like\]=|filter\[id\]\[like\]=/);
    expect(listCases).toMatch(/curl/);
    expect(listCases).toMatch(/TypeScript/);
  });
});

describe('deep links render', () => {
  it('each operation and webhook, opened by its link, shows its heading in a page that is not blank', async () => {
    const ids = [...operationIds('paths'), ...operationIds('webhooks')];
    const links = served.hrefs.filter((href) => href.includes('/operation/'));
    const linkOf = (id: string) => links.find((href) => href.endsWith(`/operation/${id}`))!;
    // the first by a fresh load of its URL (from file://, which the last test reuses), the others by following
    // their links on that page
    const { page } = await openedFromFile(linkOf(ids[0]));
    await page.setViewportSize({ width: 1280, height: 800 });
    const blank: string[] = [];
    for (const id of ids) {
      if (id !== ids[0]) await page.evaluate((hash) => (location.hash = hash), linkOf(id));
      // ready: the operation's heading is at the top of the viewport (Redoc scrolled to it)
      await page.waitForFunction((op) => {
        const top = document.querySelector(`[id="operation/${op}"]`)?.getBoundingClientRect().top;
        return top !== undefined && top >= -5 && top < 200;
      }, id, { timeout: 30_000 });
      const shot = await page.screenshot({ type: 'png' });
      const inked = await page.evaluate(async (data) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context2d = canvas.getContext('2d')!;
        context2d.drawImage(image, 0, 0);
        const pixels = context2d.getImageData(0, 0, image.width, image.height).data;
        let dark = 0;
        for (let i = 0; i < pixels.length; i += 4) if (pixels[i] + pixels[i + 1] + pixels[i + 2] < 384) dark++;
        return dark / (pixels.length / 4);
      }, shot.toString('base64'));
      // text and code on the page: a blank or white page has next to no dark pixels
      if (!(inked > 0.01)) blank.push(`${id}: ${(inked * 100).toFixed(2)} % dark`);
    }
    expect(blank).toEqual([]);
  }, 300_000);
});

describe('API console (try it) served by a sandbox', () => {
  let page: Page;
  const consoleErrors: string[] = [];
  beforeAll(async () => {
    page = await context.newPage();
    openPages.push(page);
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${sandbox.url}/docs/console.html#/Cases/listCases`);
    await page.waitForSelector('body[data-console="ready"]', { state: 'attached', timeout: 60_000 });
    await page.waitForSelector('#care-try-it[data-state="ready"]', { state: 'attached', timeout: 30_000 });
  }, 120_000);

  /** Executes the operation's request as it stands and answers the status, headers and body the console shows. */
  async function execute(block: string) {
    await page.click(`${block} button.execute`);
    await page.waitForSelector(`${block} .live-responses-table tbody .response-col_status`, { timeout: 30_000 });
    return page.$eval(`${block} .live-responses-table`, (table) => ({
      status: table.querySelector('tbody .response-col_status')?.textContent?.trim() ?? '',
      text: (table as HTMLElement).innerText,
    }));
  }

  it('sends a filtered GET with the demo token and shows the answer with its headers', async () => {
    const block = '#operations-Cases-listCases';
    await page.waitForSelector(`${block} button.execute`, { timeout: 30_000 });
    // the example, nested for editing, is the description's; an integrator's own filter replaces it
    expect(await page.inputValue(`${block} tr[data-param-name="filter"] textarea`)).toMatch(/"status": \{\s*"eq": "10"/);
    await page.fill(`${block} tr[data-param-name="filter"] textarea`, JSON.stringify({ status: { eq: '10' } }));
    const answer = await execute(block);
    expect(answer.status).toBe('200');
    expect(answer.text).toMatch(/x-careapi-env: Sandbox/i);
    expect(answer.text).toMatch(/"totalCount"/);
    const url = await page.$eval(`${block} .request-url pre`, (e) => e.textContent ?? '');
    expect(decodeURIComponent(url)).toContain(`${sandbox.url}/care/v0/sandbox/cases?`);
    expect(decodeURIComponent(url)).toMatch(/[?&]filter\[status\]\[eq\]=10(&|$)/);
    const statuses = [...answer.text.matchAll(/"status": (\d+)/g)].map((m) => m[1]);
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['10']));
  });

  it('shows no link to itself in the operations it lists (the reference has one on every operation)', async () => {
    const block = '#operations-Cases-listCases';
    await page.waitForSelector(`${block} button.execute`, { timeout: 30_000 });
    const shown = await page.$eval('#console', (e) => (e as HTMLElement).innerText);
    expect(shown).toContain('Filters on cases');
    expect(shown).not.toMatch(/Try it in the API console/);
  });

  it('sends a POST with a JSON body and shows the created resource', async () => {
    const block = '#operations-Cases-createCase';
    await page.click(`${block} .opblock-summary`);
    await page.waitForSelector(`${block} textarea.body-param__text`, { timeout: 30_000 });
    const contract = sandbox.demo.sandbox.customer.contracts[0];
    await page.fill(`${block} textarea.body-param__text`, JSON.stringify({ contract, shortDescription: 'Sent from the API console' }));
    const answer = await execute(block);
    expect(answer.status).toBe('201');
    expect(answer.text).toMatch(/location: \/care\/v0\/sandbox\/cases\/CS\d+/i);
    expect(answer.text).toContain('Sent from the API console');
    expect(consoleErrors).toEqual([]);
  });

  it('from file:// says where try-it works and sends nothing', async () => {
    const offline = await context.newPage();
    openPages.push(offline);
    await offline.goto(pathToFileURL(join(DOCS_DIR, 'console.html')).href + '#/Cases/listCases');
    await offline.waitForSelector('body[data-console="ready"]', { state: 'attached', timeout: 60_000 });
    expect(await offline.getAttribute('#care-try-it', 'data-state')).toBe('offline');
    expect(await offline.textContent('#care-try-it')).toMatch(/npm start/);
    expect(await offline.$$('button.execute')).toHaveLength(0);
  }, 180_000);
});

describe('docs site from file://', () => {
  it('works from file:// too, with no request outside the docs folder', async () => {
    const opened = await openedFromFile();
    expect(opened.consoleErrors).toEqual([]);
    expect(opened.requests.filter((url) => !url.startsWith('file:') && !url.startsWith('blob:') && !url.startsWith('data:'))).toEqual([]);
    expect(new Set(opened.renderedOperations).size).toBe(36);
  });
});
