// Issue 48: `paginate` over list servers drawn at random (test/support/misbehaving-server.ts) always ends, with the
// items or a CarePaginationError, never another error and never a loop. The servers go round in cycles (after a
// prefix of pages, a cycle of pages repeats), change `totalCount` from page to page (up to 2^53 - 1), shrink and grow
// `size`, and lie about the page number. Draws come from the fixed seed of test/setup/fast-check-seed.ts (D-83).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarePaginationError, createCareClient } from '../src/client/index.ts';
import { behave, startMisbehavingServer, type Behaviour, type MisbehavingServer } from './support/misbehaving-server.ts';

const API = '/care/v0/sandbox';

type NumberLie = 'honest' | 'next' | 'string' | 'missing';

interface ServerModel {
  /** The page size the walk asks for. */
  size: number;
  /** Distinct answers the server can give; each a list of item numbers (items may recur across answers). */
  answers: number[][];
  /** Which answer page n gets: `prefix[n - 1]`, then `cycle` over and over. */
  prefix: number[];
  cycle: number[];
  /** `totalCount` of page n: `totals[(n - 1) % length]`. */
  totals: number[];
  /** `size` of page n: the size asked plus `sizeShifts[(n - 1) % length]` (at least 0). */
  sizeShifts: number[];
  /** `number` of page n. */
  numberLies: NumberLie[];
}

const at = <T,>(list: T[], n: number) => list[(n - 1) % list.length];

function answerIndex(model: ServerModel, n: number): number {
  const index = n <= model.prefix.length ? model.prefix[n - 1] : model.cycle[(n - model.prefix.length - 1) % model.cycle.length];
  return index % model.answers.length;
}

const id = (i: number) => `CS${String(10_000 + i).padStart(7, '0')}`;

/** The meta.page a lying server gives for page n. */
function metaPage(model: ServerModel, n: number): Record<string, unknown> {
  const lie = at(model.numberLies, n);
  const page: Record<string, unknown> = {
    number: lie === 'next' ? n + 1 : lie === 'string' ? String(n) : n,
    size: Math.max(0, model.size + at(model.sizeShifts, n)),
    totalCount: at(model.totals, n),
  };
  if (lie === 'missing') delete page.number;
  return page;
}

const item = fc.integer({ min: 0, max: 25 });

/** Mostly full pages (a short one ends the walk), now and then a short, empty or overfull one. */
const modelArbitrary: fc.Arbitrary<ServerModel> = fc.integer({ min: 1, max: 4 }).chain((size) =>
  fc.record({
    size: fc.constant(size),
    answers: fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.array(item, { minLength: size, maxLength: size }) },
        { weight: 1, arbitrary: fc.array(item, { maxLength: size + 1 }) },
      ),
      { minLength: 1, maxLength: 6 },
    ),
    prefix: fc.array(fc.nat({ max: 10 }), { maxLength: 4 }),
    cycle: fc.array(fc.nat({ max: 10 }), { minLength: 1, maxLength: 4 }),
    totals: fc.array(
      fc.oneof({ weight: 1, arbitrary: fc.nat({ max: 30 }) }, { weight: 2, arbitrary: fc.constantFrom(600, 1_000_000, Number.MAX_SAFE_INTEGER) }),
      { minLength: 1, maxLength: 4 },
    ),
    sizeShifts: fc.array(fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -2, max: 2 }) }), { minLength: 1, maxLength: 4 }),
    numberLies: fc.array(
      fc.oneof({ weight: 12, arbitrary: fc.constant<NumberLie>('honest') }, { weight: 1, arbitrary: fc.constantFrom<NumberLie>('next', 'string', 'missing') }),
      { minLength: 1, maxLength: 4 },
    ),
  }),
);

let server: MisbehavingServer;
let current: ServerModel | undefined;
let honestItems: number[] | undefined;

/** One server for every draw: it answers by the model of the current draw. */
const byModel: Behaviour = (req, res, body) => {
  const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page[number]') ?? 1);
  if (honestItems) return behave.list(honestItems.map((i) => ({ id: id(i) })))(req, res, body);
  const model = current!;
  const data = model.answers[answerIndex(model, n)].map((i) => ({ id: id(i) }));
  behave.json(200, { meta: { page: metaPage(model, n) }, data })(req, res, body);
};

beforeAll(async () => {
  server = await startMisbehavingServer({ [`${API}/cases`]: byModel });
});
afterAll(() => server.close());

const client = () => createCareClient({ environment: 'sandbox', baseUrl: `${server.url}${API}`, token: 'fixed', timeoutMs: 10_000 });

/** Walks with a hard stop far beyond any honest end, so a regression fails the property instead of hanging it. */
async function walk(size: number, hardStop: number): Promise<{ ids: string[]; error?: unknown; requests: number }> {
  const before = server.requests.length;
  const ids: string[] = [];
  try {
    for await (const item of client().paginate('/cases', { params: { query: { page: { size } } } })) {
      ids.push(item.id);
      if (ids.length > hardStop) throw new Error(`paginate did not end after ${hardStop} items`);
    }
  } catch (error) {
    return { ids, error, requests: server.requests.length - before };
  }
  return { ids, requests: server.requests.length - before };
}

describe('paginate over servers drawn at random', () => {
  it('always ends, with the items or a CarePaginationError, after at most one request per distinct page', async () => {
    let ended = 0;
    let stopped = 0;
    await fc.assert(
      fc.asyncProperty(modelArbitrary, async (model) => {
        current = model;
        honestItems = undefined;
        const distinctPages = new Set(model.answers.filter((a) => a.length > 0).map((a) => JSON.stringify(a))).size;
        const { ids, error, requests } = await walk(model.size, (distinctPages + 2) * 8);
        if (error !== undefined) {
          expect(error).toBeInstanceOf(CarePaginationError);
          stopped++;
        } else ended++;
        // Each request but the last brought a page never seen before, so the walk is bounded by the server's pages.
        expect(requests).toBeLessThanOrEqual(distinctPages + 1);
        expect(ids.length).toBeLessThanOrEqual(distinctPages * 5);
      }),
      { numRuns: 200 },
    );
    // The draws exercise both ends.
    expect(ended).toBeGreaterThan(10);
    expect(stopped).toBeGreaterThan(10);
  }, 120_000);

  it('gives every item, in order, of an honest server', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 7 }), async (count, size) => {
        honestItems = Array.from({ length: count }, (_, i) => i);
        const { ids, error } = await walk(size, count + 1);
        expect(error).toBeUndefined();
        expect(ids).toEqual(honestItems.map(id));
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
