// src/spec against the bundle: every list operation's ListSpec comes from its declaration; 28 operators with arity.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { bundlePath, deref, loadSpec, repoRoot, specFromDocument, validatorFor } from '../src/spec/index.ts';

const spec = loadSpec();
const doc = spec.document;

describe('loadSpec', () => {
  it('reads generated/care-api.yaml from the repository root and caches it per path', () => {
    expect(existsSync(join(repoRoot, 'package.json'))).toBe(true);
    expect(bundlePath()).toBe(join(repoRoot, 'generated', 'care-api.yaml'));
    expect(bundlePath('sandbox')).toBe(join(repoRoot, 'generated', 'care-api.sandbox.yaml'));
    expect(loadSpec(bundlePath())).toBe(spec);
    expect(doc.openapi).toMatch(/^3\.1/);
  });

  it('finds every path item and method of the document, once each', () => {
    const declared: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) declared.push(`${method} ${path}`);
    }
    expect(spec.operations.map((op) => `${op.method} ${op.path}`).sort()).toEqual(declared.sort());
    expect(new Set(spec.operations.map((op) => op.operationId)).size).toBe(spec.operations.length);
    expect(spec.operations.length).toBe(31); // seed section 4
  });

  it('gives the five trigger operations the sandbox only, every other operation both environments', () => {
    for (const op of spec.operations) {
      const trigger = /^\/events\/case\./.test(op.path);
      expect(op.environments, op.operationId).toEqual(trigger ? ['sandbox'] : ['production', 'sandbox']);
    }
  });

  it('resolves parameters and responses, keeping schema refs', () => {
    const listCases = spec.operation('listCases');
    expect(listCases.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['query:page', 'query:sort', 'query:filter']);
    expect(listCases.parameters.find((p) => p.name === 'filter')).toMatchObject({ style: 'deepObject', explode: true });
    const ok = listCases.responses.find((r) => r.status === '200')!;
    expect(ok.headers).toContain('X-CareAPI-Env');
    expect(ok.contentTypes).toEqual(['application/json']);
    expect(ok.schema).toEqual({ $ref: '#/components/schemas/CaseListResponse' });
    const unauthorized = listCases.responses.find((r) => r.status === '401')!;
    expect(unauthorized.headers).toEqual(expect.arrayContaining(['X-CareAPI-Env', 'WWW-Authenticate']));
    expect(spec.operation('getCase').parameters).toEqual([
      expect.objectContaining({ name: 'caseId', in: 'path', required: true }),
    ]);
    const upload = spec.operation('uploadCaseAttachment').requestBody!;
    expect(upload.contentTypes).toEqual(['multipart/form-data']);
    expect(spec.operation('createCase').requestBody).toMatchObject({ required: true, contentTypes: ['application/json'] });
    expect(() => spec.operation('noSuchOperation')).toThrow(/noSuchOperation/);
  });

  it('resolves local refs and refuses others', () => {
    expect(spec.resolve('#/components/schemas/Case').title).toBe('Case');
    expect(() => spec.resolve('#/components/schemas/Nope')).toThrow(/Unresolvable/);
    expect(() => spec.resolve('other.yaml#/x')).toThrow(/local/);
  });
});

describe('operators', () => {
  it('are the 28 of FilterOperator, each with its arity and the positive operator it negates', () => {
    const names = doc.components.schemas.FilterOperator.enum;
    expect(names).toHaveLength(28);
    expect(Object.keys(spec.operators).sort()).toEqual([...names].sort());
    const byArity: Record<string, string[]> = {};
    for (const op of Object.values(spec.operators)) (byArity[op.arity] ??= []).push(op.name);
    expect(byArity.none.sort()).toEqual(['empty', 'exists', 'notEmpty', 'notExists', 'notNull', 'null']);
    expect(byArity.field.sort()).toEqual(['notSameas', 'sameas']);
    expect(byArity.list.sort()).toEqual(['in', 'notIn']);
    expect(byArity.pair.sort()).toEqual(['between', 'notBetween']);
    expect(byArity.single).toHaveLength(16);
    expect(spec.operators.ne.negationOf).toBe('eq');
    expect(spec.operators.notNull.negationOf).toBe('null');
    expect(spec.operators.eq.negationOf).toBeNull();
    for (const op of Object.values(spec.operators)) {
      if (op.negationOf) expect(spec.operators[op.negationOf].arity, op.name).toBe(op.arity);
    }
  });
});

