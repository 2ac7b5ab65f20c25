// Webhook deliveries (D-17): a persisted queue, worked off in the background so no request waits for a receiver.
// One delivery in flight per subscription (order kept, a hanging receiver stalls only itself), a global cap on
// parallel attempts, Standard Webhooks signatures, retries with exponential backoff and jitter, Retry-After honoured,
// 410 disables the subscription.
// Scheduling (D-65): a due-queue keyed by subscription holds when each one is next due; one timer waits for the
// earliest. Each delivery costs a few index lookups, never a scan of the backlog, and work is started in small
// batches, one per turn of the event loop, so requests are served between batches; attempts are paced
// (a token bucket, `attemptsPerSecond`) so that a backlog takes a bounded share of the one event loop.
import type { DeliverySchedule } from '../spec/deliveries.ts';
import type { Environment } from '../spec/types.ts';
import { iso } from './time.ts';
import { DeliveryTimeout, postDelivery } from './delivery-post.ts';
import { connectSocket, systemResolver, TargetRefused } from './delivery-target.ts';
import type { Connector, Resolver, TargetPolicy } from './delivery-target.ts';
import { DueQueue } from './due-queue.ts';
import { envHeader } from './http/envelope.ts';
import { isLoopbackUrl } from './loopback.ts';
import type { Delivery, Storage } from './store/types.ts';

export interface DispatcherOptions {
  /** Delay before each retry; attempts = delays + 1 (default: the description's schedule). */
  retryDelaysMs?: number[];
  /** Per-attempt timeout (default: the description's). */
  timeoutMs?: number;
  /** Parallel attempts across all subscriptions. */
  concurrency?: number;
  /** Attempts started per second at most, in bursts of up to `concurrency` (default 200). */
  attemptsPerSecond?: number;
  /** Relative jitter, 0.2 = ±20 % (default: the description's). */
  jitter?: number;
  /** Longest Retry-After honoured (default: the schedule's longest delay). */
  maxRetryAfterMs?: number;
  now?: () => number;
  /** Deliver only to loopback addresses; any other target is refused without a connection (D-64). */
  loopbackOnly?: boolean;
  /**
   * Let production deliveries connect to internal addresses (loopback, private, link-local, ...), for a local run.
   * Without it they are refused after name resolution, before any connection (D-94). Sandbox deliveries always may.
   */
  allowPrivateTargets?: boolean;
  /** Apply production's guard to sandbox-environment deliveries too (a hosted sandbox, D-113); off on loopback. */
  guardSandbox?: boolean;
  /** Name resolution of delivery targets (default: the system resolver); tests answer names themselves. */
  resolve?: Resolver;
  /** Opens a delivery's socket to checked addresses (default: TCP or TLS); tests watch or refuse connections. */
  connect?: Connector;
}

type Header = Record<string, string>;

/** Attempts started per turn of the event loop: each start takes a fraction of a millisecond, requests wait less. */
const BATCH = 4;

// Loaded on the first delivery (short cold start), then kept: a dynamic import per attempt costs a loader round trip.
let standardWebhooksModule: Promise<typeof import('standardwebhooks')> | undefined;
const standardWebhooks = () => (standardWebhooksModule ??= import('standardwebhooks'));

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

/** A subscription in the due-queue: its environment and id (ids are numbered per environment, D-90). */
const subscriptionKey = (env: Environment, webhookId: string) => `${env}/${webhookId}`;
const subscriptionOf = (key: string): [Environment, string] => {
  const slash = key.indexOf('/');
  return [key.slice(0, slash) as Environment, key.slice(slash + 1)];
};

