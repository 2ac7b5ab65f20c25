// An attack on both mocks as `npm start` runs them (issue 35): a generated corpus of requests to every operation
// (the sandbox fuzz test's kinds of values: odd strings, junk JSON, wrong types, bad tokens, unknown filters) plus
// malformed HTTP over raw sockets (bad escapes, NUL, invalid UTF-8, over-long paths, queries and headers, odd methods,
// bodies that are not what they claim, huge bodies, a header flood). No answer may be a 5xx, every answer carries
// X-CareAPI-Env and every error is in the envelope; afterwards both mocks still answer GET /cases with 200 and no Prism
// process ended. Then one Prism is killed by its pid: the front answers 503 with Retry-After, and 200 once its
// supervisor has restarted it, without a restart of npm start.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleOf, pathExamples } from '../src/mock/examples.ts';
import { bundlePath, loadSpec, type Environment, type OperationSpec } from '../src/spec/index.ts';
import { npmStart, urlAfter, type StartProcess } from './helpers/npm-start.ts';
import { rawCorpus, sendRaw } from './helpers/raw-corpus.ts';

const GENERATED_PER_MOCK = 400;
const ENV_VALUES: Record<Environment, string> = { production: 'Production', sandbox: 'Sandbox' };
const specs: Record<Environment, ReturnType<typeof loadSpec>> = { production: loadSpec(bundlePath('production')), sandbox: loadSpec(bundlePath('sandbox')) };

let start: StartProcess;
const mocks = {} as Record<Environment, { url: string; port: number; pid: number }>;

beforeAll(async () => {
  start = npmStart(['--memory', '--port', '0', '--seed-cases', '5', '--mock-port', '0', '--loopback-only']);
  await start.waitFor(/Ctrl-C stops all/);
  for (const environment of ['production', 'sandbox'] as const) {
    const line = start.output.match(new RegExp(String.raw`mock \(Prism\) ${environment}\s+(http://127\.0\.0\.1:(\d+))\s.*Prism pid (\d+)`));
    if (!line) throw new Error(`no mock line for ${environment} in:\n${start.output}`);
    mocks[environment] = { url: line[1], port: Number(line[2]), pid: Number(line[3]) };
  }
}, 180_000);

afterAll(async () => {
  console.log(start.output.split('\n').filter((l) => l.startsWith('[mock')).slice(0, 40).join('\n'));
  await start?.stop();
});

interface Outcome {
  what: string;
  status: number;
  env: string | null;
  /** The body parsed as JSON, when it is JSON. */
  json: any;
  head: boolean;
}

// ---- the generated corpus (fast-check, fixed seed) ----

const odd = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', ' ', '💥', 'Zürich', 'e\u0301', '\u0000', '\u202e', 'null', 'true', '1e309', '-0', '0x10', '2.5', "'; DROP TABLE cases; --", '[', '%', '%zz', '*', '\\,', '\ud800'),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);

/** encodeURIComponent, or a raw escape mistake when the text has half a surrogate pair (it cannot be encoded). */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

function queryArb(spec: ReturnType<typeof loadSpec>, op: OperationSpec) {
  const list = op.list;
  if (!list) return fc.constant('');
  const fields = [...Object.keys(list.filterFields), 'colour', ''];
  const operators = [...Object.keys(spec.operators), 'regex', ''];
  const value = fc.oneof(odd, fc.integer().map(String), fc.constantFrom('2026-01-01', '2026-13-45', '1,2', 'CT0000101', 'a\\,b,c', '^P', '(', 'true'));
  const pair = fc.oneof(
    fc.tuple(fc.constantFrom(...fields), fc.constantFrom(...operators), value).map(([f, o, v]) => `${encode(`filter[${f}][${o}]`)}=${encode(v)}`),
    fc.tuple(fc.constantFrom(...fields), value).map(([f, v]) => `filter[${encode(f)}]=${encode(v)}`),
    fc.tuple(fc.constantFrom('page[number]', 'page[size]', 'page[other]', 'page'), fc.oneof(fc.integer({ min: -3, max: 400 }).map(String), odd)).map(([k, v]) => `${k}=${encode(v)}`),
    fc.tuple(fc.constant('sort'), fc.oneof(fc.subarray(list.sortFields.flatMap((f) => [f, `-${f}`])).map((a) => a.join(',')), odd)).map(([k, v]) => `${k}=${encode(v)}`),
    fc.tuple(odd, odd).map(([k, v]) => `${encode(k)}=${encode(v)}`),
    fc.constantFrom('%zz=1', 'a=%C3%28', '%', 'filter[status]=%ff'),
  );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.join('&'));
}

