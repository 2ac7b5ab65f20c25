// `npm start`: the main job for a newcomer. Starts the stateful reference sandbox (with the docs at /docs) and the
// Prism mocks of both environments, all on loopback, and stops them together on Ctrl-C.
//   npm start                         sandbox on 4020, mocks on 4010 (production) and 4011 (sandbox)
//   npm start -- --no-mocks           the sandbox alone
//   npm start -- --mock-port 5010     mocks on 5010 and 5011
// Every other argument goes to care-sandbox (`npm start -- --memory --port 0`; `npm run sandbox -- --help`).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startMock, type RunningMock } from '../src/mock/index.ts';

const DEFAULT_MOCK_PORT = 4010;

function splitArguments(argv: string[]): { withMocks: boolean; mockPort: number; sandboxArgs: string[] } {
  let withMocks = true;
  let mockPort = DEFAULT_MOCK_PORT;
  const sandboxArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--no-mocks') withMocks = false;
    else if (argv[i] === '--mock-port') mockPort = Number(argv[++i]);
    else sandboxArgs.push(argv[i]);
  }
  if (!Number.isInteger(mockPort) || mockPort < 0) throw new Error('--mock-port wants a port number');
  return { withMocks, mockPort, sandboxArgs };
}

const { withMocks, mockPort, sandboxArgs } = splitArguments(process.argv.slice(2));
const sandboxBin = fileURLToPath(new URL('../bin/care-sandbox.js', import.meta.url));
const sandbox = spawn(process.execPath, [sandboxBin, ...sandboxArgs], { stdio: 'inherit' });
const mocks: RunningMock[] = [];
let stopping = false;

async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    if (sandbox.exitCode === null) sandbox.kill('SIGTERM');
    await Promise.allSettled(mocks.map((mock) => mock.stop()));
  }
  process.exit(code);
}

sandbox.on('exit', (code) => void stop(code ?? 0));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop(0));

if (withMocks) {
  try {
    // A busy default port falls back to a free one: the URLs printed below are the ones to use.
    for (const [environment, port] of [['production', mockPort], ['sandbox', mockPort === 0 ? 0 : mockPort + 1]] as const) {
      mocks.push(await startMock({ environment, port }).catch(() => startMock({ environment })));
    }
    for (const mock of mocks) {
      console.log(`mock (Prism) ${mock.environment.padEnd(10)} ${mock.url}   X-CareAPI-Env: ${mock.envValue}`);
    }
    console.log('Stateless mocks answer the description\'s examples; the sandbox above keeps state. Ctrl-C stops all.');
  } catch (error) {
    console.error(`mocks not started: ${error instanceof Error ? error.message : String(error)}`);
    await stop(1);
  }
}
