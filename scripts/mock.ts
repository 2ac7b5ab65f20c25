// `npm run mock [-- --port N | --production-port N --sandbox-port M]`: Prism per environment behind the envelope
// front. `--port N` puts production on N and sandbox on N+1; without ports, free ones are chosen.
import { parseArgs } from 'node:util';
import { startMock, type RunningMock } from '../src/mock/index.ts';

const { values } = parseArgs({
  options: {
    'production-port': { type: 'string' },
    'sandbox-port': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});

const port = (text: string | undefined) => (text === undefined ? undefined : Number(text));
const base = port(values.port);
const productionPort = port(values['production-port']) ?? base;
const sandboxPort = port(values['sandbox-port']) ?? (base === undefined ? undefined : base + 1);
const running: RunningMock[] = [];

async function stopAll(): Promise<void> {
  await Promise.all(running.map((mock) => mock.stop()));
}

try {
  running.push(await startMock({ environment: 'production', port: productionPort, host: values.host }));
  running.push(await startMock({ environment: 'sandbox', port: sandboxPort, host: values.host }));
} catch (error) {
  await stopAll();
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

for (const mock of running) {
  console.log(`${mock.environment.padEnd(10)} ${mock.url}   (X-CareAPI-Env: ${mock.envValue}; Prism at ${mock.prismUrl})`);
}
console.log('Point createCareClient({ environment, baseUrl }) at these URLs. Ctrl-C stops both.');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stopAll().then(() => process.exit(0));
  });
}
