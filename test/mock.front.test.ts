// The front before Prism: whatever Prism answers, the mock answers like the service (envelope, one error object per
// problem, X-CareAPI-Env), and checks the filter grammar Prism cannot. Raw HTTP, no client, one real Prism.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleOf } from '../src/mock/examples.ts';
import { bindMock, createMockFront, startMock, type RunningMock } from '../src/mock/index.ts';
import { LIST_SIZE } from '../src/mock/pages.ts';
import { isPrismProblem } from '../src/mock/supervisor.ts';
import { loadSpec, bundlePath, validatorFor } from '../src/spec/index.ts';

let mock: RunningMock;
const auth = { authorization: 'Bearer mock-token' };
const spec = loadSpec(bundlePath('sandbox'));
const validateEnvelope = validatorFor(spec, 'ErrorEnvelope');

beforeAll(async () => {
  mock = await startMock({ environment: 'sandbox' });
});
afterAll(() => mock.stop());

async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(`${mock.url}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
  const text = await response.text();
  return { response, body: text ? JSON.parse(text) : undefined };
}


function expectEnvelope(result: { response: Response; body: any }, status: number, count: number) {
  expect(result.response.status).toBe(status);
  expect(result.response.headers.get('x-careapi-env')).toBe('Sandbox');
  expect(result.response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(validateEnvelope(result.body), JSON.stringify(validateEnvelope.errors)).toBe(true);
  expect(result.body.errors).toHaveLength(count);
  for (const error of result.body.errors) expect(error.status).toBe(String(status));
}

describe('mock front', () => {
  it('answers X-CareAPI-Env once, from the environment bundle', async () => {
    const { response } = await call('/cases');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-careapi-env')).toBe('Sandbox'); // a repeated header would read "Sandbox, Sandbox"
  });

  it('serves the full service path too (/care/v0/sandbox/...)', async () => {
    const { response, body } = await call('/care/v0/sandbox/cases/CS0010042');
    expect(response.status).toBe(200);
    expect(body.data.id).toBe('CS0010042');
  });

  it('checks the grammar Prism ignores: shorthand on arrays, malformed and repeated filters, comma lists', async () => {
    const result = await call('/cases?filter[watchList]=ana.silva@customer.example&filter[status][in]=1,x&filter[status][in]=2&filter[priority][between]=1&filter[incident][notNull]=yes');
    expectEnvelope(result, 400, 5);
    expect(result.response.headers.get('access-control-allow-origin')).toBe('*'); // browser apps can read it
    const codes = result.body.errors.map((e: any) => e.code);
    expect(codes).toContain('invalid_filter_operator');
    expect(result.body.errors.map((e: any) => e.detail.split(':')[0])).toEqual([
      'query.filter.watchList.eq',
      'query.filter.status.in.1', // the bad element, by index (D-73)
      'query.filter.status.in', // the repeated filter
      'query.filter.priority.between',
      'query.filter.incident.notNull',
    ]);
  });

  it('accepts what the grammar accepts, including escaped commas and the shorthand', async () => {
    const { response } = await call('/cases?filter[status]=10&filter[shortDescription][in]=a\\,b,c&filter[incident][notNull]&sort=-created,status&page[number]=2&page[size]=200');
    expect(response.status).toBe(200);
  });

  it('turns each Prism violation into its own error object', async () => {
    const result = await call('/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ priority: 'high' }) });
    expectEnvelope(result, 400, 3);
    expect(result.body.errors.map((e: any) => e.detail).sort()).toEqual([
      'body.contract: Field required',
      'body.priority: Input should be a valid integer',
      'body.shortDescription: Field required',
    ].sort());
    expect(result.body.errors.map((e: any) => e.code).sort()).toEqual(['int_type', 'missing', 'missing']);
  });

  it('wraps Prism\'s own answers: unknown route, unknown method, invalid JSON', async () => {
    const unknownRoute = await call('/tickets');
    expectEnvelope(unknownRoute, 404, 1);
    expect(unknownRoute.body.errors[0].code).toBe('not_found');
    const unknownMethod = await call('/cases', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expectEnvelope(unknownMethod, 405, 1);
    expect(unknownMethod.body.errors[0].code).toBe('method_not_allowed');
    const invalidJson = await call('/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"contract":' });
    expectEnvelope(invalidJson, 400, 1);
    expect(invalidJson.body.errors[0].code).toBe('invalid_json');
  });

  it('answers 401 without a token, with the challenge', async () => {
    const response = await fetch(`${mock.url}/cases`);
    const body = await response.json();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(response.headers.get('x-careapi-env')).toBe('Sandbox');
    expect(validateEnvelope(body)).toBe(true);
  });
});

// What Prism cannot take, answered by the front itself as the sandbox answers it (issue 35, D-42, D-69, D-70).
describe('mock front: requests Prism cannot take', () => {
  /** One raw request on its own connection, read to the close. */
  function raw(text: string): Promise<{ status: number; head: string; body: any }> {
    return new Promise((resolve) => {
      const socket = connect(Number(new URL(mock.url).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', () => {});
      socket.on('close', () => {
        const all = Buffer.concat(chunks).toString('utf8');
        const [head, body = ''] = all.split('\r\n\r\n');
        let json: any;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        resolve({ status: Number(head.split(' ')[1]), head, body: json });
      });
      socket.write(text);
    });
  }

  it('answers a malformed escape in the path 400 invalid_path, and Prism still answers afterwards', async () => {
    const result = await call('/cases/%zz');
    expectEnvelope(result, 400, 1);
    expect(result.body.errors[0]).toMatchObject({ code: 'invalid_path', detail: 'path: malformed percent-encoding in /cases/%zz' });
    expectEnvelope(await call('/care/v0/sandbox/cases/%C3%28'), 400, 1);
    expect((await call('/cases')).response.status).toBe(200); // Prism alone exits on this request (URIError)
  });

  it('answers a query whose escapes are not UTF-8 400 invalid_query, as the sandbox', async () => {
    const result = await call('/cases?filter[shortDescription]=%C3%28');
    expectEnvelope(result, 400, 1);
    expect(result.body.errors[0].code).toBe('invalid_query');
    expect((await call('/cases?filter[shortDescription][contains]=100%')).response.status).toBe(200); // a lone % is literal
  });

  it('answers HEAD as GET without a body, and names HEAD in Allow on every 405', async () => {
    const head = await fetch(`${mock.url}/cases`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-careapi-env')).toBe('Sandbox');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
    const unknownMethod = await call('/cases/CS0010042', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expectEnvelope(unknownMethod, 405, 1);
    expect(unknownMethod.response.headers.get('allow')).toBe('GET, HEAD, PATCH');
    // the trigger's path is its own: GET there is 405 Allow: POST, as at the sandbox, not a read of an event (D-95)
    for (const method of ['DELETE', 'GET']) {
      const trigger = await call('/care/v0/sandbox/events/case.updated', { method });
      expectEnvelope(trigger, 405, 1);
      expect(trigger.response.headers.get('allow')).toBe('POST');
    }
  });

  it('serves absolute-form request lines (RFC 9112 section 3.2.2), and answers a target that is no URL 404', async () => {
    const absolute = await raw('GET http://care.example/care/v0/sandbox/cases/CS0010043 HTTP/1.1\r\nHost: care.example\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n');
    expect(absolute.status).toBe(200);
    expect(absolute.body.data.id).toBe('CS0010043');
    const bracket = await raw('GET //[/cases HTTP/1.1\r\nHost: mock\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n');
    expect(bracket.status).toBe(404); // was a 500 "mock front failed: TypeError: Invalid URL"
    expect(validateEnvelope(bracket.body)).toBe(true);
    expect(bracket.body.errors[0].code).toBe('not_found');
  });

  it('survives a malformed Accept header (Prism alone exits on it): the service reads no Accept', async () => {
    for (const accept of [';', ';;;q=x', 'application/xml']) {
      const { response } = await call('/cases', { headers: { accept } });
      expect(response.status).toBe(200);
    }
    expect((await call('/cases')).response.status).toBe(200);
  });

  it('answers bodies that are not what they claim as the service: 400, 413, 415 in the envelope', async () => {
    const notJson = await call('/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'hello' });
    expectEnvelope(notJson, 400, 1);
    expect(notJson.body.errors[0].code).toBe('invalid_json');
    const notUtf8 = await call('/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]) });
    expect(notUtf8.body.errors[0].code).toBe('invalid_json');
    const deep = await call('/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '['.repeat(500) + ']'.repeat(500) });
    expectEnvelope(deep, 400, 1); // Prism alone answers 500
    expect(deep.body.errors[0].code).toBe('too_deep');
    const garbageType = await call('/cases', { method: 'POST', headers: { 'content-type': ';;;==' }, body: '{}' });
    expectEnvelope(garbageType, 415, 1); // Prism alone answers 500
    const huge = await call('/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ description: 'x'.repeat(1_100_000) }) });
    expectEnvelope(huge, 413, 1);
    expect(huge.body.errors[0].code).toBe('payload_too_large');
    const noBoundary = await call('/cases/CS0010042/attachments', { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: 'hello' });
    expectEnvelope(noBoundary, 400, 1); // as the sandbox: the media type is right, the body cannot be read
    expect(noBoundary.body.errors[0].code).toBe('value_error');
  });

  it('answers over-long URLs and headers 431, malformed requests 400, CONNECT 405: raw, in the envelope, with X-CareAPI-Env', async () => {
    const request = (line: string, headers = '') => `${line}\r\nHost: mock\r\nAuthorization: Bearer t\r\nConnection: close\r\n${headers}\r\n`;
    const longUrl = await raw(request(`GET /cases/${'x'.repeat(20_000)} HTTP/1.1`));
    const longHeader = await raw(request('GET /cases HTTP/1.1', `X-Long: ${'z'.repeat(20_000)}\r\n`));
    const malformed = await raw('HELLO\r\n\r\n');
    const connectMethod = await raw(request('CONNECT 127.0.0.1:9 HTTP/1.1'));
    for (const [answer, status, code] of [[longUrl, 431, 'header_too_large'], [longHeader, 431, 'header_too_large'], [malformed, 400, 'malformed_request'], [connectMethod, 405, 'method_not_allowed']] as const) {
      expect(answer.status).toBe(status);
      expect(answer.head).toMatch(/\r\nX-CareAPI-Env: Sandbox\r\n/);
      expect(validateEnvelope(answer.body)).toBe(true);
      expect(answer.body.errors[0].code).toBe(code);
    }
    expect(connectMethod.head).toMatch(/\r\nAllow: /);
  });

  it('answers 503 with Retry-After in the envelope while its Prism is not there', async () => {
    const front = createMockFront({ spec, prismUrl: () => undefined });
    await new Promise<void>((done) => front.listen(0, '127.0.0.1', () => done()));
    try {
      const response = await fetch(`http://127.0.0.1:${(front.address() as { port: number }).port}/cases`, { headers: auth });
      const body = await response.json();
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.headers.get('x-careapi-env')).toBe('Sandbox');
      expect(body.errors[0]).toMatchObject({ status: '503', code: 'mock_unavailable' });
    } finally {
      front.close();
    }
  });
});

