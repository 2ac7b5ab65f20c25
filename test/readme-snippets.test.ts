// Snippets that run as written (issue 36): every TypeScript block of the README's Client section and of
// docs/client.md, taken from the Markdown files themselves, is compiled strictly in a project made the way the README
// says (npm init -y, npm pkg set type=module, the client's tarball) and run against the sandbox `npm start` starts,
// with nothing but the `export CARE_…` line that `npm start` prints.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';
import { emptyProjectDir, installInto, packWorkspaces, removeTemporaryDirs, runIn, type PackedTarball } from './support/packed-project.ts';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const clientGuide = readFileSync(join(repoRoot, 'docs/client.md'), 'utf8');

/** The fenced blocks of one language in a Markdown text, in order. */
function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]);
}
/** The text of a `## heading` section, up to the next one. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

const readmeClient = section(readme, 'Client');
/** Each TypeScript block names its file on its first line (`// care.ts`); later blocks import earlier ones. */
const snippets = [...blocks(readmeClient, 'ts'), ...blocks(clientGuide, 'ts')].map((code) => {
  const name = /^\/\/ ([\w-]+\.[cm]?ts)\n/.exec(code)?.[1];
  return { name, code };
});
/** The README's setup commands and its compile command, as written. */
const setup = blocks(readmeClient, 'sh')[0] ?? '';
const compile = /^npx tsc (.+?) ([\w-]+\.ts) && node ([\w-]+\.js)$/m.exec(readmeClient);

let client: PackedTarball;
let dir: string;
let sandbox: { env: Record<string, string>; origin: string; child: ChildProcess; output: () => string } | undefined;

/** `npm start` as the README says, sandbox alone, in memory on a free port, delivering webhooks to loopback only. */
function startLikeNpmStart(): Promise<NonNullable<typeof sandbox>> {
  const child = spawn(npm, ['start', '--', '--no-mocks', '--memory', '--port', '0', '--seed-cases', '60', '--loopback-only'], {
    cwd: repoRoot,
    detached: true, // its own process group: npm, scripts/start.ts and the sandbox are stopped together
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no export line within 120 s:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      const exported = /^\s*export ((?:CARE_\w+=\S+ ?)+)$/m.exec(output);
      const origin = /listening on (http:\/\/\S+)/.exec(output);
      if (exported && origin) {
        clearTimeout(timer);
        const env = Object.fromEntries(exported[1].trim().split(' ').map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string]));
        resolve({ env, origin: origin[1], child, output: () => output });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
}

beforeAll(async () => {
  const [packs, started] = await Promise.all([packWorkspaces(['@care-api/client']), startLikeNpmStart()]);
  client = packs.get('@care-api/client')!;
  sandbox = started;
  dir = emptyProjectDir();
  // the README's own project commands, run as written (the install lines are checked below and done offline)
  for (const line of setup.split('\n').filter((l) => /^npm (init|pkg) /.test(l))) {
    const [command, ...args] = line.split(' ');
    const done = await runIn(dir, command === 'npm' ? npm : command, args);
    expect(done.code, done.stderr).toBe(0);
  }
  await installInto(dir, [client]);
}, 400_000);

afterAll(async () => {
  if (sandbox && sandbox.child.exitCode === null) {
    const exited = new Promise((resolve) => sandbox!.child.once('exit', resolve));
    process.kill(-sandbox.child.pid!, 'SIGTERM');
    await exited;
  }
  removeTemporaryDirs();
});

describe('the README makes the project', () => {
  it('with the commands the test ran: an ES module project, the client from .care/packages/, typescript and @types/node', () => {
    expect(setup).toMatch(/^npm init -y$/m);
    expect(setup).toMatch(/^npm pkg set type=module$/m);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type).toBe('module');
    // the tarball `npm run packages` writes (its script packs into .care/packages/)
    expect(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts.packages).toContain('--pack-destination .care/packages');
    expect(setup).toMatch(new RegExp(`^npm install \\S*/\\.care/packages/${basename(client.file).replace(/\./g, '\\.')}$`, 'm'));
    expect(readme).not.toMatch(/npm install \.\/care-api-client/);
    expect(setup).toMatch(/^npm install --save-dev typescript @types\/node$/m);
  });

  it('says the client is an ES module and what a CommonJS project does', () => {
    expect(readmeClient).toMatch(/ES module/);
    expect(readmeClient).toMatch(/CommonJS/);
    expect(snippets.map((s) => s.name)).toContain('quick-start.cts'); // the CommonJS way, compiled and run below
    expect(JSON.parse(readFileSync(join(repoRoot, 'packages/client/package.json'), 'utf8')).type).toBe('module');
  });

  it('the client package\'s README shows the same quick start', () => {
    const packageReadme = readFileSync(join(repoRoot, 'packages/client/README.md'), 'utf8');
    expect(blocks(packageReadme, 'ts')).toEqual([snippets.find((s) => s.name === 'quick-start.ts')!.code]);
  });

  it('names every package the way npm knows it', () => {
    for (const text of [readme, clientGuide]) expect(text).not.toMatch(/(?<!@)\bcare-api\/(client|sandbox|conformance|description)\b/);
  });
});

