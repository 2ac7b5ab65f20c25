// Issue 47 in real headless Chromium: a page of another origin cannot read the sandbox's demo keys nor call its agent
// API (D-111), a page under a rebinding name reaches nothing (D-112: Chromium's own resolver maps the name to
// 127.0.0.1, so no packet leaves loopback), the console cannot be framed, and the reference and the console, served
// by the sandbox under their Content-Security-Policy, render with no console error (D-114, D-115). A hosted sandbox's
// console asks for a key and sends with it (D-113).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/sandbox/app.ts';

const CHROMIUM = '/usr/bin/chromium';
const REBIND = 'rebind.attacker.test';

let context: BrowserContext;
let userDataDir: string;
let sandbox: Sandbox;
let attacker: Server;
let attackerOrigin = '';
/** Every answer the sandbox gave: path and status (a second 'request' listener only watches). */
const answered: Array<{ method: string; path: string; status: number }> = [];

beforeAll(async () => {
  sandbox = await createSandbox({ deliver: false, seedCases: 20, log: () => undefined });
  sandbox.server.on('request', (req, res) => res.once('finish', () => answered.push({ method: req.method ?? '', path: String(req.url), status: res.statusCode })));
  // another origin: an empty page on another port of the loopback
  attacker = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>another site</title><p>elsewhere</p>');
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  userDataDir = mkdtempSync(join(tmpdir(), 'care-security-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', // no name resolves but the rebinding one, to the loopback: nothing can leave the machine. (Playwright's request
    // routing is not used: it answers CORS preflights itself, and the preflights are what is tested here.)
    `--host-resolver-rules=MAP ${REBIND} 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1`],
  });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await sandbox?.close();
  await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

async function pageAt(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors };
}

