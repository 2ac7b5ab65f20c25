// The webhook delivery schedule (D-17): the root `x-care-deliveries` of the description, the one place it is stated.
// The sandbox's dispatcher takes its defaults here and the conformance suite its waits; neither keeps a number.

export interface DeliverySchedule {
  /** Delay before each retry, in milliseconds; attempts = delays + 1. */
  retryDelaysMs: number[];
  /** Relative jitter of each delay, 0.2 = ±20 %. */
  jitter: number;
  /** Bound of one attempt, in milliseconds. */
  attemptTimeoutMs: number;
}

function seconds(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new Error(`x-care-deliveries: ${where} must be a positive number of seconds, found ${JSON.stringify(value)}`);
  }
  return value * 1000;
}

/** The schedule of a bundle; a bundle without it, or with a part missing, is an error (nothing falls back). */
export function readDeliveries(document: any): DeliverySchedule {
  const raw = document?.['x-care-deliveries'];
  if (!raw || typeof raw !== 'object') throw new Error('the description declares no x-care-deliveries at its root');
  if (!Array.isArray(raw.retryDelaysSeconds) || raw.retryDelaysSeconds.length === 0) {
    throw new Error('x-care-deliveries: retryDelaysSeconds must be a list of seconds');
  }
  if (typeof raw.jitter !== 'number' || !(raw.jitter >= 0 && raw.jitter < 1)) {
    throw new Error(`x-care-deliveries: jitter must be a fraction from 0 to below 1, found ${JSON.stringify(raw.jitter)}`);
  }
  return {
    retryDelaysMs: raw.retryDelaysSeconds.map((delay: unknown, i: number) => seconds(delay, `retryDelaysSeconds.${i}`)),
    jitter: raw.jitter,
    attemptTimeoutMs: seconds(raw.attemptTimeoutSeconds, 'attemptTimeoutSeconds'),
  };
}
