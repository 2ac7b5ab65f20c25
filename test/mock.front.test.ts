// The front before Prism: whatever Prism answers, the mock answers like the service (envelope, one error object per
// problem, X-CareAPI-Env), and checks the filter grammar Prism cannot. Raw HTTP, no client, one real Prism.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../src/mock/index.ts';
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
