// `npm run mock` end to end: scripts/mock.ts starts both environments, prints where they are, answers with the right
// X-CareAPI-Env, and on SIGTERM stops its Prism processes before exiting. Its ports are fixed (4010, 4011): a busy one
// is an error naming the port and the flag that changes it, never a silent move (issue 35).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';

let child: ChildProcess;
let output = '';
const urls: Record<string, { front: string; prism: string }> = {};

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'scripts/mock.ts'), '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((ready, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ctrl-C')) ready();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => fail(new Error(`scripts/mock.ts exited with ${code}:\n${output}`)));
  });
  for (const match of output.matchAll(/^(production|sandbox)\s+(http:\/\/127\.0\.0\.1:\d+).*Prism at (http:\/\/127\.0\.0\.1:\d+)/gm)) {
    urls[match[1]] = { front: match[2], prism: match[3] };
  }
});

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

describe('npm run mock', () => {
  it('prints one loopback URL per environment', () => {
    expect(Object.keys(urls).sort(), output).toEqual(['production', 'sandbox']);
    expect(urls.production.front).not.toBe(urls.sandbox.front);
  });

  // Triggers exist only in sandbox; in production the path falls under GET /events/{eventId}, so POST is 405 (or 404).
  it.each([
    ['production', 'Production', [404, 405]],
    ['sandbox', 'Sandbox', [202]],
  ] as const)('serves %s with X-CareAPI-Env %s', async (environment, envValue, triggerStatuses) => {
    const headers = { authorization: 'Bearer mock-token', 'content-type': 'application/json' };
    const list = await fetch(`${urls[environment].front}/cases`, { headers });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-careapi-env')).toBe(envValue);
    const trigger = await fetch(`${urls[environment].front}/events/case.comment.created`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ caseId: 'CS0010042', commentId: 'CC0020007' }),
    });
    expect(triggerStatuses).toContain(trigger.status);
    expect(trigger.headers.get('x-careapi-env')).toBe(envValue);
  });

  it('stops its Prism processes on SIGTERM', async () => {
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const { prism, front } of Object.values(urls)) {
      await expect(fetch(`${prism}/cases`)).rejects.toThrow();
      await expect(fetch(`${front}/cases`)).rejects.toThrow();
    }
  });
});

/** Holds `port` on 127.0.0.1 for the test; when another process already holds it, that does as well. */
async function hold(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((done) => {
    server.once('error', () => done(undefined)); // busy already: the point of the test holds anyway
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

/** Runs scripts/mock.ts with `args` to its end; its exit code and everything it printed. */
function runMock(args: string[]): Promise<{ code: number | null; output: string }> {
  const run = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'scripts/mock.ts'), ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  run.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  run.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done) => run.once('exit', (code) => done({ code, output })));
}

describe('npm run mock ports', () => {
  it('listens on 4010 by default: when it is busy, says so with the flag that changes it, and starts nothing', async () => {
    const held = await hold(4010);
    try {
      const { code, output } = await runMock([]);
      expect(code, output).toBe(1);
      expect(output).toContain('port 4010 (the production mock) is already in use');
      expect(output).toContain('--production-port N');
      expect(output).not.toMatch(/^production\s+http/m); // no silent move to another port
    } finally {
      held?.close();
    }
  });

  it('names the sandbox port and its flag when that one is busy', async () => {
    const held = (await hold(0))!;
    const { port } = held.address() as { port: number };
    try {
      const { code, output } = await runMock(['--production-port', '0', '--sandbox-port', String(port)]);
      expect(code, output).toBe(1);
      expect(output).toContain(`port ${port} (the sandbox mock) is already in use`);
      expect(output).toContain('--sandbox-port N');
    } finally {
      held.close();
    }
  });

  it('lists its options with --help, the fixed ports among them', async () => {
    const { code, output } = await runMock(['--help']);
    expect(code).toBe(0);
    expect(output).toMatch(/--port N\s+production on N, sandbox on N\+1 \(default 4010 and 4011/);
  });
});
