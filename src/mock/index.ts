// Mock servers: Prism per environment behind a front that speaks the service's grammar and envelope (D-42).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { bundlePath, loadSpec, type Environment } from '../spec/index.ts';
import { createMockFront, envHeaderValue } from './front.ts';
import { supervisePrism, type PrismState } from './supervisor.ts';

export { createMockFront, envHeaderValue } from './front.ts';
export { startPrism, freePort } from './prism.ts';
export { supervisePrism } from './supervisor.ts';

/** The ports `npm run mock` and `npm start` use unless told otherwise. */
export const DEFAULT_MOCK_PORTS: Record<Environment, number> = { production: 4010, sandbox: 4011 };

export interface RunningMock {
  environment: Environment;
  /** Where clients point (the front), e.g. http://127.0.0.1:4010. */
  url: string;
  /** Prism behind it (answers without our envelope fixes); it can change when Prism is restarted. */
  readonly prismUrl: string;
  /** Pid of the Prism process now running (undefined while it restarts). */
  readonly prismPid: number | undefined;
  readonly prismState: PrismState;
  /** The X-CareAPI-Env value it answers. */
  envValue: string;
  stop(): Promise<void>;
}

/** The port is taken: says which, and (through `hint`) how to choose another. */
export class PortInUseError extends Error {
  constructor(readonly port: number, readonly environment: Environment, hint: string) {
    super(`port ${port} (the ${environment} mock) is already in use. ${hint}`);
  }
}

export interface StartMockOptions {
  environment: Environment;
  /** The front's port; default 0, a free one (tests). The CLIs pass DEFAULT_MOCK_PORTS. */
  port?: number;
  host?: string;
  /** How to choose another port, named in the error when the port is busy. */
  portHint?: string;
  /** Where the mock's lines go (Prism's warnings, restarts); default console.error. */
  log?: (line: string) => void;
}

/** A front listening on its port, its Prism not started yet: a CLI binds every port before starting any Prism. */
export interface BoundMock {
  /** Where clients point (the front), listening already: requests wait until Prism has started. */
  url: string;
  /** Starts Prism behind the front (supervised: restarted whenever it exits). */
  start(): Promise<RunningMock>;
  close(): Promise<void>;
}

/** Listens with the front on its port; a busy port is a PortInUseError at once. */
export async function bindMock(options: StartMockOptions): Promise<BoundMock> {
  const host = options.host ?? '127.0.0.1';
  // Prism reloads (and stops answering for a while) whenever its document changes on disk, as `npm run build`
  // rewrites it; it serves a copy taken now instead, the same description the front read.
  const snapshotDir = mkdtempSync(join(tmpdir(), `care-mock-${options.environment}-`));
  const document = join(snapshotDir, basename(bundlePath(options.environment)));
  copyFileSync(bundlePath(options.environment), document);
  const spec = loadSpec(document);
  const removeSnapshot = () => rmSync(snapshotDir, { recursive: true, force: true });
  let prism: ReturnType<typeof supervisePrism> | undefined;
  // requests that come before Prism first listens wait for it (not a 503 "restarting": nothing is restarting)
  let firstStarted!: { resolve: () => void; reject: (error: unknown) => void };
  const firstStart = new Promise<void>((resolve, reject) => (firstStarted = { resolve, reject }));
  firstStart.catch(() => undefined);
  const server = createMockFront({ spec, prismUrl: () => prism?.url, firstStart });
  const port = options.port ?? 0;
  try {
    await listen(server, port, host);
  } catch (error) {
    removeSnapshot();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new PortInUseError(port, options.environment, options.portHint ?? 'Choose another port.');
    }
    throw error;
  }
  const close = async () => {
    firstStarted.reject(new Error('the mock stopped'));
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    await prism?.stop();
    removeSnapshot();
  };
  const { port: boundPort } = server.address() as { port: number };
  return {
    url: `http://${host}:${boundPort}`,
    close,
    async start() {
      const running = supervisePrism({ document, host, label: `mock ${options.environment}`, log: options.log });
      prism = running;
      try {
        await running.ready;
        firstStarted.resolve();
      } catch (error) {
        await close();
        throw error;
      }
      const { port: bound } = server.address() as { port: number };
      return {
        environment: options.environment,
        url: `http://${host}:${bound}`,
        get prismUrl() {
          return running.url ?? '';
        },
        get prismPid() {
          return running.pid;
        },
        get prismState() {
          return running.state;
        },
        envValue: envHeaderValue(spec),
        stop: close,
      };
    },
  };
}

/** Starts the front on its port (a busy port fails at once), then Prism behind it. */
export async function startMock(options: StartMockOptions): Promise<RunningMock> {
  return (await bindMock(options)).start();
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