// What a stateless mock has no reason to answer otherwise than the sandbox (issue 44, D-96); the comparison with
// the sandbox on a whole corpus is test/mock.differential.test.ts.
describe('mock front: answers as the sandbox does', () => {
  const json = { 'content-type': 'application/json' };

  it('writes Location under its own base path, naming the created resource', async () => {
    const created = await call('/cases', { method: 'POST', headers: json, body: JSON.stringify({ contract: 'CT0000101', shortDescription: 'x' }) });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('location')).toBe(`/care/v0/sandbox/cases/${created.body.data.id}`);
    const comment = await call('/care/v0/sandbox/cases/CS0010050/comments', { method: 'POST', headers: json, body: JSON.stringify(exampleOf(spec, spec.operation('createCaseComment').requestBody!.schema)) });
    expect(comment.response.status).toBe(201);
    expect(comment.response.headers.get('location')).toBe(`/care/v0/sandbox/cases/CS0010050/comments/${comment.body.data.id}`);
    expect((await call(comment.response.headers.get('location')!)).response.status).toBe(200);
  });

  it('takes uploads Prism cannot: a file part without Content-Type, without filename, two file parts; Prism lives on', async () => {
    const pid = mock.prismPid;
    const parts = [
      'Content-Disposition: form-data; name="file"; filename="log.txt"\r\n\r\nprinter log',
      'Content-Disposition: form-data; name="file"\r\nContent-Type: text/plain\r\n\r\nprinter log',
      'Content-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nfirst\r\n--zz\r\nContent-Disposition: form-data; name="file"; filename="b.png"\r\nContent-Type: image/png\r\n\r\nsecond',
    ];
    for (const part of parts) {
      const upload = await call('/cases/CS0010050/attachments', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=zz' }, body: `--zz\r\n${part}\r\n--zz--\r\n` });
      expect(upload.response.status).toBe(201);
      expect(upload.response.headers.get('location')).toMatch(/^\/care\/v0\/sandbox\/cases\/CS0010050\/attachments\/AT\d+$/);
    }
    const none = await call('/cases/CS0010050/attachments', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=zz' }, body: '--zz\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--zz--\r\n' });
    expectEnvelope(none, 400, 1);
    expect(none.body.errors[0]).toMatchObject({ detail: 'body.file: Field required', code: 'missing' });
    expect(mock.prismPid).toBe(pid); // Prism alone exits on the first of these
  });

  it('refuses a lone surrogate 400 string_unicode (D-82) and names every unknown key', async () => {
    const surrogate = await call('/cases', { method: 'POST', headers: json, body: JSON.stringify({ contract: 'CT0000101', shortDescription: 'a \ud800 b' }) });
    expectEnvelope(surrogate, 400, 1);
    expect(surrogate.body.errors[0]).toMatchObject({ code: 'string_unicode', detail: expect.stringMatching(/^body\.shortDescription: /) });
    const keys = Array.from({ length: 12 }, (_, i) => `extra${i}`);
    const unknown = await call('/cases/CS0010050', { method: 'PATCH', headers: json, body: JSON.stringify(Object.fromEntries(keys.map((key) => [key, 1]))) });
    expectEnvelope(unknown, 400, 12);
    expect(unknown.body.errors.map((e: any) => e.detail).sort()).toEqual(keys.map((key) => `body.${key}: Extra inputs are not permitted`).sort());
  });

  it('holds requests that come before its Prism first listens, rather than answer 503 "restarting"', async () => {
    const bound = await bindMock({ environment: 'sandbox', log: () => undefined });
    try {
      const early = fetch(`${bound.url}/cases?page[size]=1`, { headers: auth }); // sent before Prism is started
      const running = await bound.start();
      const response = await early;
      expect(response.status).toBe(200);
      expect((await response.json()).data).toHaveLength(1);
      expect(running.url).toBe(bound.url);
    } finally {
      await bound.close();
    }
  }, 120_000);
});

// Lists that look like the service's (issue 35 part 4, D-42): the front shapes Prism's one example into a fixed
// collection: every status and priority, ids counted up, meta.page consistent with data, the same on every run.
describe('mock front: list pages', () => {
  const list = async (query: string) => (await call(`/cases${query}`)).body;

  it('covers every status and priority in the default page, with distinct realistic ids and a consistent meta.page', async () => {
    const body = await list('');
    const caseSchema = spec.resolve('#/components/schemas/Case');
    const statuses = spec.resolve(caseSchema.properties.status.$ref).enum;
    const priorities = spec.resolve(caseSchema.properties.priority.$ref).enum;
    expect(new Set(body.data.map((c: any) => c.status))).toEqual(new Set(statuses));
    expect(new Set(body.data.map((c: any) => c.priority))).toEqual(new Set(priorities));
    const ids = body.data.map((c: any) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^CS\d{7}$/);
    expect(body.meta.page).toEqual({ number: 1, size: 50, count: 50, totalCount: LIST_SIZE });
    expect(validatorFor(spec, 'CaseListResponse')(body)).toBe(true);
  });

  it('pages by page[number] and page[size], to an empty page past the end', async () => {
    const second = await list('?page[number]=2&page[size]=7');
    expect(second.meta.page).toEqual({ number: 2, size: 7, count: 7, totalCount: LIST_SIZE });
    const first = await list('?page[size]=14');
    expect(second.data).toEqual(first.data.slice(7, 14));
    const last = await list(`?page[number]=3&page[size]=50`);
    expect(last.meta.page).toEqual({ number: 3, size: 50, count: LIST_SIZE - 100, totalCount: LIST_SIZE });
    const past = await list('?page[number]=9');
    expect(past.meta.page).toMatchObject({ number: 9, count: 0 });
    expect(past.data).toEqual([]);
  });

  it('filters and sorts by the grammar, and answers the same on every call', async () => {
    const open = await list('?filter[status]=10&filter[priority][in]=1,2&sort=-priority,id');
    expect(open.data.length).toBeGreaterThan(0);
    expect(open.meta.page.totalCount).toBe(open.data.length);
    for (const c of open.data) {
      expect(c.status).toBe(10);
      expect([1, 2]).toContain(c.priority);
    }
    expect(open.data.map((c: any) => c.priority)).toEqual([...open.data.map((c: any) => c.priority)].sort((a, b) => b - a));
    expect((await list('?filter[status]=10&filter[priority][in]=1,2&sort=-priority,id')).data).toEqual(open.data);
  });

  it('varies the text of its items, from the description\'s examples: a text filter narrows the list (D-97)', async () => {
    const all = await list('?page[size]=200');
    const summaries = new Set(all.data.map((c: any) => c.shortDescription));
    const { example, examples } = spec.resolve('#/components/schemas/Case').properties.shortDescription;
    expect(summaries).toEqual(new Set([example, ...examples]));
    expect(new Set(all.data.map((c: any) => c.description)).size).toBeGreaterThan(2);
    const vpn = await list('?filter[shortDescription][contains]=VPN&page[size]=200');
    expect(vpn.meta.page.totalCount).toBeGreaterThan(0);
    expect(vpn.meta.page.totalCount).toBeLessThan(LIST_SIZE);
    for (const c of vpn.data) expect(c.shortDescription).toContain('VPN');
    const comments = await call('/cases/CS0010043/comments?page[size]=200');
    expect(new Set(comments.body.data.map((c: any) => c.text)).size).toBeGreaterThan(2);
  });

  it('starts with the description\'s own example (the docs\' sample), and answers a listed id with that item', async () => {
    const body = await list('?page[size]=5');
    const example = exampleOf(spec, spec.resolve('#/components/schemas/Case'), 'response');
    expect(body.data[0]).toEqual(example);
    const third = body.data[2];
    const single = await call(`/cases/${third.id}`);
    expect(single.body.data).toEqual(third);
    const comments = await call(`/cases/${third.id}/comments?page[size]=3`);
    for (const comment of comments.body.data) expect(comment.case).toBe(third.id);
  });
});

// Each difference from the sandbox that docs/mocks.md lists ("What differs from the sandbox"), pinned here.
describe('mock front: what differs from the sandbox', () => {
  it('keeps no state: a created case is not found, a PATCH changes nothing', async () => {
    const created = await call('/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contract: 'CT0000101', shortDescription: 'Made by a test' }) });
    expect(created.response.status).toBe(201);
    expect(created.body.data.shortDescription).not.toBe('Made by a test'); // the description's example
    const list = await call('/cases?filter[shortDescription]=Made by a test');
    expect(list.body.meta.page.totalCount).toBe(0);
    await call('/cases/CS0010043', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ priority: 4 }) });
    expect((await call('/cases/CS0010043')).body.data.priority).not.toBe(4);
  });

  it('answers any id: one of the collection\'s with that item, any other with the example (the sandbox: 404)', async () => {
    const other = await call('/cases/CS9999999');
    expect(other.response.status).toBe(200);
    expect(other.body.data.id).toBe('CS0010042');
  });

  it('does not scope by contract: a contract the account does not control is not 403', async () => {
    expect((await call('/cases?filter[contract]=CT9999999')).response.status).toBe(200);
  });

  it('does not coerce bodies: "priority": "2" is 400 (the sandbox accepts it)', async () => {
    const result = await call('/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contract: 'CT0000101', shortDescription: 'x', priority: '2' }) });
    expectEnvelope(result, 400, 1);
    expect(result.body.errors[0].detail).toMatch(/^body\.priority: /);
  });

  it('gives every answer its own meta.requestId, errors included, as the sandbox does', async () => {
    const answers = [await call('/cases/CS0010042'), await call('/cases/CS0010042'), await call('/cases?page[size]=1'), await call('/tickets'), await call('/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })];
    const ids = answers.map((a) => a.body.meta.requestId);
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('takes Prism\'s Prefer header (the sandbox ignores it): Prefer: code=404 answers the 404 example in the envelope', async () => {
    const result = await call('/cases/CS0010042', { headers: { prefer: 'code=404' } });
    expectEnvelope(result, 404, 1);
  });

  it('has no token service: /auth/v2/oauth/token is 404 (use any bearer token instead)', async () => {
    const response = await fetch(`${mock.url}/auth/v2/oauth/token`, { method: 'POST', body: 'grant_type=client_credentials' });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-careapi-env')).toBe('Sandbox');
  });
});

// Which of Prism's lines reach the console (prefixed with the environment by the supervisor): its own warnings and
// errors and anything outside its log format (a crash's stack), not its request log nor the request's own faults.
describe('mock supervisor: Prism output passed on', () => {
  it.each([
    ['[2:30:32 PM] ›     [NEGOTIATOR] ⚠  warning   Unable to find content for */*', true],
    ['[2:30:39 PM] › [HTTP SERVER] get /cases ℹ  info      Request received', false],
    ['[2:30:39 PM] ›     [VALIDATOR] ✖  error     Violation: request.body Request body must have required property \'file\'', false],
    ['[2:30:39 PM] ›     [NEGOTIATOR] ✔  success   Responding with the requested status code 400', false],
    ['URIError: URI malformed', true],
    ['    at decodeURIComponent (<anonymous>)', true],
    ['', false],
  ])('%s -> %s', (line, shown) => {
    expect(isPrismProblem(line)).toBe(shown);
  });
});