function bodyArb(spec: ReturnType<typeof loadSpec>, op: OperationSpec) {
  const schema = op.requestBody?.schema;
  if (!schema) return fc.constant(undefined);
  const example = exampleOf(spec, schema) as Record<string, unknown> | undefined;
  const names = Object.keys(example ?? {});
  const junk = fc.oneof(fc.jsonValue({ maxDepth: 2 }), odd, fc.integer(), fc.boolean(), fc.constant(null));
  const object = fc
    .tuple(fc.subarray(names), fc.array(fc.tuple(fc.constantFrom(...names, 'colour', '__proto__'), junk), { maxLength: 3 }))
    .map(([kept, changes]) => {
      const body: Record<string, unknown> = {};
      for (const name of kept) body[name] = example![name];
      for (const [name, value] of changes) body[name] = value;
      return JSON.stringify(body);
    });
  return fc.oneof(
    { weight: 8, arbitrary: object },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constantFrom('{"contract": ', '{,}', 'nul', '\uFEFF{}', '{"a":1}}', '', '['.repeat(200) + ']'.repeat(200)) },
    { weight: 1, arbitrary: odd },
  );
}

interface Generated {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function requestArb(environment: Environment): fc.Arbitrary<Generated> {
  const spec = specs[environment];
  return fc.constantFrom(...spec.operations).chain((op) => {
    const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
    const examples = pathExamples(spec, op);
    return fc
      .record({
        params: fc.tuple(...names.map((name) => fc.oneof({ weight: 3, arbitrary: fc.constant(examples[name]) }, { weight: 1, arbitrary: odd.filter((s) => s.length > 0) }))),
        query: queryArb(spec, op),
        body: bodyArb(spec, op),
        method: fc.constantFrom(op.method.toUpperCase(), op.method.toUpperCase(), op.method.toUpperCase(), 'HEAD', 'PUT', 'OPTIONS', 'PATCH'),
        token: fc.constantFrom('Bearer mock-token', 'Bearer mock-token', 'Bearer mock-token', '', 'Basic x', 'Bearer'),
        type: fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'multipart/form-data', 'none'),
        extra: fc.constantFrom<Record<string, string>>({}, {}, { accept: ';' }, { accept: 'application/xml' }, { prefer: 'code=abc' }, { prefer: 'dynamic=true' }, { 'content-type': ';;;==' }),
      })
      .map(({ params, query, body, method, token, type, extra }) => {
        let path = op.path;
        names.forEach((name, i) => (path = path.replace(`{${name}}`, encode(params[i] as string))));
        const headers: Record<string, string> = { ...extra };
        if (token) headers.authorization = token;
        const sendsBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
        if (sendsBody && type !== 'none') headers['content-type'] ??= type;
        return { method, path: `${path}${query ? `?${query}` : ''}`, headers, body: sendsBody ? body : undefined };
      });
  });
}

// ---- malformed HTTP over raw sockets: test/helpers/raw-corpus.ts ----

function parseRaw(what: string, answer: Buffer, head: boolean): Outcome {
  const text = answer.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const headLines = (split >= 0 ? text.slice(0, split) : text).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(headLines[0] ?? '')?.[1] ?? 0);
  const env = headLines.find((line) => /^x-careapi-env:/i.test(line))?.split(':')[1].trim() ?? null;
  let json: any;
  try {
    json = JSON.parse(answer.subarray(Buffer.byteLength(text.slice(0, split + 4), 'latin1')).toString('utf8'));
  } catch {
    json = undefined;
  }
  return { what, status, env, json, head };
}

async function inBatches<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  }));
  return out;
}

function judge(environment: Environment, outcomes: Outcome[]): string[] {
  const problems: string[] = [];
  for (const o of outcomes) {
    if (o.status === 0) problems.push(`${o.what}: no answer`);
    else if (o.status >= 500) problems.push(`${o.what}: ${o.status}`);
    if (o.env !== ENV_VALUES[environment]) problems.push(`${o.what}: X-CareAPI-Env ${o.env}`);
    if (o.status >= 400 && !o.head && !(Array.isArray(o.json?.errors) && o.json.errors.length > 0 && typeof o.json.meta === 'object')) {
      problems.push(`${o.what}: ${o.status} not in the envelope`);
    }
  }
  return problems;
}

