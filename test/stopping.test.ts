// Stopping works however it is asked (issue 44 item 3): SIGTERM or SIGINT sent to the pid a user or a CI script sees,
// the `npm` process of `npm start` or `npm run mock`, stops every process it started and frees every port; the mocks'
// temporary folders are removed. The processes are found as the outside world finds them: the npm process's
// descendants in /proc, with their command lines (a Prism's names its snapshot folder).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';

interface Launched {
  pid: number;
  output: () => string;
  exited: Promise<number | null>;
}

function npmRun(args: string[]): Launched {
  // detached: its own process group, as a CI job or a process manager runs it; signals go to the npm pid alone
  const child = spawn('npm', args, { cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { pid: child.pid!, output: () => output, exited };
}

async function printed(run: Launched, pattern: RegExp): Promise<void> {
  while (!pattern.test(run.output())) {
    const ended = await Promise.race([run.exited.then(() => true), new Promise<false>((tick) => setTimeout(() => tick(false), 100))]);
    if (ended && !pattern.test(run.output())) throw new Error(`ended before printing ${pattern}:\n${run.output()}`);
  }
}

/** Every process below `pid`, with its command line. */
function descendants(pid: number): { pid: number; command: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const out: { pid: number; command: string }[] = [];
  const visit = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      let command = '';
      try {
        command = readFileSync(`/proc/${child}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        // ended
      }
      out.push({ pid: child, command });
      visit(child);
    }
  };
  visit(pid);
  return out;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

/** Waits until every process is gone (bounded by the test's timeout); answers the ones still there. */
async function gone(pids: number[]): Promise<number[]> {
  for (let round = 0; round < 100 && pids.some(running); round++) await new Promise((tick) => setTimeout(tick, 100));
  return pids.filter(running);
}

/** Signals the npm process as a CI script does, then checks it ended cleanly and left nothing behind. */
async function signalAndCheckStopped(run: Launched, signal: NodeJS.Signals, processes: { pid: number }[], open: number[], folders: string[]): Promise<void> {
  process.kill(run.pid, signal);
  expect(await run.exited).toBe(0);
  expect(await gone(processes.map((p) => p.pid))).toEqual([]);
  for (const port of open) expect(await accepts(port), `port ${port}`).toBe(false);
  for (const folder of folders) expect(existsSync(folder), folder).toBe(false);
}

const ports = (text: string) => [...text.matchAll(/http:\/\/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
const snapshotFolders = (processes: { command: string }[]) =>
  processes.flatMap((p) => [...p.command.matchAll(/(\S*care-mock-[^/\s]+)\//g)].map((m) => m[1]));

describe.each(['SIGTERM', 'SIGINT'] as const)('%s to the npm process', (signal) => {
  it('of npm start stops the sandbox and both mocks, frees their ports and removes the temporary folders', async () => {
    const run = npmRun(['start', '--', '--memory', '--port', '0', '--seed-cases', '3', '--mock-port', '0', '--loopback-only']);
    await printed(run, /Ctrl-C stops all/);
    const processes = descendants(run.pid);
    const folders = snapshotFolders(processes);
    expect(processes.some((p) => /care-sandbox/.test(p.command))).toBe(true);
    expect(processes.filter((p) => /prism mock/.test(p.command))).toHaveLength(2);
    expect(folders).toHaveLength(2);
    const open = [...new Set(ports(run.output()))];
    expect(open.length).toBeGreaterThanOrEqual(3);

    await signalAndCheckStopped(run, signal, processes, open, folders);
  }, 120_000);

  it('of npm run mock stops both mocks, frees their ports and removes the temporary folders', async () => {
    const run = npmRun(['run', 'mock', '--', '--port', '0']);
    await printed(run, /Ctrl-C stops both/);
    const processes = descendants(run.pid);
    const folders = snapshotFolders(processes);
    expect(folders).toHaveLength(2);
    expect(folders.every((f) => existsSync(dirname(`${f}/x`)))).toBe(true);
    const open = [...new Set(ports(run.output()))];
    expect(open).toHaveLength(4); // two fronts, two Prisms

    await signalAndCheckStopped(run, signal, processes, open, folders);
  }, 120_000);
});
