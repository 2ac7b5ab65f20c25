// The docs' code samples as an integrator uses them (issue 37): every TypeScript sample of the built docs
// (`x-codeSamples` of generated/docs/description.js) compiles strictly against the packed @care-api/client, and the
// read-only ones, curl and TypeScript, run as written against a real sandbox on 127.0.0.1:0. The Filtering guide's
// worked examples are answered 200 by the same sandbox.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';
import { createSandbox, type Sandbox } from '../src/sandbox/app.ts';
import { installProject, removeTemporaryDirs, runIn, type PackedTarball } from './support/packed-project.ts';
import { tokenFor } from './helpers/sandbox.ts';

const run = promisify(execFile);
const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

interface Sample {
  operationId: string;
  method: string;
  curl: string;
  typescript: string;
}

/** The docs copy of the description exactly as the site ships it. */
function docsDescription(): any {
  const text = readFileSync(join(repoRoot, 'generated/docs/description.js'), 'utf8');
  const json = text.slice(text.indexOf('=') + 1).trim().replace(/;$/, '');
  return JSON.parse(json);
}

function samples(): Sample[] {
  const document = docsDescription();
  return Object.values<any>(document.paths).flatMap((item) =>
    METHODS.filter((m) => item[m]).map((m) => {
      const codeSamples: any[] = item[m]['x-codeSamples'] ?? [];
      return {
        operationId: item[m].operationId,
        method: m,
        curl: codeSamples.find((s) => s.label === 'curl')?.source,
        typescript: codeSamples.find((s) => s.lang === 'TypeScript')?.source,
      };
    }),
  );
}

/** `npm pack` of the client alone (its prepack builds it). */
async function packClient(dir: string): Promise<PackedTarball> {
  const { stdout } = await run('npm', ['pack', '--workspace', '@care-api/client', '--pack-destination', dir, '--json'], { cwd: repoRoot, maxBuffer: 64 << 20 });
  const [p] = JSON.parse(stdout);
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'node_modules', p.name, 'package.json'), 'utf8'));
  return { name: p.name, version: p.version, file: join(dir, p.filename), files: p.files, dependencies: manifest.dependencies ?? {} };
}

/**
 * The ids a sample's path reads from CASE_ID, KEY_ID, … (as the samples say: ids of your own data): found through
 * the API as an integrator would, a webhook and an event made first (the sandbox seeds neither for the customer).
 */
async function ownIds(origin: string, token: string): Promise<Record<string, string>> {
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${origin}/care/v0/sandbox${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()).data;
  };
  const ids: Record<string, string> = {};
  for (const kase of await api('GET', '/cases?page[size]=100')) {
    const [comments, attachments] = [await api('GET', `/cases/${kase.id}/comments`), await api('GET', `/cases/${kase.id}/attachments`)];
    if (comments.length && attachments.length) {
      Object.assign(ids, { CASE_ID: kase.id, COMMENT_ID: comments[0].id, ATTACHMENT_ID: attachments[0].id });
      break;
    }
  }
  ids.KEY_ID = (await api('GET', '/apikeys'))[0].id;
  ids.CONTRACT_ID = (await api('GET', '/contracts'))[0].id;
  ids.WEBHOOK_ID = (await api('POST', '/webhooks', { url: 'http://127.0.0.1:9/care-events' })).id;
  ids.EVENT_ID = (await api('POST', '/events/case.updated', { caseId: ids.CASE_ID, updated: ['status'] })).id;
  return ids;
}

const all = samples();
const readOnly = all.filter((s) => s.method === 'get');
let project: string;
let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let packDir: string;
let compiled: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  packDir = mkdtempSync(join(tmpdir(), 'care-docs-samples-'));
  ({ dir: project } = await installProject([await packClient(packDir)]));
  mkdirSync(join(project, 'samples'));
  for (const sample of all) writeFileSync(join(project, 'samples', `${sample.operationId}.ts`), sample.typescript);
  // one strict compile of every sample, emitted to out/ so the read-only ones can run
  compiled = await runIn(project, process.execPath, [tsc, '--strict', '--noEmitOnError', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    '--lib', 'es2022,dom', '--skipLibCheck', '--typeRoots', join(repoRoot, 'node_modules/@types'), '--types', 'node', '--outDir', 'out', ...all.map((s) => `samples/${s.operationId}.ts`)]);
  sandbox = await createSandbox({ deliver: false, seedCases: 80, log: () => {} });
  const key = sandbox.demo.sandbox.customer;
  env = { ...process.env, CARE_URL: sandbox.url, CARE_KEY_ID: key.apiKeyId, CARE_KEY_SECRET: key.apiKeySecret, ...(await ownIds(sandbox.url, await tokenFor(sandbox.url, key.apiKeyId, key.apiKeySecret, 'sandbox'))) };
}, 300_000);

