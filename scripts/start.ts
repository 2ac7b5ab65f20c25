// `npm start`: the main job for a newcomer. Starts the stateful reference sandbox (with the docs at /docs) and the
// Prism mocks of both environments, all on loopback, says what it did (database created and seeded, or reused; how to
// start afresh), and stops them together on Ctrl-C. `npm start -- --help` lists its options and the sandbox's.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bindMock, DEFAULT_MOCK_PORTS, type BoundMock, type RunningMock } from '../src/mock/index.ts';
import { DatabaseInUseError, lockDatabase } from '../src/sandbox/db-lock.ts';

const sandboxBin = fileURLToPath(new URL('../bin/care-sandbox.js', import.meta.url));

const OWN_HELP = `npm start [-- options]: the reference sandbox on 4020 and the Prism mocks on 4010 (production) and 4011 (sandbox)

Options of npm start:
  --reset          delete the sandbox's database file first (default .care/sandbox.db), so it is created and
                   seeded afresh; refused while another sandbox uses that file
  --no-mocks       start the sandbox alone
  --mock-port N    mocks on N (production) and N+1 (sandbox); default 4010; 0 picks free ports
  --help           this text

Every other option goes to the sandbox (care-sandbox):
`;

interface Arguments {
  withMocks: boolean;
  mockPort: number;
  reset: boolean;
  help: boolean;
  sandboxArgs: string[];
}

function splitArguments(argv: string[]): Arguments {
  const out: Arguments = { withMocks: true, mockPort: DEFAULT_MOCK_PORTS.production, reset: false, help: false, sandboxArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (flag === '--no-mocks') out.withMocks = false;
    else if (flag === '--reset') out.reset = true;
    else if (flag === '--help' || flag === '-h') out.help = true;
    else if (flag === '--mock-port') {
      const text = inline ?? argv[++i];
      out.mockPort = Number(text);
      if (!Number.isInteger(out.mockPort) || out.mockPort < 0 || out.mockPort > 65534) fail(`--mock-port wants a port number, got ${text}`, 2);
    } else out.sandboxArgs.push(argv[i]);
  }
  return out;
}

/** The value of a sandbox option as care-sandbox reads it (`--db FILE` or `--db=FILE`), else undefined. */
function sandboxOption(args: string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) value = args[++i];
    else if (args[i].startsWith(`${name}=`)) value = args[i].slice(name.length + 1);
  }
  return value;
}

function fail(message: string, code = 1): never {
  console.error(`npm start: ${message}`);
  process.exit(code);
}

const args = splitArguments(process.argv.slice(2));
if (args.help) {
  const sandboxHelp = spawnSync(process.execPath, [sandboxBin, '--help'], { encoding: 'utf8' });
  process.stdout.write(OWN_HELP + sandboxHelp.stdout.replace(/^[^\n]*\n\n?/, '').replace(/^(?=.)/gm, '  '));
  process.exit(sandboxHelp.status ?? 0);
}

const inMemory = args.sandboxArgs.includes('--memory');
const seedCases = sandboxOption(args.sandboxArgs, '--seed-cases') ?? '300';
const sandboxPort = sandboxOption(args.sandboxArgs, '--port') ?? '4020';
const dbOption = sandboxOption(args.sandboxArgs, '--db');
const database = resolve(dbOption ?? '.care/sandbox.db');
const shownDatabase = dbOption ?? '.care/sandbox.db';

if (args.reset && !inMemory) {
  // The lock proves no sandbox uses the file (D-86) while it is deleted; the sandbox takes it again at its start.
  try {
    const lock = lockDatabase(database);
    for (const file of [database, `${database}-wal`, `${database}-shm`]) rmSync(file, { force: true });
    lock.release();
  } catch (error) {
    fail(error instanceof DatabaseInUseError ? `--reset refused: ${error.message}` : String(error));
  }
}
const created = inMemory || !existsSync(database);
const databaseLine = inMemory
  ? `database: in memory, seeded with ${seedCases} cases per environment (production and sandbox); gone when this stops.`
  : created
    ? `database: ${shownDatabase} created and seeded with ${seedCases} cases per environment (production and sandbox).`
    : `database: ${shownDatabase} reused, with the cases, API keys and webhooks left by earlier runs.`;
const afreshLine = inMemory ? '' : `  To start afresh: npm start -- --reset (deletes ${shownDatabase} first; or --memory for a database that is not kept).`;

const MOCK_PORT_HINT = 'Stop what uses it, or choose other ports: npm start -- --mock-port N (production N, sandbox N+1), or npm start -- --no-mocks.';

/** Whether something listens on `port` already (any other failure is left for the real start to report). */
function portBusy(port: number, host: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'EADDRINUSE'));
    probe.listen(port, host, () => probe.close(() => done(false)));
  });
}

/**
 * What stands in the way, all of it named at once before anything starts (a second npm start beside a first meets
 * the database, the sandbox's port and both mocks' ports), so the answer is the same whatever the options.
 */
