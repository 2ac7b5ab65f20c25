// generated/care-filters.ts and care-events.ts say what the description says: every list operation's fields and
// operators, the operators' arities, the webhook event types. (Compile-time behaviour: client.types.test.ts.)
import { describe, expect, it } from 'vitest';
import { careOperatorArities } from '../generated/care-filters.ts';
import { careWebhookEventTypes } from '../generated/care-events.ts';
import { generateFilterTypes } from '../scripts/build/filter-types.ts';
import { loadSpec, specFromDocument } from '../src/spec/index.ts';

const spec = loadSpec();

describe('generated filter types', () => {
  it('carry the arity of every operator of FilterOperator', () => {
    expect(careOperatorArities).toEqual(Object.fromEntries(Object.values(spec.operators).map((o) => [o.name, { arity: o.arity }])));
    expect(Object.keys(careOperatorArities)).toHaveLength(28);
  });

  it('list the webhook event types of the description', () => {
    expect([...careWebhookEventTypes]).toEqual(Object.keys(spec.document.webhooks));
  });

  it.each(spec.operations.filter((op) => op.list).map((op) => [op.operationId, op] as const))('declare %s field by field', (_id, op) => {
    const text = generateFilterTypes(spec);
    const name = `${op.operationId[0].toUpperCase()}${op.operationId.slice(1)}Filter`;
    const body = text.slice(text.indexOf(`export interface ${name} {`), text.indexOf('\n}\n', text.indexOf(`export interface ${name} {`)));
    const declared = [...body.matchAll(/^ {2}"([^"]+)"\?:/gm)].map((m) => m[1]);
    expect(declared).toEqual(Object.keys(op.list!.filterFields));
    for (const field of Object.values(op.list!.filterFields)) {
      const start = body.indexOf(`  "${field.name}"?:`);
      const end = body.indexOf('\n  }', start);
      const operators = [...body.slice(start, end).matchAll(/^ {4}"([^"]+)"\?:/gm)].map((m) => m[1]);
      expect(operators, field.name).toEqual(field.operators);
      expect(body.slice(start, end).includes(` | {`), `${field.name}: eq shorthand`).toBe(field.operators.includes('eq'));
    }
    expect(text).toContain(`  ${JSON.stringify(op.path)}: ${name};`);
  });

  it('follows a change of the description (a field taken away, an operator added)', () => {
    const document = structuredClone(spec.document);
    delete document.components.schemas.CaseFilter.properties.incident;
    document.components.schemas.BooleanFieldFilter.properties.in = { $ref: '#/components/schemas/FilterStringList' };
    const text = generateFilterTypes(specFromDocument(document));
    const cases = text.slice(text.indexOf('export interface ListCasesFilter {'));
    expect(cases.slice(0, cases.indexOf('\n}\n'))).not.toContain('"incident"?:');
    expect(text).toMatch(/"in"\?: FilterList<boolean>/);
  });
});
