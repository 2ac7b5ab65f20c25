// Starts and stops one Prism mock process (node_modules/.bin/prism) on a loopback port. Supervision (restart on exit)
// is src/mock/supervisor.ts; this module launches one process and reports its output and its end.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { repoRoot } from '../spec/index.ts';

export interface PrismExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface PrismProcess {
  url: string;
  port: number;
  pid: number;
  /** Settles when the process has ended, for whatever reason. */
  exited: Promise<PrismExit>;
  stop(): Promise<void>;
}

/** A port the kernel says is free right now (listen on 0, read it, close). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

const READY = /Prism is listening on (http:\/\/\S+)/;

// Prism processes still running; killed when this process exits, so a crashed test run leaves none behind.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const child of running) child.kill();
    });
  }
}

export type PrismOptions = {
  document: string;
  port?: number;
  host?: string;
  startTimeoutMs?: number;
  /** Every line Prism prints (stdout and stderr), as it comes, from start to exit. */
  onLine?: (line: string) => void;
};

/**
 * Runs `prism mock <document>` and resolves once Prism prints that it listens (no polling). Rejects with Prism's
 * output if it exits first or does not start within `startTimeoutMs`. With no port given, a port another process
 * took between our check and Prism's bind is retried on a new free port (three attempts at most).
 */
export async function startPrism(options: PrismOptions): Promise<PrismProcess> {
  const host = options.host ?? '127.0.0.1';
  if (options.port) return launch(options, host, options.port);
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(options, host, await freePort(host));
    } catch (error) {
      if (attempt >= 3 || !(error instanceof EarlyExit)) throw error;
    }
  }
}

export class EarlyExit extends Error {}

async function launch(options: PrismOptions, host: string, port: number): Promise<PrismProcess> {
  const bin = resolve(repoRoot, 'node_modules/.bin/prism');
  const child = spawn(bin, ['mock', '-h', host, '-p', String(port), '-v', 'info', options.document], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  track(child);
  const exited = new Promise<PrismExit>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  let output = '';
  // Split into lines per stream; the listener stays for the process's whole life, so the pipes never fill.
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onLine?.(line.replace(/\r$/, ''));
    });
    stream.on('end', () => {
      if (partial) options.onLine?.(partial);
    });
  }
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`Prism did not start in time:\n${output}`)), options.startTimeoutMs ?? 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (READY.test(output)) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        ready();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      fail(new EarlyExit(`Prism exited with ${code ?? signal} before listening on ${host}:${port}:\n${output}`));
    });
  }).catch((error: unknown) => {
    child.kill();
    throw error;
  });
  return { url: `http://${host}:${port}`, port, pid: child.pid!, exited, stop: () => stopChild(child, exited) };
}

function stopChild(child: ChildProcess, exited: Promise<PrismExit>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGTERM');
  return exited.then(() => undefined);
}
