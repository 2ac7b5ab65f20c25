// Each house rule of redocly.yaml, and each example-validation rule, fires on a small document that breaks it;
// all stay silent on a control document that follows every rule (whose webhook, a receiver endpoint, has
// neither the env header nor a 401).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { repoRoot } from '../scripts/build/context.ts';
import { lint, type LintProblem } from '../scripts/build/redocly.ts';

/** A document that follows every rule. Each bad document below changes one thing in a fresh copy. */
function controlDocument(): any {
  const envHeader = () => ({ $ref: '#/components/headers/X-CareAPI-Env' });
  const errorBody = () => ({ 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } });
  const unauthorized = { description: 'No valid token.', headers: { 'X-CareAPI-Env': envHeader() }, content: errorBody() };
  const notFound = { description: 'No such thing.', headers: { 'X-CareAPI-Env': envHeader() }, content: errorBody() };
  return {
    openapi: '3.1.0',
    info: { title: 'Things', version: '1.0.0', description: 'Control document.', license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: 'https://api.things.test/v0', description: 'Production' }],
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'Things', description: 'Things.' }],
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          summary: 'List things',
          description: 'A page of things.',
          tags: ['Things'],
          parameters: [
            { $ref: '#/components/parameters/Page' },
            { name: 'sort', in: 'query', description: 'Sort keys.', schema: { type: 'string' }, example: '-name' },
            { name: 'filter', in: 'query', description: 'Filters.', style: 'deepObject', explode: true, schema: { type: 'object', additionalProperties: { type: 'string' } }, example: { name: 'a' } },
          ],
          responses: {
            '200': {
              description: 'A page of things.',
              headers: { 'X-CareAPI-Env': envHeader() },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingList' } } },
              links: { GetThing: { operationId: 'getThing', description: 'The first thing of the page.', parameters: { thingId: '$response.body#/data/0/id' } } },
            },
            '401': structuredClone(unauthorized),
          },
        },
      },
      '/things/{thingId}': {
        get: {
          operationId: 'getThing',
          summary: 'Get a thing',
          description: 'One thing.',
          tags: ['Things'],
          parameters: [{ name: 'thingId', in: 'path', required: true, description: 'The thing.', schema: { type: 'string', example: 'T1' } }],
          responses: {
            '200': {
              description: 'The thing.',
              headers: { 'X-CareAPI-Env': envHeader() },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingResponse' } } },
            },
            '401': unauthorized,
            '404': notFound,
          },
        },
      },
    },
    webhooks: {
      'thing.created': {
        post: {
          operationId: 'onThingCreated',
          summary: 'thing.created',
          description: 'Sent to subscribers; the receiver answers.',
          tags: ['Things'],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingResponse' } } } },
          responses: { '2XX': { description: 'Received.' }, '410': { description: 'Gone for good.' } },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      headers: { 'X-CareAPI-Env': { description: 'Environment.', required: true, schema: { type: 'string', enum: ['Production'] }, example: 'Production' } },
      parameters: {
        Page: {
          name: 'page', in: 'query', description: 'Page.', style: 'deepObject', explode: true,
          schema: { type: 'object', properties: { number: { type: 'integer', description: 'Page number.', example: 1 } } },
          example: { number: 1 },
        },
      },
      schemas: {
        Name: { type: 'string', description: 'A name.', example: 'Bolt' },
        Thing: {
          type: 'object',
          description: 'A thing.',
          properties: {
            id: { type: 'string', description: 'Identifier.', example: 'T1' },
            // Only a $ref: counts through its target.
            name: { $ref: '#/components/schemas/Name' },
          },
        },
        ThingResponse: {
          type: 'object',
          description: 'One thing.',
          properties: {
            meta: { type: 'object', description: 'Metadata.', example: {} },
            data: { $ref: '#/components/schemas/Thing' },
          },
        },
        ThingList: {
          type: 'object',
          description: 'A page of things.',
          properties: {
            meta: { $ref: '#/components/schemas/ListMeta' },
            data: { type: 'array', description: 'The things.', items: { $ref: '#/components/schemas/Thing' } },
          },
        },
        ListMeta: {
          type: 'object',
          description: 'List metadata.',
          required: ['page'],
          properties: { page: { type: 'object', description: 'Where the page stands.', example: { number: 1 } } },
        },
        ErrorEnvelope: {
          type: 'object',
          description: 'Errors.',
          properties: { errors: { type: 'array', description: 'The errors.', items: { type: 'string' }, example: ['bad'] } },
        },
      },
    },
  };
}