describe('every TypeScript block of the README Client section and docs/client.md', () => {
  it('names its file, and the README quick start and docs/client.md blocks are all there', () => {
    expect(snippets.filter((s) => !s.name)).toEqual([]);
    expect(new Set(snippets.map((s) => s.name)).size).toBe(snippets.length);
    expect(snippets.length).toBeGreaterThanOrEqual(8);
    expect(compile, 'the README gives the command that compiles and runs quick-start.ts').not.toBeNull();
  });

  it('compiles with the README\'s strict tsc command, and runs against npm start\'s sandbox with only what it printed', async () => {
    for (const { name, code } of snippets) writeFileSync(join(dir, name!), code);
    // The README's flags; the consumer's typescript and @types/node (its devDependencies) are the repository's here.
    const flags = compile![1].split(' ');
    expect(flags).toContain('--strict');
    const compiled = await runIn(dir, process.execPath, [tsc, ...flags, '--typeRoots', join(repoRoot, 'node_modules/@types'), ...snippets.map((s) => s.name!)]);
    expect(compiled.stdout).toBe('');
    expect(compiled.code).toBe(0);

    const env = { ...process.env, ...sandbox!.env };
    expect(Object.keys(sandbox!.env).sort()).toEqual(['CARE_API_KEY_ID', 'CARE_API_KEY_SECRET', 'CARE_AUTH_URL', 'CARE_BASE_URL']);
    const outputs: Record<string, string> = {};
    for (const { name } of snippets) {
      if (name === 'care.ts') continue; // a module the others import
      const js = name!.replace(/\.cts$/, '.cjs').replace(/\.mts$/, '.mjs').replace(/\.ts$/, '.js');
      expect(existsSync(join(dir, js))).toBe(true);
      const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [js], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      });
      expect(ran.stderr, `${name}`).toBe('');
      expect(ran.code, `${name}: ${ran.stdout}`).toBe(0);
      outputs[name!] = ran.stdout;
    }
    // what the blocks print says they reached the sandbox and read its answers
    const caseLines = (out: string) => out.split('\n').filter((l) => /^CS\d+ /.test(l));
    expect(caseLines(outputs['quick-start.ts']).length).toBeGreaterThan(0);
    expect(caseLines(outputs['quick-start.cts']).length).toBeGreaterThan(0);
    expect(outputs['list-cases.ts']).toMatch(/^Sandbox \d+$/m);
    expect(outputs['location.ts'].trim()).toMatch(new RegExp(`^${sandbox!.origin}/care/v0/sandbox/cases/CS\\d+$`));
    expect(outputs['attachments.ts']).toMatch(/^notes\.txt text\/plain (\d+) \1$/m);
    expect(outputs['webhooks.ts']).toMatch(/^case\.updated CS\d+ \[ 'priority' \]$/m);
  }, 300_000);
});
