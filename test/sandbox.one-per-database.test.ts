// One sandbox per database file (issue 36, D-86): a second care-sandbox on the same file is refused at once, naming
// the file and the process that holds it; a lock left by a process that is gone does not block a start.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'care-one-db-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  /** Resolves with the origin once the sandbox prints its listening line, or with the exit when it ends first. */
  outcome: Promise<{ origin: string } | { code: number | null; stdout: string; stderr: string }>;
  exited: Promise<void>;
}

function start(db: string): Run {
  const child = spawn(process.execPath, [join(repoRoot, 'bin/care-sandbox.js'), '--port', '0', '--db', db, '--seed-cases', '10', '--loopback-only', '--quiet'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const outcome = new Promise<{ origin: string } | { code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) resolve({ origin: m[1] });
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, outcome, exited };
}

async function listening(run: Run): Promise<string> {
  const o = await run.outcome;
  if (!('origin' in o)) throw new Error(`sandbox exited with ${o.code}: ${o.stderr}`);
  return o.origin;
}

async function stop(run: Run): Promise<void> {
  if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGTERM');
  await run.exited;
}

describe('one sandbox per database file', () => {
  it('refuses a second process on the same file at once, naming the file and the holder, and leaves the first alone', async () => {
    const db = join(dir, 'shared.db');
    const first = start(db);
    const origin = await listening(first);

    const second = start(db);
    const refused = await second.outcome;
    expect('origin' in refused, 'the second sandbox started on the same file').toBe(false);
    if ('origin' in refused) return;
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe(''); // refused before it listened or printed anything
    expect(refused.stderr).toContain(db);
    expect(refused.stderr).toContain(`process ${first.child.pid}`);
    expect(refused.stderr).toContain(origin);
    expect(refused.stderr).toMatch(/--db FILE or --memory/);

    // the first one still answers, and still holds the file
    expect((await fetch(`${origin}/openapi/care-api.yaml`)).status).toBe(200);
    expect(JSON.parse(readFileSync(`${db}.lock`, 'utf8')).pid).toBe(first.child.pid);

    // stopped, it lets go: the next start on the file works
    await stop(first);
    expect(existsSync(`${db}.lock`)).toBe(false);
    const third = start(db);
    await listening(third);
    await stop(third);
  }, 120_000);

  it('takes over the lock of a process killed with SIGKILL', async () => {
    const db = join(dir, 'killed.db');
    const first = start(db);
    await listening(first);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(JSON.parse(readFileSync(`${db}.lock`, 'utf8')).pid).toBe(first.child.pid); // left behind

    const next = start(db);
    await listening(next);
    expect(JSON.parse(readFileSync(`${db}.lock`, 'utf8')).pid).toBe(next.child.pid);
    await stop(next);
  }, 120_000);

  it('takes over a lock naming a pid that no longer runs, or one whose process started at another time', async () => {
    // a pid that surely ran and ended: a child of ours, reaped
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = gone.pid!;
    await new Promise((resolve) => gone.once('exit', resolve));
    const stale: [string, { pid: number; host: string; started?: string }][] = [['dead.db', { pid, host: hostname() }]];
    // pid reuse: this test runner's own pid, recorded with a start time it never had (Linux only tells them apart)
    if (existsSync('/proc/self/stat')) stale.push(['reused.db', { pid: process.pid, host: hostname(), started: '1' }]);
    for (const [name, holder] of stale) {
      const db = join(dir, name);
      writeFileSync(`${db}.lock`, JSON.stringify(holder));
      const run = start(db);
      await listening(run);
      await stop(run);
    }
  }, 120_000);
});
