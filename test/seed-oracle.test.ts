// The seed as oracle: literal test vectors copied from the specification (section 4's endpoints, section 1's
// operator table, sections 1 and 7's header and error envelope) checked against the three committed bundles.
// Nothing here is read from the description itself, so a mistake there cannot hide on both sides.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../scripts/build/context.ts';

const addFormats: (ajv: Ajv2020) => Ajv2020 = (addFormatsModule as any).default ?? addFormatsModule;

type DocumentName = 'complete' | 'production' | 'sandbox';
const FILES: Record<DocumentName, string> = {
  complete: 'generated/care-api.yaml',
  production: 'generated/care-api.production.yaml',
  sandbox: 'generated/care-api.sandbox.yaml',
};
const documents = Object.fromEntries(
  Object.entries(FILES).map(([name, file]) => [name, parse(readFileSync(resolve(repoRoot, file), 'utf8'), { maxAliasCount: -1 })]),
) as Record<DocumentName, any>;

const BOTH: DocumentName[] = ['complete', 'production', 'sandbox'];
const SANDBOX_ONLY: DocumentName[] = ['complete', 'sandbox'];

/** Seed section 4, every row, with the documents each operation must appear in (paths relative to the server). */
const SEED_OPERATIONS: Array<[method: string, path: string, documents: DocumentName[]]> = [
  ['GET', '/apikeys', BOTH],
  ['POST', '/apikeys', BOTH],
  ['GET', '/apikeys/{keyId}', BOTH],
  ['PATCH', '/apikeys/{keyId}', BOTH],
  ['DELETE', '/apikeys/{keyId}', BOTH],
  ['GET', '/cases', BOTH],
  ['POST', '/cases', BOTH],
  ['GET', '/cases/{caseId}', BOTH],
  ['PATCH', '/cases/{caseId}', BOTH],
  ['GET', '/cases/{caseId}/comments', BOTH],
  ['POST', '/cases/{caseId}/comments', BOTH],
  ['GET', '/cases/{caseId}/comments/{commentId}', BOTH],
  ['GET', '/cases/{caseId}/attachments', BOTH],
  ['POST', '/cases/{caseId}/attachments', BOTH],
  ['GET', '/cases/{caseId}/attachments/{attachmentId}', BOTH],
  ['GET', '/cases/{caseId}/attachments/{attachmentId}/download', BOTH],
  ['GET', '/contracts', BOTH],
  ['GET', '/contracts/{contractId}', BOTH],
  ['PATCH', '/contracts/{contractId}', BOTH],
  ['GET', '/events', BOTH],
  ['GET', '/events/{eventId}', BOTH],
  ['GET', '/webhooks', BOTH],
  ['POST', '/webhooks', BOTH],
  ['GET', '/webhooks/{webhookId}', BOTH],
  ['PATCH', '/webhooks/{webhookId}', BOTH],
  ['DELETE', '/webhooks/{webhookId}', BOTH],
  // "Event triggers (sandbox only; paths exist only with the /sandbox prefix)": relative to the sandbox server.
  ['POST', '/events/case.contract.assigned', SANDBOX_ONLY],
  ['POST', '/events/case.contract.unassigned', SANDBOX_ONLY],
  ['POST', '/events/case.updated', SANDBOX_ONLY],
  ['POST', '/events/case.attachment.created', SANDBOX_ONLY],
  ['POST', '/events/case.comment.created', SANDBOX_ONLY],
];

/** Seed section 6, the five event types (delivered as webhooks in both environments). */
const SEED_EVENT_TYPES = ['case.contract.assigned', 'case.contract.unassigned', 'case.updated', 'case.attachment.created', 'case.comment.created'];

/**
 * Seed section 1, the operator table: name and its "Value" column, mapped to the description's arity words:
 * none; single; "single (a field name)" = field; "comma-separated list" = list; "exactly two" = pair.
 */
