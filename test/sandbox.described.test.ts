// The description says what the server does (issue 12, part 3): each expectation below is read from the bundle
// (through src/spec), then the sandbox is held to it over HTTP.
import { describe, expect, it } from 'vitest';
import type { OperationSpec } from '../src/spec/index.ts';
import { harnessWithCase, spec } from './helpers/sandbox.ts';

const withCase = harnessWithCase();

const deref = (node: any): any => (node?.$ref ? deref(spec.resolve(node.$ref)) : node);
const operationNode = (op: OperationSpec) => spec.document.paths[op.path][op.method];
/** The error code a description names in backticks, e.g. "400 `invalid_sort_field`". */
const codeNamedIn = (text: string, pattern: RegExp) => pattern.exec(text)?.[0].replace(/`/g, '');

/** Whether a media range of the description covers an answered type (`*\/*`, `image/*`, exact). */
function covers(range: string, type: string): boolean {
  const [r, t] = [range.toLowerCase(), type.toLowerCase().split(';')[0].trim()];
  return r === '*/*' || r === t || (r.endsWith('/*') && t.startsWith(r.slice(0, -1)));
}

describe('attachment download', () => {
  it('answers a Content-Type that its declared 200 covers, whatever type was uploaded', async () => {
    const declared = spec.operation('downloadCaseAttachment').responses.find((r) => r.status === '200')!.contentTypes;
    for (const type of ['image/png', 'text/plain', 'application/pdf']) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array([1, 2, 3])], { type }), 'a.bin');
      const created = await withCase.h.call('sandbox', 'customer', 'POST', `/cases/${withCase.caseId}/attachments`, form);
      expect(created.status, created.text).toBe(201);
      const got = await withCase.h.call('sandbox', 'customer', 'GET', `/cases/${withCase.caseId}/attachments/${created.json.data.id}/download`);
      expect(got.status).toBe(200);
      const answered = got.headers.get('content-type') ?? '';
      expect(answered.startsWith(type)).toBe(true);
      expect(declared.some((range) => covers(range, answered)), `${answered} not in ${declared.join(', ')}`).toBe(true);
    }
  });
});

describe('expiresAt of API keys', () => {
  const withExpiry = spec.operations.filter((op) => deref(op.requestBody?.schema)?.properties?.expiresAt);

  it('every request body with expiresAt says it must be in the future and names the error', () => {
    expect(withExpiry.map((op) => op.operationId).sort()).toEqual(['createApiKey', 'updateApiKey']);
    for (const op of withExpiry) {
      const description: string = deref(op.requestBody!.schema).properties.expiresAt.description;
      expect(description, op.operationId).toMatch(/in the future/);
      expect(codeNamedIn(description, /`datetime_\w+`/), op.operationId).toBeDefined();
    }
  });

  it('a past expiresAt is answered 400 with the code the description names, on create and on update', async () => {
    const key = await withCase.h.call('sandbox', 'customer', 'POST', '/apikeys', { label: 'expiry check' });
    expect(key.status, key.text).toBe(201);
    const past = '2001-01-01T00:00:00.000Z';
    for (const op of withExpiry) {
      const code = codeNamedIn(deref(op.requestBody!.schema).properties.expiresAt.description, /`datetime_\w+`/);
      const path = op.path.replace('{keyId}', key.json.data.id);
      const answer = await withCase.h.call('sandbox', 'customer', op.method.toUpperCase(), path, { label: 'x', expiresAt: past });
      expect(answer.status, op.operationId).toBe(400);
      expect(answer.json.errors.map((e: any) => e.code), op.operationId).toEqual([code]);
    }
  });
});

describe('sort parameters', () => {
  const lists = spec.operations.filter((op) => op.list && op.environments.includes('sandbox'));
  const sortDescription = (op: OperationSpec) =>
    (operationNode(op).parameters as any[]).map(deref).find((p) => p.in === 'query' && p.name === 'sort').description as string;

  it('every list operation says a field given twice is 400 and names the error', () => {
    expect(lists.length).toBeGreaterThan(5);
    for (const op of lists) {
      expect(sortDescription(op), op.operationId).toMatch(/twice/);
      expect(codeNamedIn(sortDescription(op), /`invalid_sort_field`/), op.operationId).toBe('invalid_sort_field');
    }
  });

  it('the sandbox answers a sortable field given twice, in either direction, with that error', async () => {
    for (const op of lists) {
      const code = codeNamedIn(sortDescription(op), /`invalid_\w+`/);
      const field = op.list!.sortFields[0];
      const path = op.path.replace('{caseId}', withCase.caseId);
      for (const sort of [`${field},${field}`, `${field},-${field}`]) {
        const answer = await withCase.h.call('sandbox', 'customer', 'GET', `${path}?sort=${encodeURIComponent(sort)}`);
        expect(answer.status, `${op.operationId} sort=${sort}`).toBe(400);
        expect(answer.json.errors.map((e: any) => e.code), `${op.operationId} sort=${sort}`).toEqual([code]);
      }
    }
  });
});

describe('the case.updated trigger', () => {
  const itemSchema = () => deref(deref(spec.operation('triggerCaseUpdated').requestBody!.schema).properties.updated.items);

  it('declares the case fields as the enum of `updated`, the properties of Case (filled by the build)', () => {
    expect(itemSchema().enum).toEqual(Object.keys(spec.resolve('#/components/schemas/Case').properties));
  });

  it('accepts every name of that enum and refuses any other with 400', async () => {
    const names: string[] = itemSchema().enum;
    const accepted = await withCase.h.call('sandbox', 'customer', 'POST', '/events/case.updated', { caseId: withCase.caseId, updated: names });
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.json.data.payload.meta.updated).toEqual(names);
    const refused = await withCase.h.call('sandbox', 'customer', 'POST', '/events/case.updated', { caseId: withCase.caseId, updated: ['status', 'notAField'] });
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toHaveLength(1);
    expect(refused.json.errors[0].detail).toMatch(/^body\.updated\.1: /);
  });
});
