// An attack on both mocks as `npm start` runs them (issue 35): a generated corpus of requests to every operation
// (the sandbox fuzz test's kinds of values: odd strings, junk JSON, wrong types, bad tokens, unknown filters) plus
// malformed HTTP over raw sockets (bad escapes, NUL, invalid UTF-8, over-long paths, queries and headers, odd methods,
// bodies that are not what they claim, huge bodies, a header flood). No answer may be a 5xx, every answer carries
// X-CareAPI-Env and every error is in the envelope; afterwards both mocks still answer GET /cases with 200 and no Prism
// process ended. Then one Prism is killed by its pid: the front answers 503 with Retry-After, and 200 once its
// supervisor has restarted it, without a restart of npm start.
import fc from 'fast-check';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleOf, pathExamples } from '../src/mock/examples.ts';
import { bundlePath, loadSpec, type Environment, type OperationSpec } from '../src/spec/index.ts';
import { npmStart, urlAfter, type StartProcess } from './helpers/npm-start.ts';

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

// ---- malformed HTTP over raw sockets ----

function rawCorpus(): Array<{ what: string; bytes: Buffer; head?: boolean }> {
  const crlf = (lines: string[]) => lines.join('\r\n');
  const request = (line: string, headers: string[] = [], body: Buffer | string = '') =>
    Buffer.concat([Buffer.from(crlf([line, 'Host: mock', 'Authorization: Bearer mock-token', 'Connection: close', ...headers, '', '']), 'latin1'), Buffer.from(body)]);
  const json = (body: Buffer | string) => [`Content-Type: application/json`, `Content-Length: ${Buffer.byteLength(body)}`];
  const out: Array<{ what: string; bytes: Buffer; head?: boolean }> = [
    { what: 'path %zz', bytes: request('GET /cases/%zz HTTP/1.1') },
    { what: 'path cut escape', bytes: request('GET /cases/%A HTTP/1.1') },
    { what: 'path escapes not UTF-8', bytes: request('GET /cases/%C3%28 HTTP/1.1') },
    { what: 'path lone %', bytes: request('GET /cases/% HTTP/1.1') },
    { what: 'path %00', bytes: request('GET /cases/a%00b HTTP/1.1') },
    { what: 'query %zz', bytes: request('GET /cases?filter%zz=1 HTTP/1.1') },
    { what: 'query not UTF-8', bytes: request('GET /cases?filter[status]=%C3%28 HTTP/1.1') },
    { what: 'raw NUL in path', bytes: request('GET /cases/a\u0000b HTTP/1.1') },
    { what: 'raw invalid UTF-8 in path', bytes: Buffer.concat([Buffer.from('GET /cases/'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' HTTP/1.1\r\nHost: mock\r\nAuthorization: Bearer mock-token\r\nConnection: close\r\n\r\n')]) },
    { what: 'raw invalid UTF-8 in query', bytes: Buffer.concat([Buffer.from('GET /cases?filter[shortDescription]='), Buffer.from([0xc3, 0x28, 0xa0]), Buffer.from(' HTTP/1.1\r\nHost: mock\r\nAuthorization: Bearer mock-token\r\nConnection: close\r\n\r\n')]) },
    { what: 'over-long path', bytes: request(`GET /cases/${'x'.repeat(20_000)} HTTP/1.1`) },
    { what: 'long path under the limit', bytes: request(`GET /cases/${'x'.repeat(12_000)} HTTP/1.1`) },
    { what: 'over-long query', bytes: request(`GET /cases?filter[shortDescription][contains]=${'y'.repeat(20_000)} HTTP/1.1`) },
    { what: 'over-long header', bytes: request('GET /cases HTTP/1.1', [`X-Long: ${'z'.repeat(20_000)}`]) },
    { what: 'header flood', bytes: request('GET /cases HTTP/1.1', Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`)) },
    { what: 'many small headers under the limit', bytes: request('GET /cases HTTP/1.1', Array.from({ length: 500 }, (_, i) => `X-${i}: v`)) },
    { what: 'NUL in a header', bytes: request('GET /cases HTTP/1.1', ['X-Bad: a\u0000b']) },
    { what: 'malformed Accept', bytes: request('GET /cases HTTP/1.1', ['Accept: ;;;q=x']) },
    { what: 'Accept ;', bytes: request('GET /cases HTTP/1.1', ['Accept: ;']) },
    { what: 'garbage Prefer', bytes: request('GET /cases HTTP/1.1', ['Prefer: code=abc, example=???']) },
    { what: 'garbage request line', bytes: Buffer.from('HELLO\r\n\r\n') },
    { what: 'HTTP/0.9 style', bytes: Buffer.from('GET /cases\r\n\r\n') },
    { what: 'unknown method', bytes: request('FOO /cases HTTP/1.1') },
    { what: 'CONNECT', bytes: request('CONNECT 127.0.0.1:9 HTTP/1.1') },
    { what: 'an Expect other than 100-continue (417)', bytes: request('POST /cases HTTP/1.1', ['Expect: foo', ...json('{}')], '{}') },
    { what: 'two Host lines (400)', bytes: request('GET /cases HTTP/1.1', ['Host: other.example']) },
    { what: 'HEAD', bytes: request('HEAD /cases HTTP/1.1'), head: true },
    { what: 'HEAD malformed path', bytes: request('HEAD /cases/%zz HTTP/1.1'), head: true },
    { what: 'TRACE', bytes: request('TRACE /cases HTTP/1.1') },
    { what: 'PROPFIND', bytes: request('PROPFIND /cases HTTP/1.1') },
    { what: 'PURGE', bytes: request('PURGE /cases/CS0010042 HTTP/1.1') },
    { what: 'OPTIONS', bytes: request('OPTIONS /cases HTTP/1.1') },
    { what: 'DELETE on a list', bytes: request('DELETE /cases HTTP/1.1') },
    { what: 'absolute-form target', bytes: request('GET http://mock/cases HTTP/1.1') },
    { what: 'asterisk target', bytes: request('GET * HTTP/1.1') },
    { what: 'non-JSON body', bytes: request('POST /cases HTTP/1.1', json('this is not json'), 'this is not json') },
    { what: 'JSON body not UTF-8', bytes: request('POST /cases HTTP/1.1', json(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])), Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])) },
    { what: 'deep JSON', bytes: request('POST /cases HTTP/1.1', json('['.repeat(5000) + ']'.repeat(5000)), '['.repeat(5000) + ']'.repeat(5000)) },
    { what: 'garbage content type', bytes: request('POST /cases HTTP/1.1', ['Content-Type: ;;;==', 'Content-Length: 2'], '{}') },
    { what: 'JSON with a bogus charset', bytes: request('POST /cases HTTP/1.1', ['Content-Type: application/json; charset=klingon', 'Content-Length: 2'], '{}') },
    { what: 'text body to a JSON operation', bytes: request('PATCH /cases/CS0010042 HTTP/1.1', ['Content-Type: text/plain', 'Content-Length: 5'], 'hello') },
    { what: 'multipart without boundary', bytes: request('POST /cases/CS0010042/attachments HTTP/1.1', ['Content-Type: multipart/form-data', 'Content-Length: 5'], 'hello') },
    { what: 'multipart garbage', bytes: request('POST /cases/CS0010042/attachments HTTP/1.1', ['Content-Type: multipart/form-data; boundary=zz', 'Content-Length: 5'], 'hello') },
    { what: 'huge JSON body (3 MiB)', bytes: request('POST /cases HTTP/1.1', json(`{"description":"${'x'.repeat(3 * 1024 * 1024)}"}`), `{"description":"${'x'.repeat(3 * 1024 * 1024)}"}`) },
    { what: 'huge upload (11 MiB)', bytes: request('POST /cases/CS0010042/attachments HTTP/1.1', ['Content-Type: multipart/form-data; boundary=zz', `Content-Length: ${11 * 1024 * 1024}`], Buffer.alloc(11 * 1024 * 1024, 97)) },
    { what: 'body on a GET', bytes: request('GET /cases HTTP/1.1', json('{"a":1}'), '{"a":1}') },
    { what: 'malformed chunked body', bytes: request('POST /cases HTTP/1.1', ['Content-Type: application/json', 'Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n') },
    { what: 'both Content-Length and chunked', bytes: request('POST /cases HTTP/1.1', ['Content-Type: application/json', 'Content-Length: 2', 'Transfer-Encoding: chunked'], '2\r\n{}\r\n0\r\n\r\n') },
    { what: 'two Content-Lengths', bytes: request('POST /cases HTTP/1.1', ['Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 3'], '{} ') },
  ];
  return out;
}

/** One raw request on its own connection; the answer read to the close (every request says Connection: close). */
function sendRaw(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.on('error', () => {}); // a reset after the answer (the server stops reading a huge body): the answer counts
    socket.write(bytes); // not end(): a half-closed request is dropped by Node's server before it is answered
  });
}

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
