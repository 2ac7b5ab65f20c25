// Issue 45 in the reference sandbox: the limits it reads from the description (x-care-limits, D-100) and the bounds of
// single values (D-101), the rate-limit fields it sends when started with --rate-limit (D-102). Every number comes from
// the description, not from this file.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../src/spec/index.ts';
import { customerCase, startHarness } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';

const spec = loadSpec();
const limits = spec.limits;

/** The status line of the answer to a GET whose head (request line, headers, blank line) is exactly `bytes` long. */
function headOf(port: number, bytes: number): Promise<string> {
  const start = 'GET /care/v0/sandbox/cases?pad=';
  const end = ' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';
  const head = start + 'a'.repeat(bytes - start.length - end.length) + end;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer.split('\r\n')[0]));
  });
}

describe('the sandbox enforces the limits the description declares (D-100, D-101)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ seedCases: 5 });
  });
  afterAll(() => h?.close());

  it('reads a request head of requestHeadBytes, and answers one byte more 431 naming the limit', async () => {
    expect(await headOf(h.sandbox.port, limits.requestHeadBytes)).toBe('HTTP/1.1 401 Unauthorized');
    expect(await headOf(h.sandbox.port, limits.requestHeadBytes + 1)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
  });

  it('answers at most the error objects ErrorEnvelope.errors allows, the first problems', async () => {
    const body = Object.fromEntries(Array.from({ length: limits.errorObjects + 20 }, (_, i) => [`unknown${i}`, i]));
    const answer = await h.call('sandbox', 'customer', 'POST', '/cases', body);
    expect(answer.status).toBe(400);
    expect(answer.json.errors).toHaveLength(limits.errorObjects);
    expect(answer.json.errors[0].detail).toBe('body.unknown0: Extra inputs are not permitted');
  });

  it('bounds a datetime by its text as sent, before converting it', async () => {
    const longest: number = spec.resolve('#/components/schemas/ApiKeyCreate').properties.expiresAt.maxLength;
    const text = `2030-01-01T00:00:00.${'0'.repeat(6)}Z`.padStart(longest + 1, ' ');
    const answer = await h.call('sandbox', 'customer', 'POST', '/apikeys', { label: 'limits', expiresAt: text });
    expect(answer.status).toBe(400);
    expect(answer.json.errors).toContainEqual(expect.objectContaining({ code: 'string_too_long', detail: `body.expiresAt: String should have at most ${longest} characters` }));
  });

  it('stores a part type longer than the contentType maxLength as application/octet-stream', async () => {
    const longest: number = spec.resolve('#/components/schemas/Attachment').properties.contentType.maxLength;
    const caseId = (await customerCase(h)).id;
    const upload = async (type: string) => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('bytes')], { type }), 'a.bin');
      return (await h.call('sandbox', 'customer', 'POST', `/cases/${caseId}/attachments`, form)).json.data.contentType;
    };
    const at = `application/${'x'.repeat(longest - 'application/'.length)}`;
    expect(await upload(at)).toBe(at);
    expect(await upload(`${at}x`)).toBe('application/octet-stream');
  });

  it('refuses a token form over its bodyBytes with 400 invalid_request, and reads one at the limit', async () => {
    const limit = limits.bodyBytes['application/x-www-form-urlencoded'];
    const form = (bytes: number) => {
      const start = 'grant_type=client_credentials&pad=';
      return start + 'a'.repeat(bytes - start.length);
    };
    const post = (body: string) => fetch(`${h.origin}/auth/v2/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    const at = await post(form(limit));
    expect(at.status).toBe(400);
    expect((await at.json()).error_description).not.toMatch(/larger than/);
    const past = await post(form(limit + 1));
    expect(past.status).toBe(400);
    expect(await past.json()).toEqual({ error: 'invalid_request', error_description: `the body is larger than ${limit} bytes` });
  });
});

describe('rate limits are told in RateLimit and RateLimit-Policy (D-102)', () => {
  it('sends both on every answer when started with --rate-limit, the 429 included, and neither without it', async () => {
    let clock = 1_000_000;
    const limited = await startHarness({ seedCases: 1, rateLimit: 2, now: () => clock });
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await limited.call('sandbox', 'customer', 'GET', '/contracts'));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers.map((a) => a.headers.get('ratelimit'))).toEqual(['"default";r=1;t=1', '"default";r=0;t=1', '"default";r=0;t=1']);
      expect(new Set(answers.map((a) => a.headers.get('ratelimit-policy')))).toEqual(new Set(['"default";q=2;w=1']));
      clock += 1000;
      expect((await limited.call('sandbox', 'customer', 'GET', '/contracts')).headers.get('ratelimit')).toBe('"default";r=1;t=1');
      const pattern = new RegExp(spec.resolve('#/components/headers/RateLimit').schema.pattern);
      expect(answers.every((a) => pattern.test(a.headers.get('ratelimit') ?? ''))).toBe(true);
    } finally {
      await limited.close();
    }
    const open = await startHarness({ seedCases: 1 });
    try {
      const answer = await open.call('sandbox', 'customer', 'GET', '/contracts');
      expect(answer.status).toBe(200);
      expect(answer.headers.has('ratelimit') || answer.headers.has('ratelimit-policy')).toBe(false);
    } finally {
      await open.close();
    }
  });
});