describe('the mocks under attack, as npm start runs them', () => {
  const counts: Record<string, number> = {};
  let corpusSize = 0;

  it.each(['production', 'sandbox'] as const)('%s: every answer below 500, with X-CareAPI-Env, errors in the envelope', async (environment) => {
    const { url, port } = mocks[environment];
    const generated = fc.sample(requestArb(environment), { numRuns: GENERATED_PER_MOCK, seed: 20261126 });
    const fromFetch = await inBatches(generated, 6, async (request): Promise<Outcome> => {
      const what = `${request.method} ${request.path} ${JSON.stringify(request.headers)} ${request.body?.slice(0, 80) ?? ''}`;
      const response = await fetch(url + request.path, { method: request.method, headers: request.headers, body: request.body }).catch((error: unknown) => error as Error);
      if (response instanceof Error) return { what: `${what}: ${response.message}`, status: 0, env: null, json: undefined, head: false };
      const text = await response.text();
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { what: response.status >= 500 ? `${what} ${text.slice(0, 300)}` : what, status: response.status, env: response.headers.get('x-careapi-env'), json, head: request.method === 'HEAD' };
    });
    const raw = rawCorpus();
    const fromSockets = await inBatches(raw, 4, async (item) => parseRaw(item.what, await sendRaw(port, item.bytes), !!item.head));
    const outcomes = [...fromFetch, ...fromSockets];
    corpusSize += outcomes.length;
    for (const o of outcomes) counts[o.status] = (counts[o.status] ?? 0) + 1;
    expect(judge(environment, outcomes)).toEqual([]);
    // D-114: the edge answers the mocks share with the sandbox, each with its own status
    for (const [what, status] of [['an Expect other than 100-continue (417)', 417], ['two Host lines (400)', 400]] as const) {
      expect(fromSockets.find((o) => o.what === what)?.status, what).toBe(status);
    }
    // the corpus reaches success and the refusals the front answers itself
    for (const status of [200, 400, 401, 404, 405, 413, 415, 431]) expect(outcomes.some((o) => o.status === status), `status ${status}`).toBe(true);
  }, 240_000);

  it('leaves both mocks answering GET /cases 200, with the Prism processes they started with', async () => {
    console.log(`attack corpus: ${corpusSize} requests; answers by status:`, counts);
    for (const environment of ['production', 'sandbox'] as const) {
      const response = await fetch(`${mocks[environment].url}/cases`, { headers: { authorization: 'Bearer mock-token' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-careapi-env')).toBe(ENV_VALUES[environment]);
      expect(() => process.kill(mocks[environment].pid, 0)).not.toThrow(); // its Prism never ended
    }
    expect(start.output).not.toMatch(/Prism \(pid \d+\) (exited|was ended)/);
  });

  it('answers 503 with Retry-After while a killed Prism restarts, then 200 again, npm start still running', async () => {
    const { url, pid } = mocks.sandbox;
    process.kill(pid, 'SIGKILL');
    const during = await fetch(`${url}/cases`, { headers: { authorization: 'Bearer mock-token' } });
    const body = await during.json();
    expect(during.status).toBe(503);
    expect(during.headers.get('retry-after')).toBe('1');
    expect(during.headers.get('x-careapi-env')).toBe('Sandbox');
    expect(body.errors[0]).toMatchObject({ status: '503', code: 'mock_unavailable' });
    const restarted = await start.waitFor(/\[mock sandbox\] Prism restarted \(pid (\d+)\)/);
    expect(Number(restarted[1])).not.toBe(pid);
    expect(start.output).toContain(`[mock sandbox] Prism (pid ${pid}) was ended by SIGKILL`);
    const after = await fetch(`${url}/cases`, { headers: { authorization: 'Bearer mock-token' } });
    expect(after.status).toBe(200);
    expect(start.child.exitCode).toBeNull();
    // the other environment never noticed
    const production = await fetch(`${mocks.production.url}/cases`, { headers: { authorization: 'Bearer mock-token' } });
    expect(production.status).toBe(200);
  }, 120_000);
});