type Mutation = (doc: any) => void;
const cases: Array<{ file: string; rule: string; breaks: Mutation }> = [
  {
    file: 'no-env-header.yaml',
    rule: 'care/response-env-header',
    breaks: (doc) => delete doc.paths['/things/{thingId}'].get.responses['404'].headers,
  },
  {
    file: 'no-401.yaml',
    rule: 'care/operation-401',
    breaks: (doc) => delete doc.paths['/things/{thingId}'].get.responses['401'],
  },
  {
    file: 'error-not-envelope.yaml',
    rule: 'care/error-envelope',
    breaks: (doc) => {
      doc.paths['/things/{thingId}'].get.responses['404'].content = { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } };
    },
  },
  {
    file: 'error-without-body.yaml',
    rule: 'care/error-envelope',
    breaks: (doc) => delete doc.paths['/things/{thingId}'].get.responses['404'].content,
  },
  {
    file: 'list-without-sort.yaml',
    rule: 'care/list-operation-shape',
    breaks: (doc) => doc.paths['/things'].get.parameters.splice(1, 1),
  },
  {
    file: 'list-without-meta-page.yaml',
    rule: 'care/list-operation-shape',
    breaks: (doc) => {
      doc.components.schemas.ListMeta = { type: 'object', description: 'No page.', properties: { requestId: { type: 'string', description: 'Request.', example: 'r1' } } };
    },
  },
  {
    file: 'operation-id-snake.yaml',
    rule: 'rule/operation-id-camel-case',
    breaks: (doc) => {
      doc.paths['/things/{thingId}'].get.operationId = 'get_thing';
      doc.paths['/things'].get.responses['200'].links.GetThing.operationId = 'get_thing';
    },
  },
  {
    file: 'property-without-description.yaml',
    rule: 'care/property-description-example',
    breaks: (doc) => delete doc.components.schemas.Thing.properties.id.description,
  },
  {
    file: 'property-without-example.yaml',
    rule: 'care/property-description-example',
    breaks: (doc) => delete doc.components.schemas.Name.example,
  },
  {
    file: 'parameter-without-example.yaml',
    rule: 'care/parameter-description-example',
    breaks: (doc) => delete doc.paths['/things/{thingId}'].get.parameters[0].schema.example,
  },
  {
    file: 'parameter-without-description.yaml',
    rule: 'care/parameter-description-example',
    breaks: (doc) => delete doc.paths['/things'].get.parameters[1].description,
  },
  // Links (issue 38): each can be followed by a stateful tool.
  {
    file: 'link-to-unknown-operation.yaml',
    rule: 'care/link-targets',
    breaks: (doc) => (doc.paths['/things'].get.responses['200'].links.GetThing.operationId = 'getThingy'),
  },
  {
    file: 'link-without-path-parameter.yaml',
    rule: 'care/link-targets',
    breaks: (doc) => (doc.paths['/things'].get.responses['200'].links.GetThing.parameters = { other: '$response.body#/data/0/id' }),
  },
  {
    file: 'link-to-nowhere-in-the-body.yaml',
    rule: 'care/link-targets',
    breaks: (doc) => (doc.paths['/things'].get.responses['200'].links.GetThing.parameters.thingId = '$response.body#/data/0/identifier'),
  },
  {
    file: 'link-from-unknown-request-parameter.yaml',
    rule: 'care/link-targets',
    breaks: (doc) => (doc.paths['/things'].get.responses['200'].links.GetThing.parameters.thingId = '$request.path.thingId'),
  },
  // Examples are validated against their schemas, as errors, with no undeclared property allowed.
  {
    file: 'schema-example-wrong-type.yaml',
    rule: 'no-invalid-schema-examples',
    breaks: (doc) => (doc.components.schemas.Thing.properties.id.example = 5),
  },
  {
    file: 'parameter-example-wrong-type.yaml',
    rule: 'no-invalid-parameter-examples',
    breaks: (doc) => (doc.paths['/things'].get.parameters[1].example = 5),
  },
  {
    file: 'media-type-example-extra-property.yaml',
    rule: 'no-invalid-media-type-examples',
    breaks: (doc) => {
      doc.paths['/things/{thingId}'].get.responses['200'].content['application/json'].example = { meta: {}, data: { id: 'T1' }, extra: true };
    },
  },
];

/** The rules these cases are about; any other problem in a bad document would come from the breaking itself. */
const CHECKED_RULES = new Set(cases.map((c) => c.rule));
let dir: string;
let problemsByFile: Map<string, LintProblem[]>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'care-lint-rules-'));
  writeFileSync(join(dir, 'control.yaml'), stringify(controlDocument()));
  for (const { file, breaks } of cases) {
    const doc = controlDocument();
    breaks(doc);
    writeFileSync(join(dir, file), stringify(doc));
  }
  const files = ['control.yaml', ...cases.map((c) => c.file)];
  const problems = await lint(files, dir, resolve(repoRoot, 'redocly.yaml'));
  problemsByFile = new Map(files.map((file) => [file, problems.filter((p) => p.file.endsWith(file))]));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('house rules of redocly.yaml', () => {
  it('pass a control document that follows them, webhook exempt from env header and 401', () => {
    expect(problemsByFile.get('control.yaml')).toEqual([]);
  });

  it.each(cases)('$rule fires on $file', ({ file, rule }) => {
    const fired = [...new Set(problemsByFile.get(file)!.map((p) => p.ruleId).filter((id) => CHECKED_RULES.has(id)))];
    expect(fired).toEqual([rule]);
  });
});