describe('list operations', () => {
  const lists = spec.operations.filter((op) => op.list);

  it('are exactly the operations taking page, sort and filter', () => {
    const expected = spec.operations.filter((op) => ['page', 'sort', 'filter'].every((n) => op.parameters.some((p) => p.in === 'query' && p.name === n)));
    expect(lists.map((op) => op.operationId)).toEqual(expected.map((op) => op.operationId));
    expect(lists.map((op) => op.operationId).sort()).toEqual(
      ['listApiKeys', 'listCaseAttachments', 'listCaseComments', 'listCases', 'listContracts', 'listEvents', 'listWebhooks'],
    );
  });

  it.each(lists.map((op) => [op.operationId, op] as const))('%s: fields, types and operators come from its filter declaration', (_, op) => {
    const list = op.list!;
    const filterParam = op.parameters.find((p) => p.name === 'filter')!;
    const filterSchema = deref(doc, filterParam.schema);
    expect(Object.keys(list.filterFields)).toEqual(Object.keys(filterSchema.properties));
    for (const [name, ref] of Object.entries<any>(filterSchema.properties)) {
      const fieldSchema = deref(doc, ref);
      // beside the $ref, the bundle's operand enums (D-105): every operator whose operand names a field has one
      const operandNames = Object.fromEntries(Object.entries<any>(ref.properties ?? {}).map(([operator, operand]) => [operator, operand.enum]));
      expect(list.filterFields[name]).toEqual({ name, type: fieldSchema['x-care-value-type'], operators: Object.keys(fieldSchema.properties), operandNames });
      for (const operator of list.filterFields[name].operators) expect(spec.operators[operator], operator).toBeDefined();
      const fieldOperators = list.filterFields[name].operators.filter((operator) => spec.operators[operator].arity === 'field');
      expect(Object.keys(operandNames).sort(), `${name}: operand enums`).toEqual(fieldOperators.sort());
      for (const names of Object.values<string[]>(operandNames)) {
        expect(names.map((n) => list.filterFields[n]?.type), `${name}: operand names of its own type`).toEqual(names.map(() => list.filterFields[name].type));
      }
    }
    const sortEnum: string[] = deref(doc, op.parameters.find((p) => p.name === 'sort')!.schema).items.enum;
    expect(list.sortFields).toEqual(sortEnum.filter((n) => !n.startsWith('-')));
    expect(sortEnum.filter((n) => n.startsWith('-')).map((n) => n.slice(1))).toEqual(list.sortFields);
    const okSchema = deref(doc, op.responses.find((r) => r.status === '200')!.schema);
    expect(okSchema.properties.data.items.$ref).toBe(`#/components/schemas/${list.itemSchema}`);
  });

  it('declare the operators per value type of decision D-21', () => {
    const byType = new Map<string, string>();
    for (const op of lists) {
      for (const field of Object.values(op.list!.filterFields)) {
        const ops = field.operators.join(' ');
        expect(byType.get(field.type) ?? ops, `${op.operationId}.${field.name}`).toBe(ops);
        byType.set(field.type, ops);
      }
    }
    expect(byType.get('string')!.split(' ')).toHaveLength(28);
    expect(byType.get('integer')).toBe('null notNull exists notExists eq ne lt le gt ge sameas notSameas in notIn between notBetween');
    expect(byType.get('datetime')).toBe(byType.get('integer'));
    expect(byType.get('boolean')).toBe('null notNull exists notExists eq ne sameas notSameas');
    expect(byType.get('stringArray')).toBe('empty notEmpty null notNull exists notExists contains notContains');
  });
});

describe('per-environment bundles', () => {
  it.each(['production', 'sandbox'] as const)('%s: operations without x-care-environments take the environment of the servers', (env) => {
    const file = bundlePath(env);
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build`);
    const envSpec = loadSpec(file);
    for (const op of envSpec.operations) expect(op.environments, op.operationId).toEqual([env]);
    expect(envSpec.operations.some((op) => op.path.startsWith('/events/case.'))).toBe(env === 'sandbox');
  });

  it('fall back to both environments, and let operation parameters override path-level ones', () => {
    const tiny = specFromDocument({
      openapi: '3.1.0',
      paths: {
        '/x/{id}': {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          get: { operationId: 'getX', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], responses: {} },
        },
      },
      components: { schemas: { FilterOperator: { 'x-care-operators': { eq: { arity: 'single', negationOf: null, summary: 'equal' } } } } },
    });
    expect(tiny.operation('getX')).toMatchObject({ environments: ['production', 'sandbox'], parameters: [{ name: 'id', schema: { type: 'integer' } }] });
    expect(tiny.operation('getX').list).toBeUndefined();
  });
});

describe('validatorFor', () => {
  const aCase = {
    id: 'CS0010042', contract: null, shortDescription: 'Printer on floor 3 prints blank pages', description: null,
    status: 10, priority: 2, contact: null, watchList: [], incident: null,
    createdAt: '2026-11-02T08:15:30.000Z', created: '2026-11-02T08:15:30.000Z', updatedAt: '2026-11-02T08:15:30.000Z',
  };

  it('compiles a component by name or ref, resolving refs into the document', () => {
    const byName = validatorFor(spec, 'Case');
    expect(validatorFor(spec, '#/components/schemas/Case')).toBe(byName);
    expect(byName({})).toBe(false);
    expect(byName.errors!.length).toBeGreaterThan(0);
    expect(() => validatorFor(spec, 'NoSuchSchema')).toThrow(/Unresolvable/);
  });

  it('compiles a schema object taken from the document (its #/components refs resolve)', () => {
    const schema = spec.operation('listCases').responses.find((r) => r.status === '200')!.schema as object;
    const validate = validatorFor(spec, schema);
    expect(validatorFor(spec, schema)).toBe(validate);
    expect(validate({ meta: { page: { number: 1, size: 50, count: 0, totalCount: 0 } }, data: [] })).toBe(true);
    expect(validate({ meta: { page: { number: 0, size: 50, count: 0, totalCount: 0 } }, data: [] })).toBe(false);
    expect(validate({ meta: { page: { number: 1, size: 50, count: 1, totalCount: 1 } }, data: [{ ...aCase, status: 'open' }] })).toBe(false);
  });

  it('compiles every component schema and every JSON body schema of every operation', () => {
    for (const name of Object.keys(doc.components.schemas)) expect(() => validatorFor(spec, name), name).not.toThrow();
    for (const op of spec.operations) {
      if (op.requestBody?.schema) expect(() => validatorFor(spec, op.requestBody!.schema as object), op.operationId).not.toThrow();
      for (const response of op.responses) {
        if (response.schema) expect(() => validatorFor(spec, response.schema as object), `${op.operationId} ${response.status}`).not.toThrow();
      }
    }
  });

  it('checks formats (ajv-formats) and enums of the components', () => {
    const validate = validatorFor(spec, 'Case');
    const valid = validate(aCase);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(validate({ ...aCase, createdAt: 'yesterday' })).toBe(false);
    expect(validate({ ...aCase, status: 11 })).toBe(false);
  });
});
