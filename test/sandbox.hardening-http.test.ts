// Issue 13, first half, over HTTP against a real sandbox: regex and wildcard filters in bounded time (D-68), HEAD and
// malformed path encoding (D-69), Node's own errors in the envelope (D-70), coercion (D-71, D-72), error details (D-73).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

async function firstContract(who: 'customer' | 'partner' = 'customer'): Promise<string> {
  return (await h.call('sandbox', who, 'GET', '/contracts?page[size]=1')).json.data[0].id;
}

describe('match and like answer in bounded time while other requests are served (D-68)', () => {
  // A generous bound: the issue measured 5.6 s (match) and 4.1 s (like) for one request, during which every other
  // request waited; the shared test machine is loaded, so the bound is not tight. The sandbox runs in this process, so
  // a stalled event loop would delay both answers below.
  const BOUND_MS = 2000;

  it.each([
    ['match', '(a+)+$', `${'a'.repeat(29)}!`],
    ['like', '*a*a*a*a*a*a*b', 'a'.repeat(60)],
  ])('%s %s', async (operator, pattern, shortDescription) => {
    const created = await h.call('sandbox', 'customer', 'POST', '/cases', { contract: await firstContract(), shortDescription });
    expect(created.status, created.text).toBe(201);
    const started = performance.now();
    const elapsed = async <T>(work: Promise<T>) => {
      const answer = await work;
      return { answer, ms: performance.now() - started };
    };
    const [filtered, other] = await Promise.all([
      elapsed(h.call('sandbox', 'customer', 'GET', `/cases?filter[shortDescription][${operator}]=${encodeURIComponent(pattern)}`)),
      elapsed(h.call('production', 'partner', 'GET', '/contracts')),
    ]);
    expect(filtered.answer.status, filtered.answer.text).toBe(200);
    expect(filtered.answer.json.data.map((c: { id: string }) => c.id)).not.toContain(created.json.data.id);
    expect(other.answer.status).toBe(200);
    expect(filtered.ms).toBeLessThan(BOUND_MS);
    expect(other.ms).toBeLessThan(BOUND_MS);
  });

  it('refuses RE2-invalid and over-long patterns with 400 in the envelope', async () => {
    for (const query of ['filter[shortDescription][match]=(a)%5C1', `filter[shortDescription][like]=${'*'.repeat(257)}`]) {
      const answer = await h.call('sandbox', 'customer', 'GET', `/cases?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.headers.get('x-careapi-env')).toBe('Sandbox');
      expect(answer.json.errors[0].code).toBe('invalid_filter_value');
    }
  });
});
