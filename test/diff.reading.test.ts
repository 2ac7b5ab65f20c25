// Issue 48: `npm run diff` reads only what it is given (D-117). No $ref to a URL is fetched and none leads out of the
// directory named or the repository (for a git ref: out of that ref's openapi/); YAML aliases and sizes are bounded;
// an acknowledgements file of the wrong shape is refused. Each refusal is exit 2 with one line that says why.
import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseAcknowledgements } from '../src/diff/gate.ts';
import { loadDescription, parseDescription } from '../scripts/contract/load.ts';
import { MAX_FILE_BYTES } from '../scripts/contract/bounded-read.ts';
import { bundlePath, repoRoot } from '../src/spec/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'care-diff-reading-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const run = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'scripts/diff.ts'), ...args], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });

/** Exit 2, nothing on stdout, and exactly one line on stderr matching `reason`. */
function expectRefusal(result: { code: number; stdout: string; stderr: string }, reason: RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^npm run diff: [^\n]+\n$/);
  expect(result.stderr).toMatch(reason);
}

/** A small description tree: openapi.yaml whose path /a is `ref`, plus paths/a.yaml. */
function tree(name: string, ref: string): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'paths'), { recursive: true });
  writeFileSync(join(dir, 'openapi.yaml'), stringify({ openapi: '3.1.0', info: { title: name, version: '1' }, paths: { '/a': { $ref: ref } } }));
  writeFileSync(join(dir, 'paths/a.yaml'), stringify({ get: { responses: { '200': { description: 'ok' } } } }));
  return dir;
}

/** Levels of nested aliases, each `width` times the one below: width^levels strings from a few hundred bytes. */
function aliasBomb(levels: number, width: number): string {
  const lines = ['openapi: 3.1.0', 'info: {title: bomb, version: "1"}', 'paths: {}', 'x-bomb:', `  l0: &l0 [${Array(width).fill('"lol"').join(',')}]`];
  for (let i = 1; i <= levels; i++) lines.push(`  l${i}: &l${i} [${Array(width).fill(`*l${i - 1}`).join(',')}]`);
  return `${lines.join('\n')}\n`;
}

describe('YAML aliases and sizes are bounded', () => {
  it('a 1.5 KB alias bomb is refused at once, not expanded', () => {
    const bomb = aliasBomb(9, 9); // 9^10 strings when expanded
    expect(bomb.length).toBeLessThan(1500);
    expect(() => parseDescription(bomb, 'bomb.yaml')).toThrow(/bomb\.yaml: its YAML aliases expand too much/);
  });

  it('npm run diff refuses a side with aliases that expand (exit 2, one line)', async () => {
    const file = join(scratch, 'bomb.yaml');
    writeFileSync(file, aliasBomb(4, 10)); // 100 000 strings: read in full by the old parser
    expectRefusal(await run(['--base', bundlePath(), '--head', file]), /bomb\.yaml: its YAML aliases expand too much \(more than 100\)/);
  }, 60_000);

  it('a file larger than the bound is refused before it is read', async () => {
    const file = join(scratch, 'huge.yaml');
    writeFileSync(file, `openapi: 3.1.0\ninfo: {title: huge, version: "1"}\npaths: {}\nx-padding: "${'x'.repeat(MAX_FILE_BYTES)}"\n`);
    expectRefusal(await run(['--base', bundlePath(), '--head', file]), /huge\.yaml: 8 MiB, more than the 8 MiB npm run diff reads/);
  }, 60_000);
});