afterAll(async () => {
  await sandbox?.close();
  removeTemporaryDirs();
  if (packDir) rmSync(packDir, { recursive: true, force: true });
});

describe('code samples of the docs (x-codeSamples)', () => {
  it('every operation has a curl and a TypeScript sample', () => {
    expect(all.length).toBe(31);
    for (const sample of all) {
      expect(sample.curl, sample.operationId).toMatch(/oauth\/token[\s\S]*Authorization: Bearer \$TOKEN/);
      expect(sample.typescript, sample.operationId).toContain("from '@care-api/client'");
    }
  });

  it('list samples pass a typed filter', () => {
    const lists = all.filter((s) => /^list/.test(s.operationId));
    expect(lists.length).toBeGreaterThanOrEqual(7);
    for (const sample of lists) expect(sample.typescript, sample.operationId).toMatch(/filter: \{/);
  });

  it('every TypeScript sample compiles strictly against the packed client', () => {
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
  });

  it('a sample with a mistyped filter does not compile (the check can fail)', async () => {
    const list = all.find((s) => s.operationId === 'listCases')!;
    const wrong = list.typescript.replace(/status: \{ eq: 10 \}/, "status: { eq: 'ten' }");
    expect(wrong).not.toBe(list.typescript);
    writeFileSync(join(project, 'wrong.ts'), wrong);
    const result = await runIn(project, process.execPath, [tsc, '--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
      '--lib', 'es2022,dom', '--skipLibCheck', '--typeRoots', join(repoRoot, 'node_modules/@types'), '--types', 'node', 'wrong.ts']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/wrong\.ts.*error TS2322/);
  });

  it.each(readOnly.map((s) => [s.operationId, s]))('%s: the TypeScript sample runs against the sandbox', async (_id, sample) => {
    const result = await new Promise<{ code: number; out: string }>((done) =>
      execFile(process.execPath, [join('out', `${sample.operationId}.js`)], { cwd: project, env, timeout: 60_000 }, (error, stdout, stderr) =>
        done({ code: error ? 1 : 0, out: stdout + stderr }),
      ),
    );
    expect(result.out).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/Sandbox|printer|\.txt|\.png|\.log/i);
  });

  it.each(readOnly.map((s) => [s.operationId, s]))('%s: the curl sample runs against the sandbox', async (_id, sample) => {
    const { stdout } = await run('sh', ['-c', sample.curl], { cwd: project, env, timeout: 60_000, maxBuffer: 16 << 20 });
    expect(stdout).toMatch(/^HTTP\/1\.1 200 /);
    expect(stdout).toMatch(/^X-CareAPI-Env: Sandbox\r?$/im);
  });
});

describe('the Filtering guide', () => {
  it('answers every worked example 200', async () => {
    const guide: string = docsDescription().tags.find((t: any) => t.name === 'Filtering').description;
    const requests = [...guide.matchAll(/`GET (\/[^?`]+)\?([^`]+)`/g)].map((m) => ({ path: m[1], query: m[2] }));
    expect(requests.length).toBeGreaterThan(40);
    const key = sandbox.demo.sandbox.customer;
    const token = await tokenFor(sandbox.url, key.apiKeyId, key.apiKeySecret, 'sandbox');
    const failures: string[] = [];
    for (const { path, query } of requests) {
      const search = query.split('&').map((pair) => { const at = pair.indexOf('='); return at < 0 ? encodeURIComponent(pair) : `${encodeURIComponent(pair.slice(0, at))}=${encodeURIComponent(pair.slice(at + 1))}`; }).join('&');
      const response = await fetch(`${sandbox.url}/care/v0/sandbox${path}?${search}`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) failures.push(`${path}?${query}: ${response.status} ${await response.text()}`);
    }
    expect(failures).toEqual([]);
  });
});
