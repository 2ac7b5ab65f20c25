// The docs' code samples as an integrator uses them (issues 37 and 44): every TypeScript sample of the built docs
// (`x-codeSamples` of generated/docs/description.js) compiles strictly against the packed @care-api/client, and every
// sample, curl and TypeScript, runs as written after a real `npm start`, in a shell that has only the export line it
// printed (nothing set by the test). Every list sample, every worked example of the Filtering guide and every
// example of the per-list operator lists finds at least one item in the freshly seeded sandbox; a failure names it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, repoRoot } from '../src/spec/index.ts';
import { SAMPLE_VARIABLES } from '../scripts/build/docs/code-samples.ts';
import { npmStart, type StartProcess } from './helpers/npm-start.ts';
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

const all = samples();
/** Reads first, then creates and updates, deletions last: one run in the order a reader could take them. */
const ORDER = ['get', 'post', 'put', 'patch', 'delete'];
const ordered = [...all].sort((a, b) => ORDER.indexOf(a.method) - ORDER.indexOf(b.method));
let project: string;
let packDir: string;
let compiled: { code: number; stdout: string; stderr: string };

/** `npm start` as a reader runs it (sandbox alone, fresh in-memory data), and the export line it printed. */
async function startedAsPrinted(): Promise<{ run: StartProcess; exportLine: string }> {
  const run = npmStart(['--memory', '--port', '0', '--no-mocks', '--loopback-only']);
  await run.waitFor(/Ctrl-C stops all/);
  const exportLine = run.output.split('\n').map((line) => line.trim()).find((line) => line.startsWith('export CARE_'));
  if (!exportLine) {
    await run.stop(); // leave nothing running behind a failed test
    throw new Error(`npm start printed no export line:\n${run.output}`);
  }
  return { run, exportLine };
}

/** A shell environment with nothing of ours in it: what a reader's new terminal has before pasting the line. */
const bareEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };

