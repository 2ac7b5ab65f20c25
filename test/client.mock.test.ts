// Every operation of the description, called through the typed client against the Prism mock of each environment
// it exists in (real Prism processes behind the envelope front, on loopback ports). Driven by loadSpec: no hand list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CareApiError, createCareClient, type CareClient } from '../src/client/index.ts';
import { exampleOf, pathExamples } from '../src/mock/examples.ts';
import { rateLimitFieldNames } from '../src/spec/index.ts';
import { startMock, type RunningMock } from '../src/mock/index.ts';
import { loadSpec, validatorFor, type Environment, type OperationSpec } from '../src/spec/index.ts';

const spec = loadSpec();
const environments: Environment[] = ['production', 'sandbox'];
const mocks = {} as Record<Environment, RunningMock>;
const clients = {} as Record<Environment, CareClient>;

beforeAll(async () => {
  await Promise.all(
    environments.map(async (environment) => {
      mocks[environment] = await startMock({ environment });
      clients[environment] = createCareClient({ environment, baseUrl: mocks[environment].url, token: 'mock-token' });
    }),
  );
});

afterAll(async () => {
  await Promise.all(Object.values(mocks).map((mock) => mock.stop()));
});

function successOf(operation: OperationSpec) {
  const success = operation.responses.find((r) => /^2/.test(r.status));
  if (!success) throw new Error(`${operation.operationId} declares no 2xx response`);
  return success;
}

/** The init of a call built from the description's examples: path parameters, and a body when one is declared. */
function initFor(operation: OperationSpec): Record<string, unknown> {
  const init: Record<string, unknown> = { params: { path: pathExamples(spec, operation) } };
  const body = operation.requestBody;
  if (body?.contentTypes.includes('application/json')) init.body = exampleOf(spec, body.schema);
  if (body?.contentTypes.includes('multipart/form-data')) {
    const form = new FormData();
    const schema = spec.resolve((spec.document.paths[operation.path][operation.method].requestBody.content['multipart/form-data'].schema.$ref));
    for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
      if (property.contentMediaType || property.format === 'binary') form.append(name, new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }), 'error-49.png');
      else form.append(name, String(exampleOf(spec, property)));
    }
    init.body = form;
  }
  const success = successOf(operation);
  if (!success.contentTypes.some((type) => /json/.test(type)) && success.contentTypes.length > 0) init.parseAs = 'arrayBuffer';
  return init;
}

const calls = spec.operations.flatMap((operation) => environments.map((environment) => ({ operation, environment })));

describe('every operation through the client against the mock', () => {
  it('covers every operation of the description', () => {
    expect(new Set(calls.map((c) => c.operation.operationId)).size).toBe(spec.operations.length);
    expect(spec.operations.length).toBeGreaterThan(0);
  });

  it.each(calls.map((c) => [c.operation.operationId, c.environment, c] as const))('%s in %s', async (_id, environment, { operation }) => {
    const client = clients[environment];
    const call = (client as any)[operation.method.toUpperCase()] as (path: string, init: unknown) => Promise<any>;

    if (!operation.environments.includes(environment)) {
      // Paths of the other environment only (the sandbox triggers): no such operation here, answered in the envelope
      // (405 where the path matches another operation's template, as /events/{eventId} does; else 404).
      const error = await call(operation.path, initFor(operation)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CareApiError);
      expect([404, 405]).toContain(error.status);
      expect(error.errors.length).toBeGreaterThan(0);
      expect(error.environment).toBe(mocks[environment].envValue);
      return;
    }

    const { data, response, environment: servedBy } = await call(operation.path, initFor(operation));
    const success = successOf(operation);
    expect(String(response.status)).toMatch(new RegExp(`^${success.status.replace(/X/g, '.')}$`));
    expect(servedBy).toBe(mocks[environment].envValue);
    expect(response.headers.get('x-careapi-env')).toBe(environment === 'sandbox' ? 'Sandbox' : 'Production');
    // every declared header, but the RateLimit fields: the mock limits nothing (docs/mocks.md)
    const omitted = new Set(rateLimitFieldNames(spec));
    for (const header of success.headers.filter((h) => !omitted.has(h))) expect(response.headers.has(header), `header ${header}`).toBe(true);
    if (success.schema) {
      const validate = validatorFor(spec, success.schema as object);
      expect(validate(data), JSON.stringify(validate.errors)).toBe(true);
    } else if (success.contentTypes.length > 0) {
      expect(data.byteLength).toBeGreaterThan(0);
    } else {
      expect(data).toBeUndefined();
    }
  });
});

