// Webhook deliveries (D-17): a persisted queue, worked off in the background so no request waits for a receiver.
// One delivery in flight per subscription (order kept, a hanging receiver stalls only itself), a global cap on
// parallel attempts, Standard Webhooks signatures, retries with exponential backoff and jitter, Retry-After honoured,
// 410 disables the subscription.
import type { Environment } from '../spec/types.ts';
import { iso } from './context.ts';
import { envHeader } from './http/envelope.ts';
import type { Delivery, Storage } from './store/types.ts';

/** About 5 s, 5 min, 30 min, 2 h, 5 h and 10 h (D-17). */
export const PRODUCTION_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

export interface DispatcherOptions {
  /** Delay before each retry; attempts = delays + 1. */
  retryDelaysMs?: number[];
  /** Per-attempt timeout (default 15 s). */
  timeoutMs?: number;
  /** Parallel attempts across all subscriptions. */
  concurrency?: number;
  /** Relative jitter, 0.2 = ±20 %. */
  jitter?: number;
  /** Longest Retry-After honoured. */
  maxRetryAfterMs?: number;
  now?: () => number;
}

type Header = Record<string, string>;

/** Headers of a subscription's `authorization` (seed section 6, rule 5). */
export function authorizationHeaders(authorization: unknown): Header {
  const headers: Header = {};
  const schemes = authorization == null ? [] : Array.isArray(authorization) ? authorization : [authorization];
  for (const scheme of schemes as any[]) {
    if (scheme?.type === 'basic') headers['Authorization'] = 'Basic ' + Buffer.from(`${scheme.username}:${scheme.password}`).toString('base64');
    else if (scheme?.type === 'bearer') headers['Authorization'] = `Bearer ${scheme.token}`;
    else if (scheme?.type === 'header') headers[scheme.name] = scheme.value;
  }
  return headers;
}

function retryAfterMs(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function createDispatcher(store: Storage, options: DispatcherOptions = {}) {
  const delays = options.retryDelaysMs ?? PRODUCTION_RETRY_DELAYS_MS;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const concurrency = options.concurrency ?? 16;
  const jitter = options.jitter ?? 0.2;
  const maxRetryAfter = options.maxRetryAfterMs ?? 36_000_000;
  const now = options.now ?? Date.now;
  const inFlight = new Set<string>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let pumping = false;

  async function attempt(delivery: Delivery): Promise<void> {
    const env = delivery.env as Environment;
    const webhook = store.get('webhooks', env, delivery.webhookId);
    const event = store.get('events', env, delivery.eventId);
    if (!webhook || !event || !webhook.record.enabled) {
      store.finishDelivery(delivery.id, 'dropped', webhook ? 'subscription disabled' : 'subscription deleted');
      return;
    }
    const payload = event.record.payload;
    const body = JSON.stringify({ meta: { ...payload.meta, webhookId: webhook.record.id }, data: payload.data });
    const sentAt = new Date(now());
    const { Webhook: StandardWebhook } = await import('standardwebhooks'); // loaded on the first delivery
    const signature = new StandardWebhook(webhook.internal.signingSecret ?? '').sign(delivery.eventId, sentAt, body);
    const headers: Header = {
      ...authorizationHeaders(webhook.record.authorization),
      'content-type': 'application/json',
      'user-agent': 'CareAPI-Webhooks/0',
      'x-careapi-env': envHeader(env),
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
    };
    let status = 0;
    let outcome: string;
    let retryAfter: number | undefined;
    try {
      const response = await fetch(webhook.record.url, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      status = response.status;
      retryAfter = retryAfterMs(response.headers.get('retry-after'), now());
      await response.body?.cancel().catch(() => undefined);
      outcome = `HTTP ${status}`;
    } catch (error) {
      outcome = (error as Error).name === 'TimeoutError' ? `timeout after ${timeoutMs} ms` : `connection failed: ${(error as Error).message}`;
    }
    if (status >= 200 && status < 300) {
      store.finishDelivery(delivery.id, 'delivered', outcome);
    } else if (status === 410) {
      store.finishDelivery(delivery.id, 'gone', outcome);
      const current = store.get('webhooks', env, webhook.record.id);
      if (current) store.update('webhooks', env, webhook.record.id, { enabled: false, updatedAt: iso(Math.max(now(), Date.parse(current.record.updatedAt) + 1)) });
    } else if (delivery.attempt < delays.length) {
      const base = delays[delivery.attempt];
      const wait = retryAfter !== undefined ? Math.min(retryAfter, maxRetryAfter) : base * (1 - jitter + Math.random() * 2 * jitter);
      store.rescheduleDelivery(delivery.id, delivery.attempt + 1, now() + Math.round(wait), outcome);
    } else {
      store.finishDelivery(delivery.id, 'failed', outcome);
    }
  }

  function schedule(): void {
    if (stopped) return;
    clearTimeout(timer);
    // Deliveries of subscriptions in flight wait for that attempt to end (its completion pumps again).
    const next = store.nextDeliveryAt(inFlight);
    if (next === undefined) return;
    timer = setTimeout(pump, Math.min(Math.max(0, next - now()), 60_000));
    timer.unref?.();
  }

  function pump(): void {
    if (stopped || pumping) return;
    pumping = true;
    try {
      const free = concurrency - running.size;
      const due = free > 0 ? store.dueDeliveries(now(), free, inFlight) : [];
      for (const delivery of due) {
        inFlight.add(delivery.webhookId);
        const task = attempt(delivery)
          .catch((error) => {
            store.rescheduleDelivery(delivery.id, delivery.attempt, now() + 1_000, `internal error: ${(error as Error).message}`);
          })
          .finally(() => {
            inFlight.delete(delivery.webhookId);
            running.delete(task);
            setImmediate(pump);
          });
        running.add(task);
      }
    } finally {
      pumping = false;
    }
    schedule();
  }

  return {
    start() {
      stopped = false;
      pump();
    },
    /** New deliveries were queued: look now rather than at the next timer. */
    wake() {
      if (!stopped) setImmediate(pump);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
    /** Resolves when no delivery is due now or running (for tests and graceful shutdown; bounded by the caller). */
    idle(): boolean {
      const next = store.nextDeliveryAt(new Set());
      return running.size === 0 && (next === undefined || next > now());
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
