// The packages as their users get them (issue 10): `npm pack` of each workspace package, installed from the tarballs
// into fresh projects with `npm ci --offline --omit=dev` (no registry: the npm cache), then used from there only.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';
import { startPrism } from './support/conformance-targets.ts';
import { installProject, packWorkspaces, removeTemporaryDirs, reuseSqliteBinary, runIn, startInstalledSandbox, type PackedTarball } from './support/packed-project.ts';

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');

let packs: Map<string, PackedTarball>;
const pack = (name: string) => {
  const found = packs.get(name);
  if (!found) throw new Error(`${name} was not packed`);
  return found;
};

beforeAll(async () => {
  packs = await packWorkspaces();
}, 300_000);
afterAll(() => removeTemporaryDirs());

/** What may be in each tarball; anything else (tests, benches, TypeScript sources, maps, the repository) fails. */
const allowed: Record<string, RegExp[]> = {
  '@care-api/client': [/^dist\/src\/(client|grammar|spec)\/[\w-]+\.(js|d\.ts)$/, /^dist\/generated\/care-[\w-]+\.(js|d\.ts)$/],
  '@care-api/conformance': [/^dist\/src\/conformance\/cli\.js$/, /^dist\/THIRD-PARTY-NOTICES\.txt$/, /^dist\/generated\/care-api(\.\w+)?\.yaml$/],
  '@care-api/sandbox': [/^dist\/src\/sandbox\/cli\.js$/, /^dist\/THIRD-PARTY-NOTICES\.txt$/, /^dist\/generated\/care-api(\.\w+)?\.yaml$/, /^dist\/generated\/docs\/[\w.-]+$/],
  '@care-api/description': [/^care-api(\.\w+)?\.yaml$/, /^docs\/[\w.-]+$/],
};
const always = [/^package\.json$/, /^README\.md$/];

describe('each tarball holds its build and nothing else', () => {
  it.each(Object.keys(allowed))('%s', (name) => {
    const files = pack(name).files.map((f) => f.path);
    const stray = files.filter((f) => ![...always, ...allowed[name]].some((re) => re.test(f)));
    expect(stray).toEqual([]);
    expect(files).toContain('README.md');
    for (const f of files) expect(f).not.toMatch(/(^|\/)(test|tests|bench|scripts|openapi|\.ci)\/|\.test\.|\.map$|(?<!\.d)\.ts$/);
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8'));
    for (const bin of Object.values<string>(manifest.bin ?? {})) expect(files).toContain(bin);
  });
});

function installedPackages(dir: string): string[] {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  return Object.keys(lock.packages).filter(Boolean).map((p) => p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length));
}

/**
 * Help that fits where it runs (issue 36): an installed bin's `--help` names no file of the repository (a default such
 * as generated/care-api.yaml, a guide such as docs/conformance.md), and every README it points at is in the package.
 */