async function obstacles(): Promise<string[]> {
  const found: string[] = [];
  if (!inMemory) {
    try {
      lockDatabase(database).release();
    } catch (error) {
      if (!(error instanceof DatabaseInUseError)) throw error;
      found.push(error.message);
    }
  }
  const host = sandboxOption(args.sandboxArgs, '--host') ?? '127.0.0.1';
  if (Number(sandboxPort) !== 0 && (await portBusy(Number(sandboxPort), host))) {
    found.push(`port ${sandboxPort} (the sandbox) is already in use. Stop what uses it (another npm start?), or choose another port: npm start -- --port N`);
  }
  if (args.withMocks && args.mockPort !== 0) {
    for (const [environment, port] of [['production', args.mockPort], ['sandbox', args.mockPort + 1]] as const) {
      if (await portBusy(port, '127.0.0.1')) found.push(`port ${port} (the ${environment} mock) is already in use. ${MOCK_PORT_HINT}`);
    }
  }
  return found;
}

const inTheWay = await obstacles();
if (inTheWay.length > 0) {
  for (const line of inTheWay) console.error(`npm start: ${line}`);
  process.exit(2);
}

const sandbox = spawn(process.execPath, [sandboxBin, ...args.sandboxArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
const mocks: RunningMock[] = [];
const sandboxExited = new Promise<number | null>((done) => sandbox.once('exit', (code) => done(code)));
let stopping: Promise<never> | undefined;

/** Stops everything once, waiting for the sandbox to end (its database closed, its lock released), then exits. */
function stop(code: number): Promise<never> {
  stopping ??= (async () => {
    if (sandbox.exitCode === null && sandbox.signalCode === null) sandbox.kill('SIGTERM');
    await Promise.allSettled([sandboxExited, ...mocks.map((mock) => mock.stop())]);
    process.exit(code);
  })();
  return stopping;
}

// The sandbox's own lines, passed on, except its internal progress note. Ready once its banner is out: the
// export line is its last (--quiet prints only the listening line), so our lines never come in between.
const bannerEnd = args.sandboxArgs.includes('--quiet') ? /listening on/ : /^\s*export CARE_BASE_URL=/;
const sandboxUp = new Promise<void>((ready) => {
  let pending = '';
  sandbox.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (/case lists in memory/.test(line)) continue; // an internal detail (D-84), not something to act on
      process.stdout.write(line + '\n');
      if (bannerEnd.test(line)) ready();
    }
  });
});
let sandboxErrors = '';
sandbox.stderr.on('data', (chunk: Buffer) => {
  const text = chunk.toString();
  sandboxErrors += text;
  if (!/EADDRINUSE/.test(text)) process.stderr.write(text);
});
sandbox.on('exit', (code) => {
  if (stopping) return;
  if (/EADDRINUSE/.test(sandboxErrors)) {
    console.error(`npm start: port ${sandboxPort} (the sandbox) is already in use. Stop what uses it (another npm start?), or choose another port: npm start -- --port N`);
  }
  void stop(code ?? 1); // the sandbox ended by itself: so does npm start
});
// npm passes SIGINT and SIGTERM on to this process (the npm script execs it, so no shell stands between them and
// drops the signal); a second signal, as Ctrl-C in a terminal sends to npm and to us, waits for the first stop.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(0));

const mocksUp = (async () => {
  if (!args.withMocks) return;
  const ports = { production: args.mockPort, sandbox: args.mockPort === 0 ? 0 : args.mockPort + 1 };
  const hint = MOCK_PORT_HINT;
  // Both ports first (a busy one fails before any Prism starts), then both Prisms at once (each takes seconds).
  const bound = await Promise.allSettled((['production', 'sandbox'] as const).map((environment) => bindMock({ environment, port: ports[environment], portHint: hint })));
  const failures = bound.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  if (failures.length === 0) {
    const started = await Promise.allSettled(bound.map((result) => (result as PromiseFulfilledResult<BoundMock>).value.start()));
    for (const result of started) if (result.status === 'fulfilled') mocks.push(result.value);
    failures.push(...started.flatMap((result) => (result.status === 'rejected' ? [result.reason] : [])));
  }
  if (failures.length > 0) {
    await Promise.all(bound.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)));
    for (const error of failures) console.error(`npm start: mocks not started: ${error instanceof Error ? error.message : String(error)}`);
    await stop(1);
  }
})();

await Promise.all([sandboxUp, mocksUp]);
console.log('');
console.log(databaseLine);
if (afreshLine) console.log(afreshLine);
for (const mock of mocks) {
  console.log(`mock (Prism) ${mock.environment.padEnd(10)} ${mock.url}   X-CareAPI-Env: ${mock.envValue}   (Prism pid ${mock.prismPid})`);
}
if (mocks.length > 0) console.log('The mocks answer the description\'s examples and keep no state (docs/mocks.md); the sandbox above keeps state.');
console.log('Ctrl-C stops all.');