describe("a tree's $refs stay where they were given", () => {
  it('a $ref to a URL is refused and never fetched', async () => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(stringify({ get: { responses: { '200': { description: 'from the network' } } } }));
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const port = (server.address() as { port: number }).port;
      const dir = tree('url-ref', `http://127.0.0.1:${port}/paths/a.yaml`);
      expectRefusal(await run(['--base', bundlePath(), '--head', dir]), /openapi\.yaml: \$ref http:\/\/127\.0\.0\.1:\d+\/paths\/a\.yaml is a URL; npm run diff reads no URL/);
      expect(requests).toEqual([]);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  }, 60_000);

  it('a $ref out of the directory named (and out of the repository) is refused', async () => {
    const secret = join(scratch, 'secret.yaml');
    writeFileSync(secret, stringify({ get: { responses: { '200': { description: 'not yours' } } } }));
    const dir = tree('outside-ref', '../secret.yaml');
    expectRefusal(await run(['--base', bundlePath(), '--head', dir]), /\$ref \.\.\/secret\.yaml leads outside .*outside-ref or the repository/);
  }, 60_000);

  it('a symbolic link out of the directory is refused too', async () => {
    const target = join(scratch, 'linked.yaml');
    writeFileSync(target, stringify({ get: { responses: { '200': { description: 'not yours' } } } }));
    const dir = tree('symlink-ref', './paths/link.yaml');
    symlinkSync(target, join(dir, 'paths/link.yaml'));
    expectRefusal(await run(['--base', bundlePath(), '--head', dir]), /\$ref \.\/paths\/link\.yaml leads outside/);
  }, 60_000);

  it('a git ref reads only its own openapi/: a $ref out of it is refused', async () => {
    const repo = join(scratch, 'repo');
    mkdirSync(join(repo, 'openapi/paths'), { recursive: true });
    writeFileSync(join(scratch, 'host-file.yaml'), stringify({ get: { responses: { '200': { description: 'this machine' } } } }));
    // From the ref's openapi/, extracted to a temporary directory beside this test's, ../../<this test's>/host-file.yaml
    // is a file of this machine.
    const hostile = `../../${basename(scratch)}/host-file.yaml`;
    writeFileSync(join(repo, 'openapi/openapi.yaml'), stringify({ openapi: '3.1.0', info: { title: 'ref', version: '1' }, paths: { '/a': { $ref: hostile } } }));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'hostile');
    await expect(loadDescription('HEAD', repo)).rejects.toThrow(/HEAD:openapi\/openapi\.yaml: \$ref \.\.\/\.\.\/.*\/host-file\.yaml leads outside HEAD:openapi\//);
  }, 60_000);

  it("Redocly's own failure is one line with its reason, not its banner", async () => {
    const dir = tree('bad-pointer', './paths/a.yaml#/nowhere');
    const result = await run(['--base', bundlePath(), '--head', dir]);
    expectRefusal(result, /openapi\.yaml: Redocly could not bundle it: Can't resolve \$ref/);
    expect(result.stderr).not.toMatch(/Deprecation warning|╔/);
  }, 60_000);

  it('a tree inside the directory named is still compared', async () => {
    const dir = tree('honest', './paths/a.yaml');
    const result = await run(['--base', dir, '--head', dir, '--format', 'json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);
});

describe('an acknowledgements file of the wrong shape is refused, never read as "nothing acknowledged"', () => {
  it.each([
    ['an empty file', null, /the file is empty/],
    ['a list at the top', [{ change: 'x /paths', reason: 'r' }], /the file holds a list/],
    ['a misspelt key', { acknowleged: [{ change: 'x /paths', reason: 'r' }] }, /unknown member "acknowleged"/],
    ['a string', 'acknowledged', /the file holds a string/],
    ['an entry with a misspelt member', { acknowledged: [{ change: 'x /paths', reson: 'r' }] }, /acknowledged\[0\] has unknown member "reson"/],
    ['an entry that is a string', { acknowledged: ['x /paths'] }, /acknowledged\[0\] must be a mapping/],
  ])('%s', (_what, value, message) => {
    expect(() => parseAcknowledgements(value, 'acks.yaml')).toThrow(message);
  });

  it('an empty list, or `acknowledged:` with nothing after it, acknowledges nothing', () => {
    expect(parseAcknowledgements({ acknowledged: [] }, 'acks.yaml')).toEqual([]);
    expect(parseAcknowledgements({ acknowledged: null }, 'acks.yaml')).toEqual([]);
  });

  it('npm run diff exits 2 on one, naming the file and what is wrong', async () => {
    const acks = join(scratch, 'wrong-acks.yaml');
    writeFileSync(acks, stringify({ acks: [{ change: 'x /paths', reason: 'r' }] }));
    expectRefusal(await run(['--base', bundlePath(), '--head', bundlePath(), '--acknowledged', acks]), /wrong-acks\.yaml: unknown member "acks"; the file must be a mapping `acknowledged: \[\{change, reason\}, \.\.\.\]`/);
  }, 60_000);
});