async function expectHelpFitsInstalled(dir: string, bin: string): Promise<string> {
  const { code, stdout } = await runIn(dir, join(dir, 'node_modules/.bin', bin), ['--help']);
  expect(code).toBe(0);
  expect(stdout).not.toMatch(/(?<![\w/.])(generated|docs|src|test|scripts|openapi)\/[\w.-]/);
  // a decision id (D-nn) names a record of the repository's docs/decisions.md, which the package does not hold
  expect(stdout).not.toMatch(/\bD-\d+\b/);
  const readmes = [...stdout.matchAll(/README of (@care-api\/[\w-]+)/g)].map((m) => m[1]);
  expect(readmes.length, `${bin} --help points at its package's README`).toBeGreaterThan(0);
  for (const name of readmes) expect(existsSync(join(dir, 'node_modules', name, 'README.md')), name).toBe(true);
  return stdout;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('@care-api/client installed alone', () => {
  let dir: string;
  beforeAll(async () => {
    ({ dir } = await installProject([pack('@care-api/client')])); // install scripts allowed: there must be none
  }, 300_000);

  it('brings no native build and no server dependency', () => {
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
    expect(Object.entries(lock.packages).filter(([, e]: [string, any]) => e.hasInstallScript).map(([p]) => p)).toEqual([]);
    const files = filesUnder(join(dir, 'node_modules'));
    expect(files.filter((f) => /binding\.gyp$|\.node$/.test(f))).toEqual([]);
    const installed = installedPackages(dir);
    expect(installed).toContain('openapi-fetch');
    for (const serverDependency of ['better-sqlite3', 'busboy', ...Object.keys(pack('@care-api/sandbox').dependencies)]) expect(installed).not.toContain(serverDependency);
  });

  it('takes under 5 MB installed, openapi-fetch included', () => {
    const bytes = filesUnder(join(dir, 'node_modules')).reduce((sum, f) => sum + statSync(f).size, 0);
    expect(bytes).toBeLessThan(5 * 1024 * 1024);
  });

  it('loads each JavaScript entry of its exports', async () => {
    const script = "const c = await import('@care-api/client'); const w = await import('@care-api/client/webhooks'); const f = await import('@care-api/client/filters');"
      + " console.log(typeof c.createCareClient, typeof c.CareApiError, typeof w.verifyWebhook, typeof f.careOperatorArities);";
    const { code, stdout, stderr } = await runIn(dir, process.execPath, ['--input-type=module', '-e', script]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('function function function object');
  });
});

describe('@care-api/conformance installed alone', () => {
  it('answers `npx care-conformance --help` without the repository', async () => {
    const { dir } = await installProject([pack('@care-api/conformance')]);
    expect(installedPackages(dir)).not.toContain('tsx');
    const { code, stdout } = await runIn(dir, npx, ['--offline', 'care-conformance', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: care-conformance');
    await expectHelpFitsInstalled(dir, 'care-conformance');
  }, 300_000);
});

describe('every package in one project, used from there', () => {
  let dir: string;
  let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
  beforeAll(async () => {
    // --ignore-scripts: better-sqlite3's install script would compile it; reuseSqliteBinary says why that is equal
    ({ dir } = await installProject([...packs.values()], ['--ignore-scripts']));
    reuseSqliteBinary(dir);
    sandbox = await startInstalledSandbox(dir);
  }, 300_000);
  afterAll(async () => {
    await sandbox?.stop();
  });

  const typecheck = (file: string, extra: string[] = []) =>
    runIn(dir, process.execPath, [tsc, '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom',
      // the consumer's own @types/node would be a devDependency of theirs; the repository's stands in for it
      '--typeRoots', join(repoRoot, 'node_modules/@types'), '--types', 'node', ...extra, file]);

  it('the README quick start typechecks strictly, a wrong filter does not, and it runs against the packaged sandbox', async () => {
    const source = readFileSync(join(repoRoot, 'test/fixtures/consumer/quick-start.ts'), 'utf8');
    writeFileSync(join(dir, 'quick-start.ts'), source);
    // the same program with each `@ts-expect-error` removed: exactly the lines after them must fail
    const lines = source.split('\n');
    const expectedErrorLines = lines.flatMap((l, i) => (l.trim().startsWith('// @ts-expect-error') ? [i + 2] : []));
    expect(expectedErrorLines.length).toBeGreaterThan(0);
    writeFileSync(join(dir, 'mistakes.ts'), lines.map((l) => (l.trim().startsWith('// @ts-expect-error') ? '//' : l)).join('\n'));
    const [good, bad] = await Promise.all([typecheck('quick-start.ts', ['--outDir', 'out']), typecheck('mistakes.ts', ['--noEmit'])]);
    expect(good.stdout).toBe('');
    expect(good.code).toBe(0);
    expect(bad.code).not.toBe(0);
    const errorLines = [...bad.stdout.matchAll(/^mistakes\.ts\((\d+),\d+\): error/gm)].map((m) => Number(m[1]));
    expect(new Set(errorLines)).toEqual(new Set(expectedErrorLines));

    const ran = await runIn(dir, process.execPath, ['out/quick-start.js', sandbox.configFile], 60_000);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const seen = JSON.parse(ran.stdout);
    expect(seen.environment).toBe('Sandbox');
    expect(seen.firstPage.length).toBeGreaterThan(0);
    for (const c of seen.firstPage) {
      expect(c.status).toBe(10);
      expect([1, 2]).toContain(c.priority);
    }
    expect(seen.paginated).toBe(seen.totalCount);
    expect(seen.created.shortDescription).toBe('Printer on fire');
    expect(seen.download).toEqual({ text: 'hello from a consumer', fileName: 'hello.txt', contentType: 'text/plain' });
    expect(seen.forbidden).toEqual({ status: 403, environment: 'Sandbox', errors: 1 });
    expect(seen.webhook).toEqual({ eventType: 'case.updated', caseId: seen.created.id, updated: ['priority'] });
  }, 180_000);

  it('`npx care-conformance --config …` passes against the packaged sandbox', async () => {
    const { code, stdout } = await runIn(dir, npx, ['--offline', 'care-conformance', '--config', sandbox.configFile], 400_000);
    expect(stdout).toMatch(/\bPASS\b|passed/);
    expect(code, stdout.slice(-3000)).toBe(0);
  }, 420_000);

  it('`care-sandbox --help` names only what the installed package holds; its README names the better-sqlite3 it installs', async () => {
    const help = await expectHelpFitsInstalled(dir, 'care-sandbox');
    expect(help).toContain('/docs/'); // the reference it serves, checked below
    const readme = readFileSync(join(dir, 'node_modules/@care-api/sandbox/README.md'), 'utf8');
    const sqlite = JSON.parse(readFileSync(join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8'));
    expect(readme).toContain(`better-sqlite3@${sqlite.version} (install: ${sqlite.scripts.install})`);
    expect(readme).toContain('npm install-scripts approve better-sqlite3');
  });

  it('the packaged sandbox serves its docs site and bundles', async () => {
    const docs = await fetch(`${sandbox.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<title>Care API');
    const bundle = await fetch(`${sandbox.url}/openapi/care-api.sandbox.yaml`);
    expect(await bundle.text()).toBe(readFileSync(join(repoRoot, 'generated/care-api.sandbox.yaml'), 'utf8'));
  });

  it('Prism mocks node_modules/@care-api/description/care-api.sandbox.yaml', async () => {
    const document = join(dir, 'node_modules/@care-api/description/care-api.sandbox.yaml');
    expect(existsSync(join(dir, 'node_modules/@care-api/description/docs/index.html'))).toBe(true);
    const prism = await startPrism(document);
    try {
      const res = await fetch(`${prism.url}/cases`, { headers: { Authorization: 'Bearer any' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-careapi-env')).toBe('Sandbox');
    } finally {
      await prism.stop();
    }
  });
});