/** A value of the declared type for an operator of the given arity; `other` is another field of the same type. */
function filterValue(type: string, arity: string, other: string): unknown {
  const one: Record<string, unknown[]> = {
    string: ['printer, floor 3', 'zebra'],
    integer: [1, 10],
    datetime: ['2026-01-01', new Date('2026-12-31T23:59:59Z')],
    boolean: [true, false],
    stringArray: ['ana.silva@customer.example', 'jonas.berg@partner.example'],
  };
  const [a, b] = one[type] ?? ['x', 'y'];
  switch (arity) {
    case 'none':
      return true;
    case 'field':
      return other;
    case 'list':
      return [a, b];
    case 'pair':
      return [a, b];
    default:
      return a;
  }
}

describe('the 28 operators, serialized by the client and accepted by the mock', () => {
  const lists = spec.operations.filter((op) => op.list);
  const cases = Object.values(spec.operators).map((operator) => {
    for (const op of lists) {
      const fields = Object.values(op.list!.filterFields);
      const field = fields.find((f) => f.operators.includes(operator.name));
      if (field) {
        const other = fields.find((f) => f.type === field.type && f.name !== field.name) ?? field;
        return { operator, op, field, value: filterValue(field.type, operator.arity, other.name) };
      }
    }
    throw new Error(`no list operation has a field that takes ${operator.name}`);
  });

  it('has all operators of the description', () => {
    expect(cases.length).toBe(Object.keys(spec.operators).length);
  });

  it.each(cases.map((c) => [c.operator.name, c] as const))('%s', async (name, { op, field, value, operator }) => {
    const seen: string[] = [];
    const client = createCareClient({
      environment: 'production',
      baseUrl: mocks.production.url,
      token: 'mock-token',
      fetch: (request) => {
        seen.push(request.url);
        return fetch(request);
      },
    });
    const filter = { [field.name]: { [name]: value } };
    const { response, environment } = await (client.GET as any)(op.path, { params: { path: pathExamples(spec, op), query: { filter } } });
    expect(response.status).toBe(200);
    expect(environment).toBe('Production');
    const query = new URL(seen[0]).search;
    const key = `filter[${field.name}][${name}]`;
    if (operator.arity === 'none') expect(query).toMatch(new RegExp(`[?&]${key.replace(/[[\]]/g, '\\$&')}(&|$)`));
    else expect(query).toContain(`${key}=`);
    if (operator.arity === 'list' || operator.arity === 'pair') expect(query.split(`${key}=`)[1].split('&')[0].split(',').length).toBe(2);
  });

  it('writes the eq shorthand as filter[field]=value and the mock accepts it', async () => {
    const { response } = await clients.sandbox.GET('/cases', { params: { query: { filter: { status: 10, priority: { in: [1, 2] } } } } });
    expect(response.url).toContain('filter[status]=10&filter[priority][in]=1,2');
    expect(response.headers.get('x-careapi-env')).toBe('Sandbox');
  });
});

describe('invalid requests answered 400 in the envelope, with the environment', () => {
  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['unknown field', { filter: { colour: 'red' } }, 'query.filter.colour'],
    ['unknown operator', { filter: { status: { about: 10 } } }, 'query.filter.status.about'],
    ['operator not for the type', { filter: { status: { like: '1*' } } }, 'query.filter.status.like'],
    ['value of the wrong type', { filter: { priority: { in: [1, 'high'] } } }, 'query.filter.priority.in.1'],
    ['page size 201', { page: { size: 201 } }, 'query.page.size'],
    ['unknown sort field', { sort: ['colour'] }, 'query.sort'],
  ];
  it.each(environments.flatMap((env) => invalid.map(([name, query, location]) => [name, env, query, location] as const)))(
    '%s (%s)',
    async (_name, environment, query, location) => {
      const error = await (clients[environment].GET as any)('/cases', { params: { query } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CareApiError);
      expect(error.status).toBe(400);
      expect(error.environment).toBe(mocks[environment].envValue);
      expect(error.errors).toHaveLength(1);
      expect(error.errors[0]).toMatchObject({ status: '400', title: 'Bad Request' });
      expect(error.errors[0].detail.startsWith(`${location}: `)).toBe(true);
      expect(error.errors[0].code).not.toBe('');
    },
  );

  it('reports every problem of one request, one error object each', async () => {
    const error = await (clients.production.GET as any)('/cases', {
      params: { query: { page: { size: 201 }, filter: { colour: 'red', status: { eq: 'open' } } } },
    }).catch((e: unknown) => e);
    expect(error.status).toBe(400);
    expect(error.errors.map((e: any) => e.detail.split(':')[0]).sort()).toEqual(['query.filter.colour', 'query.filter.status.eq', 'query.page.size']);
  });
});

describe('authentication', () => {
  it.each(environments)('no token is answered 401 in the envelope (%s)', async (environment) => {
    const anonymous = createCareClient({ environment, baseUrl: mocks[environment].url });
    const error = await anonymous.GET('/cases').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CareApiError);
    expect((error as CareApiError).status).toBe(401);
    expect((error as CareApiError).environment).toBe(mocks[environment].envValue);
    expect((error as CareApiError).errors[0]).toMatchObject({ status: '401' });
    expect((error as CareApiError).response!.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});
