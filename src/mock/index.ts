// Mock servers: Prism per environment behind a front that speaks the service's grammar and envelope.
import type { Server } from 'node:http';
import { bundlePath, loadSpec, type Environment } from '../spec/index.ts';
import { createMockFront, envHeaderValue } from './front.ts';
import { startPrism } from './prism.ts';

export { createMockFront, envHeaderValue } from './front.ts';
export { startPrism, freePort } from './prism.ts';

export interface RunningMock {
  environment: Environment;
  /** Where clients point (the front), e.g. http://127.0.0.1:4010. */
  url: string;
  /** Prism behind it (answers without our envelope fixes). */
  prismUrl: string;
  /** The X-CareAPI-Env value it answers. */
  envValue: string;
  stop(): Promise<void>;
}

/** Starts Prism on `generated/care-api.<environment>.yaml` and the front before it, both on 127.0.0.1. */
export async function startMock(options: { environment: Environment; port?: number; prismPort?: number; host?: string }): Promise<RunningMock> {
  const host = options.host ?? '127.0.0.1';
  const document = bundlePath(options.environment);
  const spec = loadSpec(document);
  const prism = await startPrism({ document, port: options.prismPort, host });
  const server = createMockFront({ spec, prismUrl: prism.url });
  try {
    await listen(server, options.port ?? 0, host);
  } catch (error) {
    await prism.stop();
    throw error;
  }
  const { port } = server.address() as { port: number };
  return {
    environment: options.environment,
    url: `http://${host}:${port}`,
    prismUrl: prism.url,
    envValue: envHeaderValue(spec),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await prism.stop();
    },
  };
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
