// Issue 13, first half, over HTTP against a real sandbox: regex and wildcard filters in bounded time (D-68), HEAD and
// malformed path encoding (D-69), Node's own errors in the envelope (D-70), coercion (D-71, D-72), error details (D-73).
import { connect } from 'node:net';
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

describe('malformed path encoding and HEAD (D-69)', () => {
  it.each([
    ['GET', '/cases/%zz'],
    ['GET', '/cases/%C3%28'], // percent-encoded bytes that are not UTF-8
    ['PATCH', '/cases/%zz/'],
    ['GET', '/cases/CS1/comments/%E0%A4%A'],
  ])('%s %s is 400 in the envelope', async (method, path) => {
    const answer = await h.call('sandbox', 'customer', method, path);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.headers.get('x-careapi-env')).toBe('Sandbox');
    expect(answer.json.errors).toEqual([expect.objectContaining({ status: '400', code: 'invalid_path', detail: expect.stringMatching(/^path: /) })]);
  });

  it('serves HEAD wherever GET is: the GET answer\'s status and headers, no body', async () => {
    const caseId = (await h.call('sandbox', 'customer', 'GET', '/cases?page[size]=1')).json.data[0].id;
    for (const path of ['/cases?page[size]=3', `/cases/${caseId}`, '/contracts', '/cases/CS404404404']) {
      const get = await h.call('sandbox', 'customer', 'GET', path);
      const head = await h.call('sandbox', 'customer', 'HEAD', path);
      expect(head.status, path).toBe(get.status);
      expect(head.bytes.length, path).toBe(0);
      for (const name of ['content-type', 'content-length', 'x-careapi-env']) expect(head.headers.get(name), `${path} ${name}`).toBe(get.headers.get(name));
    }
    const anonymous = await h.call('production', null, 'HEAD', '/cases');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-careapi-env')).toBe('Production');
  });

  it('lists HEAD in Allow wherever GET is allowed', async () => {
    const cases = await h.call('sandbox', 'customer', 'PUT', '/cases');
    expect(cases.status).toBe(405);
    expect(cases.headers.get('allow')).toBe('GET, HEAD, POST');
    const one = await h.call('sandbox', 'customer', 'DELETE', '/cases/CS1');
    expect(one.headers.get('allow')).toBe('GET, HEAD, PATCH');
    const trigger = await h.call('production', 'customer', 'POST', '/events/case.updated'); // D-37
    expect(trigger.headers.get('allow')).toBe('GET, HEAD');
    const key = await h.call('sandbox', 'customer', 'PUT', '/apikeys/AK1');
    expect(key.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
  });
});

describe("Node's own errors carry the envelope and X-CareAPI-Env (D-70)", () => {
  /** Write raw bytes on a fresh connection and read the whole answer until the server closes it. */
  function raw(bytes: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
    return new Promise((resolve, reject) => {
      const socket = connect(h.sandbox.port, '127.0.0.1', () => socket.write(bytes));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head, ...rest] = text.split('\r\n\r\n');
        const [statusLine, ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        let body: any;
        try {
          body = JSON.parse(rest.join('\r\n\r\n'));
        } catch {
          body = rest.join('\r\n\r\n');
        }
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
      });
    });
  }

  it.each([
    ['an over-long URL (20 kB filter value) in sandbox', `GET /care/v0/sandbox/cases?filter[shortDescription]=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`, 431, 'Sandbox'],
    ['an over-long header in production', `GET /care/v0/cases HTTP/1.1\r\nHost: localhost\r\nX-Long: ${'b'.repeat(20_000)}\r\n\r\n`, 431, 'Production'],
    ['a malformed header line in sandbox', 'GET /care/v0/sandbox/cases HTTP/1.1\r\nHost: localhost\r\nNo colon here\r\n\r\n', 400, 'Sandbox'],
    ['a malformed request line (no readable URL: the default, Production)', 'G@T / HTTP/1.1\r\nHost: localhost\r\n\r\n', 400, 'Production'],
  ])('%s', async (_, bytes, status, env) => {
    const answer = await raw(bytes);
    expect(answer.status).toBe(status);
    expect(answer.headers['x-careapi-env']).toBe(env);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers.connection).toBe('close');
    expect(answer.body.meta.requestId).toMatch(/^req_/);
    expect(answer.body.errors).toEqual([expect.objectContaining({ status: String(status), detail: expect.any(String), code: expect.any(String) })]);
    expect(answer.body.errors[0].title).toMatch(status === 431 ? 'Request Header Fields Too Large' : 'Bad Request');
  });

  it('keeps serving other requests afterwards', async () => {
    await raw('G@T / HTTP/1.1\r\n\r\n');
    expect((await h.call('sandbox', 'customer', 'GET', '/contracts')).status).toBe(200);
  });
});