const SEED_OPERATORS: Array<[operator: string, arity: 'none' | 'single' | 'field' | 'list' | 'pair']> = [
  ['empty', 'none'],
  ['notEmpty', 'none'],
  ['null', 'none'],
  ['notNull', 'none'],
  ['exists', 'none'],
  ['notExists', 'none'],
  ['eq', 'single'],
  ['ne', 'single'],
  ['lt', 'single'],
  ['le', 'single'],
  ['gt', 'single'],
  ['ge', 'single'],
  ['contains', 'single'],
  ['notContains', 'single'],
  ['like', 'single'],
  ['notLike', 'single'],
  ['match', 'single'],
  ['notMatch', 'single'],
  ['startswith', 'single'],
  ['notStartswith', 'single'],
  ['endswith', 'single'],
  ['notEndswith', 'single'],
  ['sameas', 'field'],
  ['notSameas', 'field'],
  ['in', 'list'],
  ['notIn', 'list'],
  ['between', 'pair'],
  ['notBetween', 'pair'],
];

/** Seed section 1: the env header and its value per environment. */
const ENV_HEADER = 'X-CareAPI-Env';
const ENV_VALUES: Record<DocumentName, string[]> = {
  complete: ['Production', 'Sandbox'],
  production: ['Production'],
  sandbox: ['Sandbox'],
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function resolveRef(document: any, node: any): any {
  for (let hops = 0; node && typeof node.$ref === 'string' && hops < 32; hops++) {
    if (!node.$ref.startsWith('#/')) throw new Error(`non-local $ref in a bundle: ${node.$ref}`);
    node = node.$ref
      .slice(2)
      .split('/')
      .map((part: string) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((at: any, key: string) => at?.[key], document);
  }
  return node;
}

function operationsOf(document: any, map: 'paths' | 'webhooks' = 'paths') {
  const found: Array<{ method: string; path: string; operation: any; pathItem: any }> = [];
  for (const [path, rawItem] of Object.entries<any>(document[map] ?? {})) {
    const pathItem = resolveRef(document, rawItem);
    for (const method of METHODS) if (pathItem[method]) found.push({ method: method.toUpperCase(), path, operation: pathItem[method], pathItem });
  }
  return found;
}

describe.each(BOTH)('the %s bundle', (name) => {
  const document = documents[name];

  it('has exactly the seed operations meant for it, by method and path', () => {
    const expected = SEED_OPERATIONS.filter(([, , docs]) => docs.includes(name)).map(([method, path]) => `${method} ${path}`);
    const actual = operationsOf(document).map(({ method, path }) => `${method} ${path}`);
    expect(actual.sort()).toEqual(expected.sort());
  });

  it('has the five event types as webhooks', () => {
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual([...SEED_EVENT_TYPES].sort());
  });

  it('serves the right base addresses (section 9: /care/v0, sandbox /care/v0/sandbox)', () => {
    const urls: string[] = document.servers.map((server: any) => server.url);
    const production = urls.filter((url) => /\/care\/v0$/.test(url));
    const sandbox = urls.filter((url) => /\/care\/v0\/sandbox$/.test(url));
    expect(production.length).toBe(name === 'sandbox' ? 0 : 1);
    expect(sandbox.length).toBe(name === 'production' ? 0 : 1);
    expect(urls.length).toBe(production.length + sandbox.length);
    // Trigger operations exist only on the sandbox server, whatever the root servers are.
    for (const { path, pathItem, operation } of operationsOf(document)) {
      if (!SEED_OPERATIONS.some(([, p, docs]) => p === path && docs === SANDBOX_ONLY)) continue;
      const servers: any[] = operation.servers ?? pathItem.servers ?? document.servers;
      expect(servers.map((s) => s.url).every((url) => /\/care\/v0\/sandbox$/.test(url)), `${path} servers`).toBe(true);
    }
  });

  it(`declares ${ENV_HEADER} on every response of paths, with only ${ENV_VALUES[name].join(' and ')}`, () => {
    let checked = 0;
    for (const { method, path, operation } of operationsOf(document)) {
      for (const [status, rawResponse] of Object.entries<any>(operation.responses)) {
        const response = resolveRef(document, rawResponse);
        const headerKey = Object.keys(response.headers ?? {}).find((key) => key.toLowerCase() === ENV_HEADER.toLowerCase());
        expect(headerKey, `${method} ${path} ${status}`).toBeDefined();
        const header = resolveRef(document, response.headers[headerKey!]);
        const schema = resolveRef(document, header.schema);
        expect([...schema.enum].sort(), `${method} ${path} ${status}`).toEqual(ENV_VALUES[name]);
        expect(ENV_VALUES[name], `${method} ${path} ${status} example`).toContain(header.example ?? schema.example);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it(`sends ${ENV_HEADER} on every webhook delivery with this document's values`, () => {
    for (const { path, operation } of operationsOf(document, 'webhooks')) {
      const parameters = (operation.parameters ?? []).map((p: any) => resolveRef(document, p));
      const env = parameters.find((p: any) => p.in === 'header' && p.name.toLowerCase() === ENV_HEADER.toLowerCase());
      expect(env, path).toBeDefined();
      expect([...resolveRef(document, env.schema).enum].sort(), path).toEqual(ENV_VALUES[name]);
      expect(ENV_VALUES[name], path).toContain(env.example ?? env.schema.example);
    }
  });

  it('answers every 4xx/5xx with the error envelope of section 7 (meta; errors[] of string status, title, detail, code)', () => {
    let checked = 0;
    for (const { method, path, operation } of operationsOf(document)) {
      for (const [status, rawResponse] of Object.entries<any>(operation.responses)) {
        if (!/^[45]/.test(status)) continue;
        const response = resolveRef(document, rawResponse);
        const media = Object.entries<any>(response.content ?? {});
        expect(media.length, `${method} ${path} ${status} has a body`).toBeGreaterThan(0);
        for (const [type, { schema: rawSchema }] of media) {
          const where = `${method} ${path} ${status} ${type}`;
          const envelope = resolveRef(document, rawSchema);
          expect(envelope.required, where).toEqual(expect.arrayContaining(['meta', 'errors']));
          expect(resolveRef(document, envelope.properties.meta).type, where).toBe('object');
          const errors = resolveRef(document, envelope.properties.errors);
          expect(errors.type, where).toBe('array');
          const error = resolveRef(document, errors.items);
          expect(error.required, where).toEqual(expect.arrayContaining(['status', 'title', 'detail', 'code']));
          for (const member of ['status', 'title', 'detail', 'code']) {
            expect(resolveRef(document, error.properties[member]).type, `${where} ${member}`).toBe('string');
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('declares the 28 operators of section 1 with their arity', () => {
    const operator = document.components.schemas.FilterOperator;
    expect([...operator.enum].sort()).toEqual(SEED_OPERATORS.map(([op]) => op).sort());
    const declared = Object.entries<any>(operator['x-care-operators']).map(([op, spec]) => [op, spec.arity]);
    expect(declared.sort()).toEqual([...SEED_OPERATORS].sort());
  });

  it('has only examples that validate against their schemas (JSON Schema 2020-12)', () => {
    const { checked, failures } = validateExamples(document);
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(150);
  });
});

/** Every example of the document: schema `example`/`examples`, parameter and header `example`/`examples`, media type `example`/`examples`. */
function validateExamples(document: any): { checked: number; failures: string[] } {
  const DOC_ID = 'https://care.example/bundle';
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  for (const format of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) {
    if (!ajv.formats[format]) ajv.addFormat(format, true);
  }
  ajv.addSchema(document, DOC_ID);
  const failures: string[] = [];
  let checked = 0;
  const pointer = (parts: Array<string | number>) => '/' + parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

  const check = (schemaAt: Array<string | number>, value: unknown, exampleAt: string) => {
    const validate = ajv.getSchema(`${DOC_ID}#${encodeURI(pointer(schemaAt))}`);
    if (!validate) throw new Error(`no schema at ${pointer(schemaAt)}`);
    checked++;
    if (!validate(value)) failures.push(`${exampleAt}: ${ajv.errorsText(validate.errors)}`);
  };

  const walkSchema = (schema: any, at: Array<string | number>) => {
    if (!schema || typeof schema !== 'object' || typeof schema.$ref === 'string') return;
    if ('example' in schema) check(at, schema.example, pointer([...at, 'example']));
    if (Array.isArray(schema.examples)) schema.examples.forEach((v: unknown, i: number) => check(at, v, pointer([...at, 'examples', i])));
    for (const key of ['items', 'not', 'additionalProperties', 'propertyNames', 'contains', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties']) {
      if (schema[key] && typeof schema[key] === 'object') walkSchema(schema[key], [...at, key]);
    }
    for (const key of ['allOf', 'oneOf', 'anyOf', 'prefixItems']) {
      (schema[key] ?? []).forEach((sub: any, i: number) => walkSchema(sub, [...at, key, i]));
    }
    for (const key of ['properties', 'patternProperties', '$defs', 'dependentSchemas']) {
      for (const name of Object.keys(schema[key] ?? {})) walkSchema(schema[key][name], [...at, key, name]);
    }
  };

  /** A parameter, header or media type: its examples validate against its `schema`. */
  const walkWithSchema = (holder: any, at: Array<string | number>) => {
    if (!holder || typeof holder !== 'object' || typeof holder.$ref === 'string' || !holder.schema) return;
    if ('example' in holder) check([...at, 'schema'], holder.example, pointer([...at, 'example']));
    for (const [name, rawExample] of Object.entries<any>(holder.examples ?? {})) {
      const example = resolveRef(document, rawExample);
      if (example && 'value' in example) check([...at, 'schema'], example.value, pointer([...at, 'examples', name]));
    }
    walkSchema(holder.schema, [...at, 'schema']);
  };

  const walkResponse = (response: any, at: Array<string | number>) => {
    if (!response || typeof response.$ref === 'string') return;
    for (const name of Object.keys(response.headers ?? {})) walkWithSchema(response.headers[name], [...at, 'headers', name]);
    for (const type of Object.keys(response.content ?? {})) walkWithSchema(response.content[type], [...at, 'content', type]);
  };

  const walkOperations = (map: 'paths' | 'webhooks') => {
    for (const [path, pathItem] of Object.entries<any>(document[map] ?? {})) {
      (pathItem.parameters ?? []).forEach((p: any, i: number) => walkWithSchema(p, [map, path, 'parameters', i]));
      for (const method of METHODS) {
        const operation = pathItem[method];
        if (!operation) continue;
        const at = [map, path, method];
        (operation.parameters ?? []).forEach((p: any, i: number) => walkWithSchema(p, [...at, 'parameters', i]));
        const body = operation.requestBody;
        if (body && typeof body.$ref !== 'string') {
          for (const type of Object.keys(body.content ?? {})) walkWithSchema(body.content[type], [...at, 'requestBody', 'content', type]);
        }
        for (const status of Object.keys(operation.responses ?? {})) walkResponse(operation.responses[status], [...at, 'responses', status]);
      }
    }
  };

  walkOperations('paths');
  walkOperations('webhooks');
  const components = document.components ?? {};
  for (const name of Object.keys(components.schemas ?? {})) walkSchema(components.schemas[name], ['components', 'schemas', name]);
  for (const name of Object.keys(components.parameters ?? {})) walkWithSchema(components.parameters[name], ['components', 'parameters', name]);
  for (const name of Object.keys(components.headers ?? {})) walkWithSchema(components.headers[name], ['components', 'headers', name]);
  for (const name of Object.keys(components.responses ?? {})) walkResponse(components.responses[name], ['components', 'responses', name]);
  for (const name of Object.keys(components.requestBodies ?? {})) {
    const body = components.requestBodies[name];
    for (const type of Object.keys(body.content ?? {})) walkWithSchema(body.content[type], ['components', 'requestBodies', name, 'content', type]);
  }
  return { checked, failures };
}
