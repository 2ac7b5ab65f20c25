// `npm start` (scripts/start.ts) as a child process for tests: its output gathered, lines awaited as they come.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface StartProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far, stdout and stderr together. */
  readonly output: string;
  /** Resolves with the match once `pattern` appears in the output (from the start); rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

export function npmStart(args: string[]): StartProcess {
  // node --import tsx, not the tsx CLI: that wrapper force-kills its child when the child's acknowledgement of a
  // signal takes over 30 ms (a loaded machine), so a SIGTERM could end npm start before it stops what it started.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', ...args], { cwd: root });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of [...waiters]) check();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => {
    for (const check of [...waiters]) check();
    done(code);
  }));
  return {
    child,
    get output() {
      return output;
    },
    exited,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match) {
            waiters.delete(check);
            resolve(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            reject(new Error(`npm start ended (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${output}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The URL printed after `label` (e.g. /mock \(Prism\) sandbox/) in npm start's output. */
export function urlAfter(output: string, label: RegExp): string {
  const match = output.match(new RegExp(label.source + String.raw`\s+(http://127\.0\.0\.1:\d+\S*)`));
  if (!match) throw new Error(`no URL after ${label} in:\n${output}`);
  return match[1];
}