/** The variables an `export A=1 B=2` line sets. */
function exported(line: string): Record<string, string> {
  return Object.fromEntries(line.replace(/^export\s+/, '').split(/\s+/).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

/** What an answer must show: a 2xx, and at least one item when the operation lists. */
function judged(operationId: string, status: number, body: unknown): string | undefined {
  if (status < 200 || status > 299) return `${operationId}: ${status} ${JSON.stringify(body).slice(0, 300)}`;
  if (/^list/.test(operationId) && !((body as any)?.data?.length > 0)) return `${operationId}: the list answered no item (its example matches nothing in the seeded sandbox)`;
  return undefined;
}

beforeAll(async () => {
  packDir = mkdtempSync(join(tmpdir(), 'care-docs-samples-'));
  ({ dir: project } = await installProject([await packClient(packDir)]));
  mkdirSync(join(project, 'samples'));
  for (const sample of all) writeFileSync(join(project, 'samples', `${sample.operationId}.ts`), sample.typescript);
  // one strict compile of every sample, emitted to out/ so they can run
  compiled = await runIn(project, process.execPath, [tsc, '--strict', '--noEmitOnError', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    '--lib', 'es2022,dom', '--skipLibCheck', '--typeRoots', join(repoRoot, 'node_modules/@types'), '--types', 'node', '--outDir', 'out', ...all.map((s) => `samples/${s.operationId}.ts`)]);
}, 300_000);

afterAll(() => {
  removeTemporaryDirs();
  if (packDir) rmSync(packDir, { recursive: true, force: true });
});

describe('code samples of the docs (x-codeSamples)', () => {
  it('every operation has a curl and a TypeScript sample, reading only the variables npm start prints', () => {
    expect(all.length).toBe(31);
    for (const sample of all) {
      expect(sample.curl, sample.operationId).toMatch(/oauth\/token[\s\S]*Authorization: Bearer \$TOKEN/);
      expect(sample.typescript, sample.operationId).toContain("from '@care-api/client'");
      for (const text of [sample.curl, sample.typescript]) {
        const read = new Set([...text.matchAll(/\bCARE_[A-Z_]+/g)].map((m) => m[0]));
        expect([...read].filter((name) => !(SAMPLE_VARIABLES as readonly string[]).includes(name)), sample.operationId).toEqual([]);
      }
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
    const wrong = list.typescript.replace(/status: \{ (\w+): (\d+) \}/, "status: { $1: 'ten' }");
    expect(wrong).not.toBe(list.typescript);
    writeFileSync(join(project, 'wrong.ts'), wrong);
    const result = await runIn(project, process.execPath, [tsc, '--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
      '--lib', 'es2022,dom', '--skipLibCheck', '--typeRoots', join(repoRoot, 'node_modules/@types'), '--types', 'node', 'wrong.ts']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/wrong\.ts.*error TS2322/);
  });

  // Each language against its own freshly started `npm start`, in a shell that has only the line it printed: every
  // sample in order (reads, writes, deletions), each answer 2xx and every list at least one item.
  it('every curl sample runs, in a shell that has only the export line npm start printed', async () => {
    const { run, exportLine } = await startedAsPrinted();
    const failures: string[] = [];
    try {
      for (const sample of ordered) {
        const result = await new Promise<{ code: number; out: string }>((done) =>
          execFile('bash', ['-c', `${exportLine}\n${sample.curl}`], { cwd: project, env: bareEnv, timeout: 60_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
            done({ code: error ? 1 : 0, out: stdout + stderr })),
        );
        const status = Number(/^HTTP\/1\.1 (\d{3})/m.exec(result.out)?.[1] ?? 0);
        const body = result.out.slice(result.out.search(/\r?\n\r?\n/)).trim();
        let parsed: unknown = body;
        try {
          parsed = JSON.parse(body);
        } catch {
          // a download, or an answer that is not JSON
        }
        const failure = result.code !== 0 ? `${sample.operationId}: exit ${result.code}: ${result.out.slice(0, 300)}` : judged(sample.operationId, status, parsed);
        if (failure) failures.push(failure);
        else if (/^HTTP/m.test(result.out)) expect(result.out, sample.operationId).toMatch(/^X-CareAPI-Env: Sandbox\r?$/im);
      }
    } finally {
      await run.stop();
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('every TypeScript sample runs, with only the variables of the export line npm start printed', async () => {
    const { run, exportLine } = await startedAsPrinted();
    const failures: string[] = [];
    try {
      for (const sample of ordered) {
        const result = await new Promise<{ code: number; out: string }>((done) =>
          execFile(process.execPath, [join('out', `${sample.operationId}.js`)], { cwd: project, env: { ...bareEnv, ...exported(exportLine) }, timeout: 60_000 }, (error, stdout, stderr) =>
            done({ code: error ? 1 : 0, out: stdout + stderr })),
        );
        if (result.code !== 0 || /Error/.test(result.out)) failures.push(`${sample.operationId}: ${result.out.slice(0, 400)}`);
        else if (/^list/.test(sample.operationId) && /^sandbox \[\]\s*$/.test(result.out)) failures.push(`${sample.operationId}: the list answered no item`);
      }
    } finally {
      await run.stop();
    }
    expect(failures).toEqual([]);
  }, 300_000);
});

/** Every `GET /path?query` written in backticks in `markdown`. */
function requestsIn(markdown: string): { path: string; query: string }[] {
  return [...markdown.matchAll(/`GET (\/[^?`]+)\?([^`]+)`/g)].map((m) => ({ path: m[1], query: m[2] }));
}

/** The per-list operator examples: `filter[f][op]=v` of each list's filter parameter, with the list's path. */
function operatorListExamples(): { path: string; query: string }[] {
  const document = docsDescription();
  const out: { path: string; query: string }[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    const parameter = (item.get?.parameters ?? []).find((p: any) => p.name === 'filter');
    if (!parameter || path.includes('{') && !/\/cases\/\{caseId\}\/(comments|attachments)$/.test(path)) continue;
    const examplePath = path.replace('{caseId}', String(document.components.parameters.CaseId.example));
    for (const m of String(parameter.description).matchAll(/e\.g\. `(filter\[[^`]+)`/g)) out.push({ path: examplePath, query: m[1] });
  }
  return out;
}

const spec = loadSpec();

/** Why `query` on the list at `path` finds nothing on any data (D-22), or undefined when it should find something. */
function cannotMatch(path: string, query: string): string | undefined {
  const [, field, operator, value] = /^filter\[([^\]]+)\]\[([^\]]+)\](?:=(.*))?$/.exec(query) ?? [];
  if (operator === 'notExists') return 'every declared field is present (D-22)';
  if (operator === 'notSameas' && value === field) return 'a field always equals itself';
  if (operator !== 'null' && operator !== 'empty') return undefined;
  const list = spec.operations.find((op) => op.list && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))?.list;
  const property = list && (spec.document.components.schemas[list.itemSchema]?.properties?.[field] as any);
  if (!property) return undefined;
  const types = [property.type, ...(property.oneOf ?? property.anyOf ?? []).map((s: any) => s.type)].flat();
  if (types.includes('null') || (operator === 'empty' && types.includes('array'))) return undefined;
  return `${field} is never null`;
}

describe('the Filtering guide and the operator lists', () => {
  it('answer every example with at least one item on the freshly seeded sandbox', async () => {
    const guide: string = docsDescription().tags.find((t: any) => t.name === 'Filtering').description;
    const requests = [...requestsIn(guide), ...operatorListExamples()];
    expect(requestsIn(guide).length).toBeGreaterThan(40);
    expect(operatorListExamples().length).toBeGreaterThan(60);
    const { run, exportLine } = await startedAsPrinted();
    const failures: string[] = [];
    const emptyByRule: string[] = [];
    try {
      const vars = exported(exportLine);
      const token = await tokenFor(vars.CARE_AUTH_URL.replace(/\/auth\/v2$/, ''), vars.CARE_API_KEY_ID, vars.CARE_API_KEY_SECRET, 'sandbox');
      for (const { path, query } of requests) {
        const search = query.split('&').map((pair) => { const at = pair.indexOf('='); return at < 0 ? encodeURIComponent(pair) : `${encodeURIComponent(pair.slice(0, at))}=${encodeURIComponent(pair.slice(at + 1))}`; }).join('&');
        const response = await fetch(`${vars.CARE_BASE_URL}${path}?${search}`, { headers: { authorization: `Bearer ${token}` } });
        const body = await response.text();
        if (response.status !== 200) failures.push(`GET ${path}?${query}: ${response.status} ${body}`);
        else if (!(JSON.parse(body).data.length > 0)) {
          const why = cannotMatch(path, query);
          if (why) emptyByRule.push(`${query}: ${why}`);
          else failures.push(`GET ${path}?${query}: matched nothing`);
        }
      }
    } finally {
      await run.stop();
    }
    expect(failures).toEqual([]);
    // the few that can find nothing by the operator's meaning, on any data (D-22): notExists, and null on a field
    // that is never null; they are shown for their form
    expect(emptyByRule.length).toBeLessThan(requests.length / 8);
  }, 300_000);
});
