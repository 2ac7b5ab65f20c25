// `npm run mock`: Prism per environment behind the envelope front (D-42), on fixed ports: production 4010, sandbox
// 4011. A busy port is an error naming it and the flag that changes it, never a silent move to another port.
import { parseArgs } from 'node:util';
import { bindMock, DEFAULT_MOCK_PORTS, type BoundMock, type RunningMock } from '../src/mock/index.ts';
import type { Environment } from '../src/spec/index.ts';

const HELP = `npm run mock [-- options]: the Prism mocks of both environments, behind the front that answers like the service

Options:
  --port N              production on N, sandbox on N+1 (default 4010 and 4011; 0 picks free ports, for tests)
  --production-port N   the production mock's port alone
  --sandbox-port N      the sandbox mock's port alone
  --host H              interface (default 127.0.0.1)
  --help                this text
See docs/mocks.md.
`;

let values;
try {
  ({ values } = parseArgs({
    options: {
      'production-port': { type: 'string' },
      'sandbox-port': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  console.error(`npm run mock: ${(error as Error).message}\n\n${HELP}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

function port(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`npm run mock: ${flag} wants a port number (0-65535), got ${text}`);
    process.exit(2);
  }
  return n;
}
const base = port('--port', values.port);
const ports: Record<Environment, number> = {
  production: port('--production-port', values['production-port']) ?? base ?? DEFAULT_MOCK_PORTS.production,
  sandbox: port('--sandbox-port', values['sandbox-port']) ?? (base === undefined ? undefined : base === 0 ? 0 : base + 1) ?? DEFAULT_MOCK_PORTS.sandbox,
};
const hints: Record<Environment, string> = {
  production: 'Stop what uses it, or choose another port: npm run mock -- --production-port N (or --port N: production N, sandbox N+1).',
  sandbox: 'Stop what uses it, or choose another port: npm run mock -- --sandbox-port N (or --port N: production N-1, sandbox N).',
};
const running: RunningMock[] = [];

async function stopAll(): Promise<void> {
  await Promise.all(running.map((mock) => mock.stop()));
}

// Every port first (a busy one fails before any Prism starts), then both Prisms at once (each takes seconds).
const bound = await Promise.allSettled(
  (['production', 'sandbox'] as const).map((environment) => bindMock({ environment, port: ports[environment], host: values.host, portHint: hints[environment] })),
);
const failures = bound.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
if (failures.length === 0) {
  const started = await Promise.allSettled(bound.map((result) => (result as PromiseFulfilledResult<BoundMock>).value.start()));
  for (const result of started) if (result.status === 'fulfilled') running.push(result.value);
  failures.push(...started.flatMap((result) => (result.status === 'rejected' ? [result.reason] : [])));
}
if (failures.length > 0) {
  await Promise.all(bound.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)));
  for (const error of failures) console.error(`npm run mock: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

for (const mock of running) {
  console.log(`${mock.environment.padEnd(10)} ${mock.url}   (X-CareAPI-Env: ${mock.envValue}; Prism at ${mock.prismUrl}, pid ${mock.prismPid})`);
}
console.log('Point createCareClient({ environment, baseUrl }) at these URLs. Prism is restarted if it exits. Ctrl-C stops both.');

// \`on\`, not \`once\`: Ctrl-C in a terminal signals npm too, which passes the signal on, so a second one arrives while
// the first stops the mocks; it must not end the process before their temporary folders are removed.
let stopping: Promise<void> | undefined;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    stopping ??= stopAll().then(() => process.exit(0));
  });
}
