// The Getting started page (issues 37 and 44) runs as written: its code blocks, taken from docs/getting-started.md
// itself, run in order in one bash shell against the sandbox `npm start` starts, with the `export CARE_…` line it
// prints. The shell starts where the reader's second shell does, in a fresh clone of the repository (under a name
// of the test's choosing, so the page can assume none), and goes where the page's commands take it; the receiver's
// project is made with the page's own commands (its `npm install` lines done offline from the tarball the page's
// `npm run packages` wrote, as in test/readme-snippets.test.ts). Each step's visible outcome is checked before the
// next one starts.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';
import { GETTING_STARTED_FILE, GETTING_STARTED_TAG } from '../scripts/build/docs.ts';
import { npmStart, type StartProcess } from './helpers/npm-start.ts';
import { emptyProjectDir, installInto, removeTemporaryDirs, runIn } from './support/packed-project.ts';

const page = readFileSync(join(repoRoot, GETTING_STARTED_FILE), 'utf8');

/** The page's `## ` steps, each with its fenced blocks in order. */
const steps = page
  .split(/^(?=## )/m)
  .slice(1)
  .map((part) => ({
    heading: /^## (.*)$/m.exec(part)![1],
    blocks: [...part.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], code: m[2] })),
  }));
const step = (heading: string) => {
  const found = steps.find((s) => s.heading === heading);
  if (!found) throw new Error(`no step ${heading}`);
  return found;
};

/** A port nobody listens on now, for the receiver (its URL is in the subscription before it starts). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** One bash shell fed the steps one after the other, as a reader would type them. */
class Shell {
  private output = '';
  private waiters = new Set<() => void>();
  private child: ChildProcessWithoutNullStreams;
  private count = 0;
  constructor(private readonly cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, detached: true });
    const onData = (chunk: Buffer) => {
      this.output += chunk;
      for (const check of [...this.waiters]) check();
    };
    this.child.stdout.on('data', onData);
    this.child.stderr.on('data', onData);
    this.child.once('exit', () => {
      for (const check of [...this.waiters]) check();
    });
  }
  get text(): string {
    return this.output;
  }
  /** Resolves once `pattern` appears in what the shell printed from `from` on; rejects if the shell ends first. */
  waitFor(pattern: RegExp, from = 0): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = this.output.slice(from).match(pattern);
        if (match) {
          this.waiters.delete(check);
          resolve(match);
        } else if (this.child.exitCode !== null || this.child.signalCode !== null) {
          this.waiters.delete(check);
          reject(new Error(`the shell ended (${this.child.exitCode ?? this.child.signalCode}) before printing ${pattern}:\n${this.output}`));
        }
      };
      this.waiters.add(check);
      check();
    });
  }
  /** Run a block (written to a file and sourced, so variables and background jobs stay); resolves with its output. */
  async run(code: string): Promise<string> {
    const n = ++this.count;
    const file = join(this.cwd, `step-${n}.sh`);
    writeFileSync(file, code);
    const from = this.output.length;
    this.child.stdin.write(`source ${JSON.stringify(file)}\necho "::step ${n} done::"\n`);
    await this.waitFor(new RegExp(`::step ${n} done::`), from);
    return this.output.slice(from).replace(/::step \d+ done::\n?/, '');
  }
  stop(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) process.kill(-this.child.pid!, 'SIGTERM');
  }
}

let sandbox: StartProcess;
let clone: string;
let exported: Record<string, string>;
let dir: string;
let shell: Shell;

beforeAll(async () => {
  const start = step('Start the sandbox').blocks[0].code.trim();
  expect(start).toBe('npm start -- --memory');
  // As written, plus what a test needs: a free port, no Prism mocks (not used here), deliveries to loopback only.
  sandbox = npmStart([...start.split(' ').slice(3), '--port', '0', '--no-mocks', '--loopback-only']);
  const line = await sandbox.waitFor(/^\s*export ((?:CARE_\w+=\S+ ?)+)$/m);
  exported = Object.fromEntries(line[1].trim().split(' ').map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string]));
  // a fresh clone, its dependencies installed (the page starts "after npm install"): the repository's, linked
  clone = join(emptyProjectDir(), `clone-${process.pid}`);
  const cloned = await runIn(repoRoot, 'git', ['clone', '--quiet', repoRoot, clone]);
  expect(cloned.code, cloned.stderr).toBe(0);
  symlinkSync(join(repoRoot, 'node_modules'), join(clone, 'node_modules'));
  const receiverPort = await freePort();
  // The page's `npx tsc …` runs the repository's TypeScript and Node types (the project's devDependencies here).
  const npxTsc = `npx() { if [ "$1" = tsc ]; then shift; node ${JSON.stringify(join(repoRoot, 'node_modules/typescript/bin/tsc'))} "$@" --typeRoots ${JSON.stringify(join(repoRoot, 'node_modules/@types'))}; else command npx "$@"; fi; }\n`;
  shell = new Shell(clone, { ...process.env, ...exported, RECEIVER_PORT: String(receiverPort) });
  await shell.run(`set -euo pipefail\n${npxTsc}`);
  // the page's second block: the folder for the files the steps make, beside the repository
  await shell.run(step('Start the sandbox').blocks[1].code);
  dir = (await shell.run('pwd')).trim();
  expect(dir).toBe(join(clone, '..', 'care-getting-started'));
}, 400_000);

afterAll(async () => {
  shell?.stop();
  await sandbox?.stop();
  removeTemporaryDirs();
});