describe('a page of another origin', () => {
  it('cannot read try-it.json, in any fetch mode', async () => {
    const { page } = await pageAt(`${attackerOrigin}/`);
    const tryIt = `${sandbox.url}/docs/try-it.json`;
    const outcome = await page.evaluate(async (url) => {
      const cors = await fetch(url).then((r) => r.text(), (e: Error) => `refused: ${e.name}`);
      const opaque = await fetch(url, { mode: 'no-cors' }).then(async (r) => ({ type: r.type, status: r.status, body: await r.text() }));
      return { cors, opaque };
    }, tryIt);
    expect(outcome.cors).toBe('refused: TypeError');
    expect(outcome.opaque).toEqual({ type: 'opaque', status: 0, body: '' });
    const secret = sandbox.demo.sandbox.customer.apiKeySecret;
    expect(JSON.stringify(outcome)).not.toContain(secret);
    // and the sandbox itself refused both: 403, nothing served
    expect(answered.filter((a) => a.path === '/docs/try-it.json').map((a) => a.status)).toEqual([403, 403]);
    await page.close();
  });

  it('cannot call the agent API, with a preflight or without one', async () => {
    const { page } = await pageAt(`${attackerOrigin}/`);
    const before = answered.length;
    const outcome = await page.evaluate(async (base) => {
      const body = JSON.stringify({ customer: 'x', shortDescription: 'made by another site' });
      const json = await fetch(`${base}/_agent/sandbox/cases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.status, (e: Error) => `refused: ${e.name}`);
      const simple = await fetch(`${base}/_agent/sandbox/cases`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }).then((r) => r.type);
      const read = await fetch(`${base}/_agent`).then((r) => r.status, (e: Error) => `refused: ${e.name}`);
      return { json, simple, read };
    }, sandbox.url);
    expect(outcome).toEqual({ json: 'refused: TypeError', simple: 'opaque', read: 'refused: TypeError' });
    const agent = answered.slice(before).filter((a) => a.path.startsWith('/_agent'));
    // the preflight, the simple POST and the GET: each refused 403, none reached the agent API
    expect(agent.map((a) => `${a.method} ${a.status}`).sort()).toEqual(['GET 403', 'OPTIONS 403', 'POST 403']);
    await page.close();
  });

  it('cannot frame the console', async () => {
    const { page } = await pageAt(`${attackerOrigin}/`);
    await page.evaluate((src) => {
      const frame = document.createElement('iframe');
      frame.src = src;
      document.body.append(frame);
      return new Promise((resolve) => frame.addEventListener('load', resolve));
    }, `${sandbox.url}/docs/console.html`);
    const framed = page.frames().find((frame) => frame !== page.mainFrame());
    expect(framed).toBeDefined();
    // a refused frame shows Chromium's error page, never the console
    expect(await framed!.$('#console').catch(() => null)).toBeNull();
    await page.close();
  });
});

describe('a rebinding name', () => {
  it('reaches nothing: the docs, the keys and the agent API answer 421 under it', async () => {
    const port = new URL(sandbox.url).port;
    const { page } = await pageAt(`http://${REBIND}:${port}/docs/console.html`);
    const shown = await page.evaluate(async () => ({ text: document.body.innerText, keys: await fetch('/docs/try-it.json').then((r) => r.status), agent: await fetch('/_agent').then((r) => r.status) }));
    expect(shown.text).toContain('misdirected_host');
    expect(shown).toMatchObject({ keys: 421, agent: 421 });
    await page.close();
  });
});

describe('the docs served by the sandbox under their Content-Security-Policy', () => {
  it('the reference renders with no console error', async () => {
    const { page, errors } = await pageAt(`${sandbox.url}/docs/`);
    await page.waitForSelector('body[data-docs="ready"]', { state: 'attached', timeout: 90_000 });
    await page.waitForSelector('[id^="operation/"]', { state: 'attached', timeout: 45_000 });
    expect(errors).toEqual([]);
    await page.close();
  }, 150_000);

  it('the console gets its tokens and sends a request, with no console error', async () => {
    const { page, errors } = await pageAt(`${sandbox.url}/docs/console.html#/Contracts/listContracts`);
    await page.waitForSelector('#care-try-it[data-state="ready"]', { state: 'attached', timeout: 60_000 });
    await page.waitForSelector('body[data-console="ready"]', { state: 'attached', timeout: 60_000 });
    expect(errors).toEqual([]);
    await page.close();
  }, 150_000);
});

describe('the console of a hosted sandbox', () => {
  it('asks for a key, refuses a wrong one, and sends with the right one', async () => {
    const hosted = await createSandbox({ deliver: false, seedCases: 10, log: () => undefined, publicUrl: 'https://sandbox.partner.example', agentToken: 'agent-secret' });
    try {
      const { page, errors } = await pageAt(`${hosted.url}/docs/console.html#/Contracts/listContracts`);
      await page.waitForSelector('#care-try-it[data-state="ask"]', { state: 'attached', timeout: 60_000 });
      await page.waitForSelector('body[data-console="ready"]', { state: 'attached', timeout: 60_000 });
      const key = hosted.demo.sandbox.partner;
      await page.fill('#care-key input[name="keyId"]', key.apiKeyId);
      await page.fill('#care-key input[name="secret"]', 'not-the-secret');
      await page.click('#care-key-use');
      // refused without the browser's login prompt (the token endpoint's 401 carries a Basic challenge)
      await page.waitForFunction(() => /refused \(token exchange for sandbox answered 401\)/.test(document.getElementById('care-key-status')?.textContent ?? ''), undefined, { timeout: 30_000 });
      await page.fill('#care-key input[name="secret"]', key.apiKeySecret);
      await page.click('#care-key-use');
      await page.waitForSelector('#care-try-it[data-state="ready"]', { state: 'attached', timeout: 30_000 });
      // the console now sends with the typed key's token: the partner's contracts, 200
      const block = '#operations-Contracts-listContracts';
      await page.waitForSelector(`${block} button.execute`, { timeout: 30_000 });
      await page.click(`${block} button.execute`);
      await page.waitForSelector(`${block} .live-responses-table tbody .response-col_status`, { timeout: 30_000 });
      const answer = await page.$eval(`${block} .live-responses-table`, (table) => ({
        status: table.querySelector('tbody .response-col_status')?.textContent?.trim() ?? '',
        text: (table as HTMLElement).innerText,
      }));
      expect(answer.status).toBe('200');
      expect(answer.text).toContain(key.contracts[0]);
      expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
      await page.close();
    } finally {
      await hosted.close();
    }
  }, 150_000);
});
