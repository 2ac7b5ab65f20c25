// Starts and stops one Prism mock process (node_modules/.bin/prism) on a loopback port.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { repoRoot } from '../spec/index.ts';

export interface PrismProcess {
  url: string;
  port: number;
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

type PrismOptions = { document: string; port?: number; host?: string; startTimeoutMs?: number };

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

class EarlyExit extends Error {}

async function launch(options: PrismOptions, host: string, port: number): Promise<PrismProcess> {
  const bin = resolve(repoRoot, 'node_modules/.bin/prism');
  const child = spawn(bin, ['mock', '-h', host, '-p', String(port), '-v', 'info', options.document], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let output = '';
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`Prism did not start in time:\n${output}`)), options.startTimeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (READY.test(output)) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new EarlyExit(`Prism exited with ${code} before listening on ${host}:${port}:\n${output}`));
    });
  }).catch((error: unknown) => {
    child.kill();
    throw error;
  });
  // Keep draining its log (one line per request) so the pipe never fills and blocks Prism.
  child.stdout!.on('data', () => {});
  child.stderr!.on('data', () => {});
  return { url: `http://${host}:${port}`, port, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}