describe('Getting started (docs/getting-started.md)', () => {
  it('is the docs site\'s Getting started guide, the same text, first in Guides', () => {
    // the description copy the built site ships (`window.careApiDescription = {…};`)
    const script = readFileSync(join(repoRoot, 'generated/docs/description.js'), 'utf8');
    const published = JSON.parse(script.slice(script.indexOf('{'), script.lastIndexOf('}') + 1));
    const tag = published.tags.find((t: any) => t.name === GETTING_STARTED_TAG);
    expect(tag.description).toBe(page.replace(/^# Getting started\n/, '').trim());
    expect(published['x-tagGroups'][0]).toEqual({ name: 'Guides', tags: [GETTING_STARTED_TAG, 'Filtering', 'Limits'] });
  });

  it('has the ten steps of the issue, each with code', () => {
    expect(steps.map((s) => s.heading)).toEqual([
      'Start the sandbox',
      'Get a token',
      'List cases with a filter',
      'Read the next page',
      'Create a case',
      'Comment on the case',
      'Upload and download an attachment',
      'Subscribe a webhook',
      'Run a receiver that verifies the signature',
      'Fire a trigger',
    ]);
    for (const s of steps) expect(s.blocks.length, s.heading).toBeGreaterThan(0);
  });

  it('runs step after step against npm start\'s sandbox, each showing what the page says', async () => {
    expect(Object.keys(exported).sort()).toEqual(['CARE_API_KEY_ID', 'CARE_API_KEY_SECRET', 'CARE_AUTH_URL', 'CARE_BASE_URL']);
    const sh = (heading: string, index = 0) => {
      const block = step(heading).blocks.filter((b) => b.lang === 'sh')[index];
      if (!block) throw new Error(`no sh block ${index} in ${heading}`);
      return shell.run(block.code);
    };

    expect(await sh('Get a token')).toMatch(/^token eyJ\S+…$/m);

    const listed = await sh('List cases with a filter');
    const firstPage = [...listed.matchAll(/^(CS\d+) priority (\d): /gm)];
    expect(firstPage.length).toBe(3);
    for (const m of firstPage) expect(['1', '2']).toContain(m[2]);

    const second = (await sh('Read the next page')).match(/^page 2 of (\d+): ((?:CS\d+ ?){3})$/m);
    expect(second, 'the second page of three').not.toBeNull();
    for (const m of firstPage) expect(second![2]).not.toContain(m[1]);

    const created = await sh('Create a case');
    const caseId = /^created (CS\d+)$/m.exec(created)?.[1];
    expect(caseId).toBeDefined();
    expect(created).toMatch(new RegExp(`^listed: .*\\b${caseId}\\b`, 'm'));

    expect(await sh('Comment on the case')).toMatch(/^comment CC\d+: Cleaned tray 2, it still jams\.$/m);

    expect(await sh('Upload and download an attachment')).toMatch(/^attachment AT\d+: the downloaded bytes equal the uploaded ones$/m);
    expect(readFileSync(join(dir, 'downloaded.log'))).toEqual(readFileSync(join(dir, 'printer.log')));

    expect(await sh('Subscribe a webhook')).toMatch(/^subscribed; signing secret whsec_/m);

    // The receiver's project: the page's commands as written, in the shell; its `npm install` lines done offline
    // from the tarball the page's `npm run packages` wrote in the clone (TypeScript: the repository's, see npx above).
    const receiverStep = step('Run a receiver that verifies the signature');
    const setup = receiverStep.blocks.filter((b) => b.lang === 'sh')[0].code;
    expect(setup).toMatch(/^npm install "\$CARE_REPO"\/\.care\/packages\/care-api-client-\*\.tgz$/m);
    expect(setup).toMatch(/^npm install --save-dev typescript @types\/node$/m);
    for (const line of setup.split('\n').filter(Boolean)) {
      if (!/^npm install /.test(line)) {
        await shell.run(line);
        continue;
      }
      if (!line.includes('.tgz')) continue;
      const packed = readdirSync(join(clone, '.care/packages')).filter((f) => /^care-api-client-.*\.tgz$/.test(f));
      expect(packed).toHaveLength(1);
      const manifest = JSON.parse(readFileSync(join(repoRoot, 'packages/client/package.json'), 'utf8'));
      await installInto(dir, [{ name: manifest.name, version: manifest.version, file: join(clone, '.care/packages', packed[0]), files: [], dependencies: manifest.dependencies ?? {} }]);
    }
    expect(existsSync(join(dir, 'node_modules/@care-api/client/package.json'))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type).toBe('module');
    // the repository's own package.json is untouched
    expect(JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')).name).toBe('care-api');
    const receiver = receiverStep.blocks.find((b) => b.lang === 'ts')!.code;
    const name = /^\/\/ ([\w-]+\.ts)\n/.exec(receiver)?.[1];
    expect(name).toBe('receiver.ts');
    writeFileSync(join(dir, name!), receiver);
    const listening = shell.text.length;
    const started = await sh('Run a receiver that verifies the signature', 1);
    expect(started).not.toMatch(/error TS/);
    await shell.waitFor(/^receiver listening on http:\/\/127\.0\.0\.1:\d+\/care\/events$/m, listening);

    const fired = await sh('Fire a trigger'); // ends with `wait`: the receiver has checked the delivery and stopped
    expect(fired).toMatch(/^event EV\d+ recorded$/m);
    expect(fired).toMatch(new RegExp(`^signature valid: case\\.updated of ${caseId} \\(delivery \\S+\\)$`, 'm'));
    expect(fired).not.toMatch(/rejected/);
  }, 400_000);
});
