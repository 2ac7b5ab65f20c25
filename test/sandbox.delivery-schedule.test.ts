// The sandbox retries deliveries on the schedule the description declares (`x-care-deliveries`, D-17), not on one of
// its own: started on a bundle whose schedule is one retry after 1 s without jitter, a receiver that always fails
// gets exactly two attempts, the second no sooner than 1 s after the first, and the delivery ends failed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePath, loadSpec, readDeliveries } from '../src/spec/index.ts';
import { send, startHarness, type Harness } from './helpers/sandbox.ts';

const dir = mkdtempSync(join(tmpdir(), 'care-schedule-'));
const arrivals: number[] = [];
let secondArrived: () => void;
const twoArrivals = new Promise<void>((resolve) => (secondArrived = resolve));
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    arrivals.push(performance.now());
    res.writeHead(500).end();
    if (arrivals.length === 2) secondArrived();
  });
});
let h: Harness;
let origin = '';

/** The complete bundle with another schedule: one retry, after 1 s, without jitter. */
function otherSchedule(): string {
  const document = parse(readFileSync(bundlePath(), 'utf8'), { maxAliasCount: -1 });
  document['x-care-deliveries'] = { ...document['x-care-deliveries'], retryDelaysSeconds: [1], jitter: 0 };
  const file = join(dir, 'care-api.other-schedule.yaml');
  writeFileSync(file, JSON.stringify(document)); // JSON is YAML
  return file;
}

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  h = await startHarness({ bundle: otherSchedule(), seedCases: 10 });
});
afterAll(async () => {
  await h?.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('the delivery schedule of the description (D-17)', () => {
  it('is read from x-care-deliveries, and a declaration without it or with a jitter of 1 is refused', () => {
    const declared = loadSpec().document['x-care-deliveries'];
    expect(loadSpec().deliveries.retryDelaysMs).toEqual(declared.retryDelaysSeconds.map((s: number) => s * 1000));
    expect(() => readDeliveries({})).toThrow(/no x-care-deliveries/);
    expect(() => readDeliveries({ 'x-care-deliveries': { ...declared, jitter: 1 } })).toThrow(/jitter/);
    expect(() => readDeliveries({ 'x-care-deliveries': { ...declared, retryDelaysSeconds: [5, 0] } })).toThrow(/retryDelaysSeconds\.1/);
  });

  it('is the one the sandbox retries on: one retry after 1 s, then the delivery has failed', async () => {
    const hook = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: `${origin}/fails`, eventTypes: ['case.contract.*'] });
    expect(hook.status, hook.text).toBe(201);
    const cases = await h.call('sandbox', 'customer', 'GET', `/cases?page[size]=1&filter[contract]=${h.sandbox.demo.sandbox.customer.contracts[0]}`);
    const trigger = await h.call('sandbox', 'customer', 'POST', '/events/case.contract.assigned', { caseId: cases.json.data[0].id });
    expect(trigger.status, trigger.text).toBe(202);
    await twoArrivals;
    // bounded wait for the bookkeeping of the last attempt
    let state: any;
    for (let i = 0; i < 200 && state?.state !== 'failed'; i++) {
      state = (await send(`${h.origin}/_agent/sandbox/events/${trigger.json.data.id}/deliveries`)).json.data[0];
    }
    expect(state).toMatchObject({ state: 'failed', attempt: 2, lastStatus: 'HTTP 500' });
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(1000 - 50);
  });
});
