// Area "webhooks", D-17: a failed delivery is retried. Of the schedule (`x-care-deliveries`, about 5 s up to 10 h) a
// run can wait for the first step only; a Retry-After shorter than it is what the receiver answers, so the check
// takes about a second. Registered last of its area: it waits, and the mutation test runs an area up to the check
// that catches its fault.
import { expect, type Check } from '../check.ts';
import type { Delivery } from '../receiver.ts';
import { eventIdOf, fire, subscribe, verifySignature } from './webhooks.ts';

/** The Retry-After the receiver answers (shorter than any first step), and how much earlier than Retry-After a retry
 *  may arrive by the two clocks' granularity. */
const RETRY_AFTER_S = 1;
const CLOCK_SLACK_MS = 50;

export const retryChecks: Check[] = [
  {
    id: 'webhooks.retry',
    area: 'webhooks',
    title: 'A delivery answered 503 with Retry-After: 1 is retried with the same webhook-id and a valid signature, not sooner than that, within the first step of the schedule',
    statements: ['D-17.signing', 'D-17.retries'],
    needs: ['writes', 'sandbox', 'webhooks'],
    async run(ctx) {
      const sub = await subscribe(ctx, 'answers 503 once', { eventTypes: ['case.updated'] });
      ctx.receiver.answer(sub.path, 503, { 'retry-after': String(RETRY_AFTER_S) });
      const eventId = await fire(ctx, 'case.updated');
      const ofEvent = (d: Delivery) => d.path === sub.path && eventIdOf(d) === eventId;
      const first = await ctx.receiver.waitFor(ofEvent, ctx.options.deliveryTimeoutMs, `the first delivery of ${eventId}`).catch((err) => ctx.fail((err as Error).message));
      ctx.receiver.answer(sub.path, 204);
      // The first step of the schedule with its jitter (D-17): a retry later than that, with slack, is none.
      const { retryDelaysMs, jitter } = ctx.spec.deliveries;
      const firstStepMs = retryDelaysMs[0] * (1 + jitter);
      const retried = await ctx.receiver.waitFor((d) => ofEvent(d) && d.seq > first.seq, firstStepMs + ctx.options.deliveryTimeoutMs, `a retry of ${eventId} after it was answered 503`).catch((err) => ctx.fail((err as Error).message));
      const gap = retried.at - first.at;
      expect(gap >= RETRY_AFTER_S * 1000 - CLOCK_SLACK_MS, `the retry came ${gap} ms after the 503 that said Retry-After: ${RETRY_AFTER_S}`);
      expect(retried.headers['webhook-id'] === first.headers['webhook-id'], `the retry's webhook-id ${retried.headers['webhook-id']} is not the first attempt's ${first.headers['webhook-id']}`);
      verifySignature(ctx, sub, retried, 'the retry');
      return `retried after ${gap} ms`;
    },
  },
];
