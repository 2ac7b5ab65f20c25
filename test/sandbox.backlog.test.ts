// The webhook backlog must not starve the API (issue 12, D-65), a subscription in flight must not starve another
// that is due, and test sandboxes deliver to loopback only (D-64).
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DueQueue } from '../src/sandbox/due-queue.ts';
import { isLoopbackUrl } from '../src/sandbox/loopback.ts';
import { customerCase, eventually, startHarness } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';

/** A port that was free a moment ago and now has nothing listening: every delivery to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a backlog of 200 subscriptions x 200 triggers to a closed port', () => {
  let h: Harness;
  beforeAll(async () => {
    // Short retries keep every queued delivery busy (three attempts each) for the whole test.
    h = await startHarness({ seedCases: 20, webhooks: { retryDelaysMs: [10, 20], jitter: 0 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('keeps every API request answering quickly while it drains', async () => {
    // The bound is generous on purpose (a loaded 2-core machine): the quadratic dispatcher of issue 12 made single
    // GETs take tens of seconds (35 s and 137 s at 100 x 150); now each is a few milliseconds.
    const BOUND_MS = 2_000;
    const slow: string[] = [];
    const timed = async (label: string, run: () => Promise<{ status: number }>, expected: number) => {
      const started = performance.now();
      const answer = await run();
      const ms = performance.now() - started;
      expect(answer.status, label).toBe(expected);
      if (ms > BOUND_MS) slow.push(`${label}: ${ms.toFixed(0)} ms`);
    };
    const port = await closedPort();
    for (let i = 0; i < 200; i++) {
      await timed(`subscribe ${i}`, () => h.call('sandbox', 'customer', 'POST', '/webhooks', { url: `http://127.0.0.1:${port}/h${i}` }), 201);
    }
    const c = await customerCase(h);
    const events: string[] = [];
    for (let i = 0; i < 200; i++) {
      await timed(`trigger ${i}`, async () => {
        const answer = await h.call('sandbox', 'customer', 'POST', '/events/case.updated', { caseId: c.id, updated: ['status'] });
        events.push(answer.json?.data?.id);
        return answer;
      }, 202);
    }
    const { store } = h.sandbox.svc;
    const states = (eventId: string) => store.deliveries(eventId).map((d) => d.state);
    expect(states(events[199])).toHaveLength(200);
    for (let i = 0; i < 40; i++) {
      await timed(`GET /contracts ${i}`, () => h.call('sandbox', 'customer', 'GET', '/contracts'), 200);
      await timed(`GET /cases ${i}`, () => h.call('sandbox', 'customer', 'GET', '/cases?page[size]=50&sort=-createdAt'), 200);
    }
    // The requests above were answered while the backlog was still there: the last event's deliveries still wait.
    expect(states(events[199]).filter((s) => s === 'pending').length).toBeGreaterThan(0);
    expect(slow).toEqual([]);
  });
});

describe('a subscription in flight does not starve another that is due', () => {
  let h: Harness;
  let receiver: Server;
  let url = '';
  const held: ServerResponse[] = [];
  const arrived: string[] = [];
  let onArrival: () => void = () => undefined;

  beforeAll(async () => {
    // "/hold" is never answered (until the end); "/quick" is answered at once.
    receiver = createServer((req, res) => {
      req.resume();
      arrived.push(req.url ?? '');
      if (req.url === '/hold') held.push(res);
      else res.writeHead(204).end();
      onArrival();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // Two slots: the held attempt takes one, one is free for the due subscription.
    h = await startHarness({ seedCases: 20, webhooks: { concurrency: 2, timeoutMs: 60_000, retryDelaysMs: [60_000], jitter: 0 } });
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await h?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('delivers to the due subscription while the other one has a backlog behind its held attempt', async () => {
    const hold = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: url + '/hold', eventTypes: ['case.contract.assigned'] });
    expect(hold.status).toBe(201);
    const c = await customerCase(h);
    // More queued deliveries of the held subscription than the old query read (limit x 8 = 8 rows at one free slot),
    // all due before the other subscription's: the old dispatcher found nothing to start and re-armed a 0 ms timer.
    const firstHeld = new Promise<void>((resolve) => (onArrival = () => held.length > 0 && resolve()));
    for (let i = 0; i < 12; i++) expect((await h.call('sandbox', 'customer', 'POST', '/events/case.contract.assigned', { caseId: c.id })).status).toBe(202);
    await firstHeld;
    const quick = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: url + '/quick', eventTypes: ['case.contract.unassigned'] });
    expect(quick.status).toBe(201);
    const quickArrived = new Promise<void>((resolve) => (onArrival = () => arrived.includes('/quick') && resolve()));
    expect((await h.call('sandbox', 'customer', 'POST', '/events/case.contract.unassigned', { caseId: c.id })).status).toBe(202);
    await quickArrived; // before the fix this waited for the held attempt's 60 s timeout (the test times out)
    expect(arrived.filter((p) => p === '/hold')).toHaveLength(1); // order kept: the held subscription still waits
  });
});

describe('the due-queue', () => {
  it('answers subscriptions earliest first, a new time replacing the old one, nothing before it is due', () => {
    const queue = new DueQueue();
    for (let i = 0; i < 100; i++) queue.set(`WH${i}`, (i * 37) % 100);
    queue.set('WH5', 1_000); // was 85
    queue.set('WH7', -1); // was 59
    queue.delete('WH3');
    expect(queue.size).toBe(99);
    const order: string[] = [];
    const times: number[] = [];
    for (let key = queue.popDue(99); key !== undefined; key = queue.popDue(99)) {
      order.push(key);
      times.push(Number(key.slice(2)) === 7 ? -1 : (Number(key.slice(2)) * 37) % 100);
    }
    expect(order[0]).toBe('WH7');
    expect(order).toHaveLength(98); // all but WH5 (due at 1000) and WH3 (deleted), each once
    expect(new Set(order).size).toBe(98);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(queue.peek()).toBe(1_000);
    expect(queue.popDue(999)).toBeUndefined();
    expect(queue.popDue(1_000)).toBe('WH5');
    expect(queue.peek()).toBeUndefined();
  });
});

describe('loopback-only delivery (D-64)', () => {
  it('tells loopback targets from others by literal address or the reserved name only', () => {
    for (const target of ['http://127.0.0.1:9/h', 'http://127.8.9.10/x', 'http://[::1]:8080/', 'http://localhost:3000/', 'https://a.localhost/', 'http://[::ffff:127.0.0.1]/']) {
      expect(isLoopbackUrl(target), target).toBe(true);
    }
    for (const target of ['https://itsm.customer.example/care', 'http://10.0.0.1/', 'http://127.0.0.1.nip.io/', 'http://[::2]/', 'http://0.0.0.0/', 'not a url']) {
      expect(isLoopbackUrl(target), target).toBe(false);
    }
  });

  it('refuses a delivery to a non-loopback target without connecting, and says why', async () => {
    const h = await startHarness({ seedCases: 20 });
    try {
      const hook = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'https://itsm.customer.example/care/webhooks' });
      expect(hook.status).toBe(201); // the contract accepts any https URL; the test process refuses to send there
      const c = await customerCase(h);
      const event = (await h.call('sandbox', 'customer', 'POST', '/events/case.contract.assigned', { caseId: c.id })).json.data.id;
      const deliveries = () => h.sandbox.svc.store.deliveries(event);
      await eventually(() => deliveries().length === 1 && deliveries()[0].state !== 'pending');
      expect(deliveries()[0]).toMatchObject({ state: 'refused', attempt: 1 });
      expect(deliveries()[0].lastStatus).toMatch(/not a loopback address/);
    } finally {
      await h.close();
    }
  });
});
