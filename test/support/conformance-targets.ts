// Targets for the conformance tests, each a real process: the reference sandbox (`care-sandbox`, as a black box)
// and a plain Prism on the sandbox bundle. Readiness is an event on stdout, bounded by a timeout; never a sleep.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export interface Running {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpMatchArray> {
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      reject(new Error(`${what} did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = output.match(pattern);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolvePromise(m);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c) => (output += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${output}`));
    });
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolvePromise) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolvePromise();
      child.once('exit', () => resolvePromise());
      child.kill('SIGTERM');
    });
}

/** The reference sandbox in memory on a free port; answers its config file (the one care-conformance reads). */
export async function startSandbox(configEnv: 'sandbox' | 'production' = 'sandbox', extra: string[] = []): Promise<Running & { configFile: string; config: any }> {
  const dir = mkdtempSync(join(tmpdir(), 'care-conformance-'));
  const configFile = join(dir, `${configEnv}.json`);
  const child = spawn(process.execPath, [join(root, 'bin/care-sandbox.js'), '--memory', '--port', '0', '--quiet', '--loopback-only', '--write-config', configFile, '--config-env', configEnv, ...extra], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const m = await waitForLine(child, /listening on (http:\/\/\S+)/, 60_000, 'care-sandbox');
  return { url: m[1], child, stop: stopper(child), configFile, config: JSON.parse(readFileSync(configFile, 'utf8')) };
}

function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePromise(port));
    });
  });
}

/** A plain Prism mock of a bundle on a free port. */
export async function startPrism(document = join(root, 'generated/care-api.sandbox.yaml')): Promise<Running> {
  const port = await freePort();
  const child = spawn(join(root, 'node_modules/.bin/prism'), ['mock', '-h', '127.0.0.1', '-p', String(port), document], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const m = await waitForLine(child, /Prism is listening on (http:\/\/\S+)/, 60_000, 'prism');
  return { url: m[1], child, stop: stopper(child) };
}

/** Run the care-conformance bin as a process; answers its exit code and output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [join(root, 'bin/care-conformance.js'), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
  });
}
