// Property: the URL the client sends (openapi-fetch + our serializer + the generated operator arities) parses back,
// with the grammar the service side uses, into exactly the filter, sort and page the caller wrote.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCareClient } from '../src/client/index.ts';
import { pathExamples } from '../src/mock/examples.ts';
import { parseListQuery } from '../src/grammar/index.ts';
import { loadSpec, type OperationSpec, type ValueType } from '../src/spec/index.ts';

const spec = loadSpec();
const lists = spec.operations.filter((op): op is OperationSpec & { list: NonNullable<OperationSpec['list']> } => !!op.list);

/** The URL the client would send, captured at the transport; the answer is an empty page. */
async function sentUrl(op: OperationSpec, query: Record<string, unknown>): Promise<URL> {
  let url = '';
  const client = createCareClient({
    environment: 'sandbox',
    baseUrl: 'http://127.0.0.1:9/care/v0/sandbox',
    token: 't',
    fetch: async (request) => {
      url = request.url;
      return Response.json({ meta: { page: { number: 1, size: 50, count: 0, totalCount: 0 } }, data: [] });
    },
  });
  await (client.GET as any)(op.path, { params: { path: pathExamples(spec, op), query } });
  return new URL(url);
}

const tricky = fc.constantFrom(',', '\\', '[', ']', '&', '=', '%', '+', '#', '?', ' ', 'é', '😀', 'a');
const text = fc.oneof(fc.string({ maxLength: 10 }), fc.string({ unit: tricky, maxLength: 6 }));

function valueOf(type: ValueType): fc.Arbitrary<{ input: unknown; expected: unknown }> {
  switch (type) {
    case 'integer':
      return fc.integer({ min: -1e9, max: 1e9 }).map((n) => ({ input: n, expected: n }));
    case 'boolean':
      return fc.boolean().map((b) => ({ input: b, expected: b }));
    case 'datetime':
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => ({ input: d, expected: d.toISOString() }));
    default:
      return text.map((s) => ({ input: s, expected: s }));
  }
}

describe('client query strings parse back', () => {
  it.each(lists.map((op) => [op.operationId, op] as const))('%s', async (_id, op) => {
    const fields = Object.values(op.list.filterFields);
    const clause = fc.constantFrom(...fields).chain((field) =>
      fc
        .constantFrom(...field.operators.filter((name) => !/^(?:not)?[mM]atch$/.test(name))) // regexes must compile
        .chain((operator) => {
          const arity = spec.operators[operator].arity;
          const value = valueOf(field.type);
          const sameType = fields.filter((f) => f.type === field.type).map((f) => f.name);
          const shaped: fc.Arbitrary<{ input: unknown; expected: unknown[] }> =
            arity === 'none' ? fc.constant({ input: true, expected: [] })
            : arity === 'field' ? fc.constantFrom(...sameType).map((name) => ({ input: name, expected: [name] }))
            : arity === 'list' ? fc.array(value, { minLength: 1, maxLength: 4 }).map((vs) => ({ input: vs.map((v) => v.input), expected: vs.map((v) => v.expected) }))
            : arity === 'pair' ? fc.tuple(value, value).map(([a, b]) => ({ input: [a.input, b.input], expected: [a.expected, b.expected] }))
            : value.map((v) => ({ input: v.input, expected: [v.expected] }));
          return shaped.map((s) => ({ field, operator, ...s }));
        }),
    );
    const page = fc.record({ number: fc.integer({ min: 1, max: 10_000 }), size: fc.integer({ min: 1, max: 200 }) });
    const sort = fc.uniqueArray(fc.constantFrom(...op.list.sortFields), { maxLength: 3 }).chain((names) =>
      fc.tuple(...names.map((name) => fc.boolean().map((descending) => ({ field: name, descending })))),
    );
    await fc.assert(
      fc.asyncProperty(clause, page, sort, async (c, pageInput, keys) => {
        const url = await sentUrl(op, {
          page: pageInput,
          sort: keys.map((k) => `${k.descending ? '-' : ''}${k.field}`),
          filter: { [c.field.name]: { [c.operator]: c.input } },
        });
        const parsed = parseListQuery(url.searchParams, op.list, spec.operators);
        expect(parsed.errors, url.search).toEqual([]);
        expect(parsed.query.page).toEqual(pageInput);
        expect(parsed.query.sort.map(({ field, descending }) => ({ field, descending }))).toEqual(keys);
        expect(parsed.query.filters).toEqual([{ field: c.field.name, operator: c.operator, type: c.field.type, values: c.expected }]);
      }),
      { numRuns: 150 },
    );
  });
});