/** `schedule`: the description's `x-care-deliveries` (D-17); `options` may replace each part (tests, the CLI). */
export function createDispatcher(store: Storage, schedule: DeliverySchedule, options: DispatcherOptions = {}) {
  const delays = options.retryDelaysMs ?? schedule.retryDelaysMs;
  const timeoutMs = options.timeoutMs ?? schedule.attemptTimeoutMs;
  const concurrency = options.concurrency ?? 16;
  const rate = options.attemptsPerSecond ?? 200;
  // Pacing is about CPU, not about the service's clock (which tests may fix): the monotonic clock.
  let tokens = concurrency;
  let refilledAt = performance.now();
  const refill = () => {
    const t = performance.now();
    tokens = Math.min(concurrency, tokens + ((t - refilledAt) * rate) / 1000);
    refilledAt = t;
  };
  const jitter = options.jitter ?? schedule.jitter;
  const maxRetryAfter = options.maxRetryAfterMs ?? Math.max(...schedule.retryDelaysMs);
  const now = options.now ?? Date.now;
  const loopbackOnly = options.loopbackOnly ?? false;
  const resolve = options.resolve ?? systemResolver;
  const connect = options.connect ?? connectSocket;
  /** D-94: production (and a hosted sandbox's sandbox, D-113) reaches public addresses only unless allowed; loopback-only (D-64) checks resolved names too. */
  const guarded = (env: Environment) => !options.allowPrivateTargets && (env === 'production' || options.guardSandbox === true);
  const policyOf = (env: Environment): TargetPolicy => (loopbackOnly ? 'loopback' : guarded(env) ? 'public' : 'any');
  /** Subscriptions with an attempt running: their next delivery waits for it (order kept). */
  const inFlight = new Set<string>();
  const running = new Set<Promise<void>>();
  /** When each subscription that is not in flight is next due. */
  const queue = new DueQueue();
  /** The last delivery id read into the queue: newer rows are picked up by `sync`. */
  let seenId = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let pumpQueued = false;

  async function attempt(delivery: Delivery): Promise<void> {
    const env = delivery.env as Environment;
    const webhook = store.get('webhooks', env, delivery.webhookId);
    const event = store.get('events', env, delivery.eventId);
    if (!webhook || !event || !webhook.record.enabled) {
      store.finishDelivery(delivery.id, 'dropped', webhook ? 'subscription disabled' : 'subscription deleted');
      return;
    }
    if (loopbackOnly && !isLoopbackUrl(webhook.record.url)) {
      store.finishDelivery(delivery.id, 'refused', `refused: ${webhook.record.url} is not a loopback address (loopback-only)`);
      return;
    }
    const payload = event.record.payload;
    const body = JSON.stringify({ meta: { ...payload.meta, webhookId: webhook.record.id }, data: payload.data });
    const sentAt = new Date(now());
    const { Webhook: StandardWebhook } = await standardWebhooks();
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
      const answer = await postDelivery(webhook.record.url, { body, headers, timeoutMs, policy: policyOf(env), resolve, connect });
      status = answer.status;
      retryAfter = retryAfterMs(answer.retryAfter, now());
      outcome = `HTTP ${status}`;
    } catch (error) {
      // a refused target is a failed attempt like any other (retried: a name may resolve elsewhere later)
      if (error instanceof TargetRefused) outcome = `refused: ${error.message}`;
      else if (error instanceof DeliveryTimeout) outcome = `timeout after ${timeoutMs} ms`;
      else outcome = `connection failed: ${(error as Error).message}`;
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

  /** Read deliveries queued since the last look into the due-queue (cost: the new rows only). */
  function sync(): void {
    const { lastId, heads } = store.pendingHeadsSince(seenId);
    seenId = lastId;
    for (const head of heads) {
      const key = subscriptionKey(head.env, head.webhookId);
      if (inFlight.has(key)) continue; // its completion reads its next head
      const known = queue.timeOf(key);
      if (known === undefined || head.nextAt < known) queue.set(key, head.nextAt);
    }
  }

  /** Run `pump` after pending I/O (requests) has been served; several requests coalesce into one run. */
  function requestPump(): void {
    if (stopped || pumpQueued) return;
    pumpQueued = true;
    setImmediate(pump);
  }

  function begin(delivery: Delivery): void {
    const key = subscriptionKey(delivery.env, delivery.webhookId);
    inFlight.add(key);
    const task = attempt(delivery)
      .catch((error) => {
        store.rescheduleDelivery(delivery.id, delivery.attempt, now() + 1_000, `internal error: ${(error as Error).message}`);
      })
      .finally(() => {
        inFlight.delete(key);
        running.delete(task);
        const next = store.headDelivery(delivery.env, delivery.webhookId);
        if (next) queue.set(key, next.nextAt);
        requestPump();
      });
    running.add(task);
  }

  /** One bounded batch: start what is due while slots are free, then yield (setImmediate) or wait (timer). */
  function pump(): void {
    pumpQueued = false;
    if (stopped) return;
    clearTimeout(timer);
    timer = undefined;
    sync();
    const t = now();
    refill();
    let looked = 0;
    let started = 0;
    while (running.size < concurrency && tokens >= 1 && started < BATCH && looked < BATCH * 4) {
      const key = queue.popDue(t);
      if (key === undefined) break;
      looked++;
      if (inFlight.has(key)) continue;
      const head = store.headDelivery(...subscriptionOf(key));
      if (!head) continue;
      if (head.nextAt > t) queue.set(key, head.nextAt);
      else {
        tokens--;
        started++;
        begin(head);
      }
    }
    // With every slot busy, a completion pumps again; otherwise wait for the earliest due time.
    if (running.size >= concurrency) return;
    const next = queue.peek();
    if (next === undefined) return;
    const wait = Math.max(next - now(), tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1000) / rate));
    if (wait <= 0) requestPump();
    else {
      timer = setTimeout(pump, Math.min(wait, 60_000));
      timer.unref?.();
    }
  }

  return {
    start() {
      stopped = false;
      requestPump();
    },
    /** New deliveries were queued: look now rather than at the next timer. */
    wake() {
      requestPump();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
    /** Whether no delivery is due now or running (for tests and graceful shutdown; bounded by the caller). */
    idle(): boolean {
      sync();
      const next = queue.peek();
      return running.size === 0 && (next === undefined || next > now());
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
