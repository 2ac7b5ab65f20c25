// Keeps one Prism process alive behind a mock front: when it exits, says why (with its last output), and starts it
// again on the same port. Prism's own warnings and errors are passed to the console, prefixed with the environment.
import { startPrism, type PrismExit, type PrismProcess } from './prism.ts';

export type PrismState = 'starting' | 'up' | 'restarting' | 'stopped';

export interface PrismSupervisor {
  readonly state: PrismState;
  /** The running Prism's URL; undefined while it is (re)starting. */
  readonly url: string | undefined;
  readonly pid: number | undefined;
  /** Restarts so far. */
  readonly restarts: number;
  /** Settles when the first start succeeded (rejects if it failed: nothing is restarted then). */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  document: string;
  host: string;
  /** Prefix of every line printed, e.g. `mock sandbox`. */
  label: string;
  /** Where lines go (default: console.error). */
  log?: (line: string) => void;
}

const LAST_LINES = 15;
/** Prism's log lines: `[1:53:54 PM] › [CATEGORY] <icon> <level> <message>`. */
const LOG_LINE = /^\[[^\]]*\] ›/;
const PROBLEM_LEVEL = /\b(warning|error|fatal)\b/;

/**
 * Whether a line of Prism's output is one of its own warnings or errors. Its request log (info) is not, nor are the
 * [VALIDATOR] lines: those are the request's own faults, which the client already gets in the answer.
 */
export function isPrismProblem(line: string): boolean {
  if (line.trim() === '') return false;
  if (!LOG_LINE.test(line)) return true; // not in the log format: a stack trace or the message of a crashing process
  return PROBLEM_LEVEL.test(line) && !line.includes('[VALIDATOR]');
}

function describeExit({ code, signal }: PrismExit): string {
  return signal ? `was ended by ${signal}` : `exited with code ${code}`;
}

export function supervisePrism(options: SuperviseOptions): PrismSupervisor {
  const log = options.log ?? ((line: string) => console.error(line));
  const last: string[] = [];
  let current: PrismProcess | undefined;
  let state: PrismState = 'starting';
  let restarts = 0;
  let port: number | undefined;
  let wake: (() => void) | undefined;

  const onLine = (line: string) => {
    last.push(line);
    if (last.length > LAST_LINES) last.shift();
    if (isPrismProblem(line)) log(`[${options.label}] Prism: ${line}`);
  };

  const launch = async (): Promise<PrismProcess> => {
    try {
      return await startPrism({ document: options.document, host: options.host, port, onLine });
    } catch (error) {
      if (port === undefined) throw error;
      port = undefined; // its port was taken meanwhile: any free one will do, the front finds it
      return startPrism({ document: options.document, host: options.host, onLine });
    }
  };

  const watch = (prism: PrismProcess) => {
    current = prism;
    port = prism.port;
    state = 'up';
    void prism.exited.then(async (exit) => {
      if (state === 'stopped') return;
      current = undefined;
      state = 'restarting';
      log(`[${options.label}] Prism (pid ${prism.pid}) ${describeExit(exit)}; the mock answers 503 until it is back. Its last output:`);
      for (const line of last.splice(0)) log(`[${options.label}]   | ${line}`);
      // A Prism that dies at once again is restarted after a growing pause (at most 10 s), not in a tight loop.
      for (let attempt = 0; state === 'restarting'; attempt++) {
        if (attempt > 0) await new Promise<void>((done) => {
          wake = done;
          setTimeout(done, Math.min(10_000, 500 * 2 ** attempt)).unref();
        });
        if (state !== 'restarting') return;
        try {
          const next = await launch();
          if (state !== 'restarting') {
            await next.stop();
            return;
          }
          restarts++;
          watch(next);
          log(`[${options.label}] Prism restarted (pid ${next.pid}) on ${next.url}`);
        } catch (error) {
          log(`[${options.label}] Prism did not restart: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    });
  };

  const ready = launch().then(watch, (error: unknown) => {
    state = 'stopped';
    throw error;
  });
  ready.catch(() => {}); // the caller awaits it; no unhandled rejection when it does so later

  return {
    get state() {
      return state;
    },
    get url() {
      return state === 'up' ? current?.url : undefined;
    },
    get pid() {
      return current?.pid;
    },
    get restarts() {
      return restarts;
    },
    ready,
    async stop() {
      const was = current;
      state = 'stopped';
      wake?.();
      await ready.catch(() => {});
      await (current ?? was)?.stop();
    },
  };
}