describe('coercion over HTTP (D-71, D-72)', () => {
  it('compares a sub-millisecond datetime bound exactly, in SQL as in the grammar (D-71)', async () => {
    const one = (await h.call('sandbox', 'customer', 'GET', '/cases?page[size]=1&sort=-createdAt')).json.data[0];
    const half = one.createdAt.replace('Z', '500Z'); // half a millisecond after the case was created
    const idsOf = async (query: string) => {
      const answer = await h.call('sandbox', 'customer', 'GET', `/cases?page[size]=200&${query}`);
      expect(answer.status, answer.text).toBe(200);
      return answer.json.data.map((c: { id: string }) => c.id);
    };
    expect(await idsOf(`filter[createdAt][ge]=${one.createdAt}&filter[createdAt][lt]=${half}`)).toContain(one.id);
    expect(await idsOf(`filter[createdAt][le]=${half}&filter[createdAt][gt]=${half}`)).toEqual([]);
    expect(await idsOf(`filter[createdAt][eq]=${half}`)).toEqual([]);
    expect(await idsOf(`filter[createdAt][in]=${half}`)).toEqual([]);
    expect(await idsOf(`filter[createdAt][ne]=${half}&filter[id]=${one.id}`)).toEqual([one.id]);
  });

  it('reads "1e1" as the integer 10 and TRUE / Yes / oFF as booleans (D-72)', async () => {
    const open = await h.call('sandbox', 'customer', 'GET', '/cases?filter[status]=1e1&page[size]=5');
    expect(open.status, open.text).toBe(200);
    expect(open.json.data.length).toBeGreaterThan(0);
    expect(open.json.data.every((c: { status: number }) => c.status === 10)).toBe(true);
    const caseId = open.json.data[0].id;
    const patched = await h.call('sandbox', 'customer', 'PATCH', `/cases/${caseId}`, { priority: '2e0' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.data.priority).toBe(2);
    for (const [input, want] of [['TRUE', true], ['Yes', true], ['oFF', false]] as const) {
      const created = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/', enabled: input });
      expect(created.status, `${input}: ${created.text}`).toBe(201);
      expect(created.json.data.enabled).toBe(want);
    }
  });
});

describe('error details (D-73)', () => {
  it('names the index of each bad element of a list filter, so no two details are the same', async () => {
    const answer = await h.call('sandbox', 'customer', 'GET', '/cases?filter[status][in]=1,x,y');
    expect(answer.status).toBe(400);
    expect(answer.json.errors.map((e: { detail: string }) => e.detail.split(':')[0])).toEqual(['query.filter.status.in.1', 'query.filter.status.in.2']);
  });

  it('answers an empty contract id 400 (not 403 "contract  is not accessible")', async () => {
    const created = await h.call('sandbox', 'customer', 'POST', '/cases', { contract: '', shortDescription: 'x' });
    expect(created.status, created.text).toBe(400);
    expect(created.json.errors).toEqual([expect.objectContaining({ detail: 'body.contract: String should have at least 1 character', code: 'string_too_short' })]);
    const caseId = (await h.call('sandbox', 'customer', 'GET', '/cases?page[size]=1')).json.data[0].id;
    const moved = await h.call('sandbox', 'customer', 'PATCH', `/cases/${caseId}`, { contract: '' });
    expect(moved.status, moved.text).toBe(400);
    expect(moved.json.errors[0].code).toBe('string_too_short');
  });

  it('says which contacts the account kind may name', async () => {
    const contract = await firstContract('customer');
    const partnerContact = 'jonas.berg@partner.example'; // a contact of the seeded partner
    const byCustomer = await h.call('sandbox', 'customer', 'POST', '/cases', { contract, shortDescription: 'x', watchList: [partnerContact] });
    expect(byCustomer.status, byCustomer.text).toBe(400);
    expect(byCustomer.json.errors[0].detail).toBe(`body.watchList.0: ${partnerContact} is not a contact of the customer (a customer account may name only its own contacts)`);
    const partnerContract = await firstContract('partner');
    const byPartner = await h.call('sandbox', 'partner', 'POST', '/cases', { contract: partnerContract, shortDescription: 'x', watchList: ['nobody@nowhere.example'] });
    expect(byPartner.status, byPartner.text).toBe(400);
    expect(byPartner.json.errors[0].detail).toBe('body.watchList.0: nobody@nowhere.example is not a contact of the customer or of the partner');
  });
});

describe('text is well-formed Unicode (D-82)', () => {
  it('refuses half a surrogate pair in a body, one error per location, and stores nothing', async () => {
    const caseId = (await h.call('sandbox', 'customer', 'GET', '/cases?page[size]=1')).json.data[0].id;
    const before = (await h.call('sandbox', 'customer', 'GET', `/cases/${caseId}`)).json.data;
    // JSON.stringify writes each lone half as an escape: valid JSON, not valid text
    const answer = await h.call('sandbox', 'customer', 'PATCH', `/cases/${caseId}`, { shortDescription: 'x\ud83dy', description: 'ok', watchList: ['a@b.example', '\ude00'] });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.headers.get('x-careapi-env')).toBe('Sandbox');
    expect(answer.json.errors).toEqual([
      expect.objectContaining({ code: 'string_unicode', detail: 'body.shortDescription: Input should be a valid string, unable to parse raw data as a unicode string' }),
      expect.objectContaining({ code: 'string_unicode', detail: expect.stringMatching(/^body\.watchList\.1: /) }),
    ]);
    expect((await h.call('sandbox', 'customer', 'GET', `/cases/${caseId}`)).json.data).toEqual(before);
  });

  it('keeps a well-formed pair, astral characters included, exactly', async () => {
    const contract = await firstContract('customer');
    const created = await h.call('sandbox', 'customer', 'POST', '/cases', { contract, shortDescription: 'pair \ud83d\ude00 kept' });
    expect(created.status, created.text).toBe(201);
    const read = await h.call('sandbox', 'customer', 'GET', `/cases/${created.json.data.id}`);
    expect(read.json.data.shortDescription).toBe('pair 😀 kept');
  });

  it('refuses a query whose percent-escapes are not UTF-8, and reads a lone % literally', async () => {
    const refused = await h.call('sandbox', 'customer', 'GET', '/cases?filter[shortDescription][contains]=%ED%A0%BD');
    expect(refused.status, refused.text).toBe(400);
    expect(refused.headers.get('x-careapi-env')).toBe('Sandbox');
    expect(refused.json.errors).toEqual([expect.objectContaining({ code: 'invalid_query', detail: expect.stringMatching(/^query: /) })]);
    const literal = await h.call('sandbox', 'customer', 'GET', '/cases?filter[shortDescription][contains]=100%');
    expect(literal.status, literal.text).toBe(200);
  });
});
