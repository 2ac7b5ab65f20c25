// One signal per call: the caller's `signal` and the client's `timeoutMs` together, from the token to the last byte.
import { CareApiError } from './errors.ts';

/** Default of `timeoutMs`: how long a call may take in all, token included. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The longest delay a JavaScript timer keeps: 2^31 - 1 ms (about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * `timeoutMs` as given, or the default when absent; 0 and Infinity mean none. Anything else that is not a number of
 * milliseconds from 1 to MAX_TIMEOUT_MS is refused here, naming the option, rather than turned into a 1 ms timer.
 */
export function checkTimeoutMs(value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const range = `a number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (about 24.8 days), or 0 or Infinity for none`;
  if (typeof value !== 'number') throw new TypeError(`timeoutMs must be ${range}, not ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  if (value === 0 || value === Infinity) return value;
  if (!(value >= 1 && value <= MAX_TIMEOUT_MS)) throw new RangeError(`timeoutMs must be ${range}, not ${String(value)}`);
  return value;
}

export interface CallSignal {
  signal: AbortSignal | undefined;
  /** Stops the client's timer (the call has ended, or a stream was handed to the caller). */
  done(): void;
}

export function callSignal(callerSignal: AbortSignal | null | undefined, timeoutMs: number): CallSignal {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return { signal: callerSignal ?? undefined, done: () => undefined };
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`the call took longer than timeoutMs (${timeoutMs} ms)`, 'TimeoutError')),
    timeoutMs,
  );
  return {
    signal: callerSignal ? AbortSignal.any([callerSignal, controller.signal]) : controller.signal,
    done: () => clearTimeout(timer),
  };
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts (the promise itself goes on). */
export function withAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The CareApiError of a call its signal ended: `timeout` for a TimeoutError (ours or the caller's), else `aborted`. */
export function abortedCall(signal: AbortSignal, response?: Response, during?: string): CareApiError {
  const reason = signal.reason as { name?: string; message?: string } | undefined;
  const timedOut = reason?.name === 'TimeoutError';
  const what = timedOut ? 'timed out' : 'was aborted';
  return new CareApiError(response, undefined, {
    reason: timedOut ? 'timeout' : 'aborted',
    message: `the Care API call ${what}${during ? ` ${during}` : ''}${reason?.message ? `: ${reason.message}` : ''}`,
    cause: signal.reason,
  });
}
