// parseListQuery on literal query strings (never produced by the serializer, so a bug cannot hide on both sides).
import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../src/grammar/index.ts';
import type { GrammarError } from '../src/grammar/index.ts';
import { loadSpec } from '../src/spec/index.ts';

const spec = loadSpec();
const cases = spec.operation('listCases').list!;
const comments = spec.operation('listCaseComments').list!;
const webhooks = spec.operation('listWebhooks').list!;
const parse = (query: string | URLSearchParams, list = cases) => parseListQuery(query, list, spec.operators);
const errorsOf = (query: string, list = cases) => parse(query, list).errors;
const only = (query: string, list = cases) => {
  const { query: parsed, errors } = parse(query, list);
  expect(errors).toEqual([]);
  expect(parsed.filters).toHaveLength(1);
  return parsed.filters[0];
};
const err = (location: string, code: string) => expect.objectContaining<GrammarError>({ location, code, problem: expect.any(String) });

describe('page', () => {
  it('defaults to page 1 of 50', () => {
    expect(parse('')).toEqual({ query: { page: { number: 1, size: 50 }, sort: [], filters: [] }, errors: [] });
  });
  it('reads page[number] and page[size], with or without a leading ?, from a string or URLSearchParams', () => {
    expect(parse('page[number]=3&page[size]=200').query.page).toEqual({ number: 3, size: 200 });
    expect(parse('?page[number]=2').query.page).toEqual({ number: 2, size: 50 });
    expect(parse(new URLSearchParams('page[size]=1')).query.page).toEqual({ number: 1, size: 1 });
    expect(parse('page%5Bnumber%5D=4&page%5Bsize%5D=2.0').query.page).toEqual({ number: 4, size: 2 });
  });
  it('refuses sizes outside 1..200 and numbers below 1, and values that are not integers', () => {
    expect(errorsOf('page[size]=201')).toEqual([err('query.page.size', 'less_than_equal')]);
    expect(errorsOf('page[size]=0')).toEqual([err('query.page.size', 'greater_than_equal')]);
    expect(errorsOf('page[number]=0')).toEqual([err('query.page.number', 'greater_than_equal')]);
    expect(errorsOf('page[number]=-1')).toEqual([err('query.page.number', 'greater_than_equal')]);
    expect(errorsOf('page[number]=two')).toEqual([err('query.page.number', 'int_parsing')]);
    expect(errorsOf('page[size]=2.5')).toEqual([err('query.page.size', 'int_parsing')]);
    expect(errorsOf('page[size]=')).toEqual([err('query.page.size', 'int_parsing')]);
    expect(errorsOf('page[size]=201').at(0)!.problem).toBe('Input should be less than or equal to 200');
  });
  it('refuses page parameters it does not know', () => {
    expect(errorsOf('page[offset]=10')).toEqual([err('query.page.offset', 'invalid_page')]);
    expect(errorsOf('page=2')).toEqual([err('query.page', 'invalid_page')]);
    expect(errorsOf('page[number][x]=2')).toEqual([err('query.page', 'invalid_page')]);
  });
});

describe('sort', () => {
  it('reads a comma list with - for descending, typed by the field declaration', () => {
    expect(parse('sort=status,-created').query.sort).toEqual([
      { field: 'status', descending: false, type: 'integer' },
      { field: 'created', descending: true, type: 'datetime' },
    ]);
    expect(parse('sort=').query.sort).toEqual([]);
    expect(parse('sort=-id').query.sort).toEqual([{ field: 'id', descending: true, type: 'string' }]);
  });
  it('gives one invalid_sort_field error per unknown, empty or repeated field', () => {
    expect(errorsOf('sort=colour')).toEqual([err('query.sort', 'invalid_sort_field')]);
    expect(errorsOf('sort=colour,-size,status')).toEqual([err('query.sort', 'invalid_sort_field'), err('query.sort', 'invalid_sort_field')]);
    expect(errorsOf('sort=status,,id')).toEqual([err('query.sort', 'invalid_sort_field')]);
    expect(errorsOf('sort=-')).toEqual([err('query.sort', 'invalid_sort_field')]);
    expect(errorsOf('sort=status,-status')).toEqual([err('query.sort', 'invalid_sort_field')]);
    expect(errorsOf('sort=+status')).toEqual([err('query.sort', 'invalid_sort_field')]);
    expect(errorsOf('sort=description')).toEqual([err('query.sort', 'invalid_sort_field')]); // filterable, not sortable
    expect(errorsOf('sort=colour')[0].problem).toMatch(/colour/);
  });
});

describe('filter forms of the seed', () => {
  it('filter[field]=value means eq', () => {
    expect(only('filter[status]=10')).toEqual({ field: 'status', operator: 'eq', type: 'integer', values: [10] });
    expect(only('filter[status][eq]=10')).toEqual({ field: 'status', operator: 'eq', type: 'integer', values: [10] });
  });
  it('filter[field][operator] takes no value; an empty value is accepted too', () => {
    expect(only('filter[incident][notNull]')).toEqual({ field: 'incident', operator: 'notNull', type: 'string', values: [] });
    expect(only('filter[incident][notNull]=')).toEqual({ field: 'incident', operator: 'notNull', type: 'string', values: [] });
    expect(only('filter[watchList][empty]')).toMatchObject({ operator: 'empty', values: [] });
  });
  it('comma lists for in and notIn, exactly two values for between and notBetween', () => {
    expect(only('filter[priority][in]=1,2')).toMatchObject({ operator: 'in', values: [1, 2] });
    expect(only('filter[priority][notIn]=3')).toMatchObject({ operator: 'notIn', values: [3] });
    expect(only('filter[createdAt][between]=2026-01-01,2026-02-01T12:00:00%2B02:00')).toMatchObject({
      operator: 'between', values: ['2026-01-01T00:00:00.000Z', '2026-02-01T10:00:00.000Z'],
    });
    expect(only('filter[shortDescription][notBetween]=a,m')).toMatchObject({ values: ['a', 'm'] });
  });
  it('converts values by the field type (datetimes to UTC with milliseconds)', () => {
    expect(only('filter[createdAt][ge]=2026-01-01')).toMatchObject({ values: ['2026-01-01T00:00:00.000Z'] });
    expect(only('filter[createdAt][lt]=1767225600')).toMatchObject({ values: ['2026-01-01T00:00:00.000Z'] });
    expect(only('filter[partnerComment]=yes', comments)).toMatchObject({ type: 'boolean', values: [true] });
    expect(only('filter[partnerComment][ne]=0', comments)).toMatchObject({ values: [false] });
    expect(only('filter[status][le]=3.0')).toMatchObject({ values: [3] });
  });
  it('decodes percent-encoding and + in keys and values, before splitting lists', () => {
    expect(only('filter%5Bpriority%5D%5Bin%5D=1%2C2')).toMatchObject({ operator: 'in', values: [1, 2] });
    expect(only('filter[shortDescription]=blank+pages%20%26%20more')).toMatchObject({ values: ['blank pages & more'] });
    expect(only('filter[shortDescription][contains]=%F0%9F%98%80')).toMatchObject({ values: ['😀'] });
  });
  it('unescapes \\, and \\\\ inside list values (decision D-23)', () => {
    expect(only('filter[shortDescription][in]=a%5C%2Cb,c%5C%5C')).toMatchObject({ values: ['a,b', 'c\\'] });
    expect(only('filter[shortDescription][in]=a\\,b,c\\\\')).toMatchObject({ values: ['a,b', 'c\\'] });
    expect(only('filter[shortDescription][between]=\\,,\\\\')).toMatchObject({ values: [',', '\\'] });
    expect(only('filter[shortDescription][in]=,')).toMatchObject({ values: ['', ''] });
  });
  it('keeps commas and backslashes of single values as they are', () => {
    expect(only('filter[shortDescription]=a,b\\c')).toMatchObject({ values: ['a,b\\c'] });
    expect(only('filter[shortDescription][eq]=')).toMatchObject({ values: [''] });
  });
  it('sameas names another filterable field of the same type', () => {
    expect(only('filter[createdAt][sameas]=created')).toEqual({ field: 'createdAt', operator: 'sameas', type: 'datetime', values: ['created'] });
    expect(only('filter[contact][notSameas]=contract')).toMatchObject({ values: ['contract'] });
    expect(only('filter[status][sameas]=status')).toMatchObject({ values: ['status'] });
  });
  it('several filters all apply, the same field with different operators too; other parameters are ignored', () => {
    const { query, errors } = parse('filter[status]=10&filter[priority][ge]=1&filter[priority][le]=2&include=contract&fields[cases]=id');
    expect(errors).toEqual([]);
    expect(query.filters.map((f) => `${f.field}.${f.operator}`)).toEqual(['status.eq', 'priority.ge', 'priority.le']);
  });
  it('accepts valid regular expressions in Unicode mode up to 256 characters', () => {
    expect(only('filter[shortDescription][match]=%5EPrint(er)%3F%5Cs')).toMatchObject({ values: ['^Print(er)?\\s'] });
    expect(only('filter[shortDescription][notMatch]=%5Cp%7BLu%7D')).toMatchObject({ values: ['\\p{Lu}'] });
    expect(only(`filter[shortDescription][match]=${'a'.repeat(256)}`)).toMatchObject({ operator: 'match' });
    expect(only('filter[shortDescription][like]=Print*%3F')).toMatchObject({ values: ['Print*?'] });
  });
});

describe('errors, one per problem', () => {
  it('unknown field: invalid_filter_field at query.filter.<field>', () => {
    expect(errorsOf('filter[colour]=red')).toEqual([err('query.filter.colour', 'invalid_filter_field')]);
    expect(errorsOf('filter[colour][in]=red')).toEqual([err('query.filter.colour', 'invalid_filter_field')]);
    expect(errorsOf('filter[__proto__]=1')).toEqual([err('query.filter.__proto__', 'invalid_filter_field')]);
    expect(errorsOf('filter[partnerComment]=true')).toEqual([err('query.filter.partnerComment', 'invalid_filter_field')]);
  });
  it('unknown operator, or one that does not apply to the field type: invalid_filter_operator', () => {
    expect(errorsOf('filter[status][equals]=10')).toEqual([err('query.filter.status.equals', 'invalid_filter_operator')]);
    expect(errorsOf('filter[status][toString]=10')).toEqual([err('query.filter.status.toString', 'invalid_filter_operator')]);
    expect(errorsOf('filter[status][like]=1*')).toEqual([err('query.filter.status.like', 'invalid_filter_operator')]);
    expect(errorsOf('filter[createdAt][empty]')).toEqual([err('query.filter.createdAt.empty', 'invalid_filter_operator')]);
    expect(errorsOf('filter[watchList]=a@b.example')).toEqual([err('query.filter.watchList.eq', 'invalid_filter_operator')]);
    expect(errorsOf('filter[partnerComment][lt]=true', comments)).toEqual([err('query.filter.partnerComment.lt', 'invalid_filter_operator')]);
    expect(errorsOf('filter[contracts][in]=a', webhooks)).toEqual([err('query.filter.contracts.in', 'invalid_filter_operator')]);
  });
  it('a value that cannot be converted: the coercion code at query.filter.<field>.<op>', () => {
    expect(errorsOf('filter[status]=open')).toEqual([err('query.filter.status.eq', 'int_parsing')]);
    expect(errorsOf('filter[status][gt]=1.5')).toEqual([err('query.filter.status.gt', 'int_parsing')]);
    expect(errorsOf('filter[createdAt][ge]=yesterday')).toEqual([err('query.filter.createdAt.ge', 'datetime_parsing')]);
    expect(errorsOf('filter[partnerComment]=maybe', comments)).toEqual([err('query.filter.partnerComment.eq', 'bool_parsing')]);
    expect(errorsOf('filter[enabled][eq]=', webhooks)).toEqual([err('query.filter.enabled.eq', 'bool_parsing')]);
    // each bad element names its index, as body locations do (body.watchList.1): no two identical details (D-73)
    expect(errorsOf('filter[priority][in]=1,high,x')).toEqual([err('query.filter.priority.in.1', 'int_parsing'), err('query.filter.priority.in.2', 'int_parsing')]);
    expect(errorsOf('filter[priority][between]=1,high')).toEqual([err('query.filter.priority.between.1', 'int_parsing')]);
    expect(errorsOf('filter[createdAt][notIn]=x,2026-01-01,y')).toEqual([err('query.filter.createdAt.notIn.0', 'datetime_parsing'), err('query.filter.createdAt.notIn.2', 'datetime_parsing')]);
  });
  it('a value given to a no-value operator: invalid_filter_value', () => {
    expect(errorsOf('filter[incident][null]=x')).toEqual([err('query.filter.incident.null', 'invalid_filter_value')]);
    expect(errorsOf('filter[incident][notNull]=true')).toEqual([err('query.filter.incident.notNull', 'invalid_filter_value')]);
  });
  it('a wrong count for between and notBetween: invalid_filter_value', () => {
    expect(errorsOf('filter[priority][between]=1')).toEqual([err('query.filter.priority.between', 'invalid_filter_value')]);
    expect(errorsOf('filter[priority][notBetween]=1,2,3')).toEqual([err('query.filter.priority.notBetween', 'invalid_filter_value')]);
    expect(errorsOf('filter[shortDescription][between]=a\\,b')).toEqual([err('query.filter.shortDescription.between', 'invalid_filter_value')]);
  });
  it('a bad escape in a list: invalid_filter_value', () => {
    expect(errorsOf('filter[shortDescription][in]=a\\b')).toEqual([err('query.filter.shortDescription.in', 'invalid_filter_value')]);
    expect(errorsOf('filter[shortDescription][in]=a\\')).toEqual([err('query.filter.shortDescription.in', 'invalid_filter_value')]);
  });
  it('an invalid or too long regular expression: invalid_filter_value', () => {
    expect(errorsOf('filter[shortDescription][match]=(')).toEqual([err('query.filter.shortDescription.match', 'invalid_filter_value')]);
    expect(errorsOf('filter[shortDescription][notMatch]=%5Cq')).toEqual([err('query.filter.shortDescription.notMatch', 'invalid_filter_value')]); // \q: no such escape in RE2
    expect(errorsOf('filter[shortDescription][match]=(a)%5C1')).toEqual([err('query.filter.shortDescription.match', 'invalid_filter_value')]); // RE2 has no backreferences (D-68)
    expect(errorsOf(`filter[shortDescription][match]=${'a'.repeat(257)}`)).toEqual([err('query.filter.shortDescription.match', 'invalid_filter_value')]);
  });
  it('sameas naming an unknown field or one of another type: invalid_filter_value', () => {
    expect(errorsOf('filter[createdAt][sameas]=status')).toEqual([err('query.filter.createdAt.sameas', 'invalid_filter_value')]);
    expect(errorsOf('filter[createdAt][notSameas]=birthday')).toEqual([err('query.filter.createdAt.notSameas', 'invalid_filter_value')]);
    expect(errorsOf('filter[createdAt][sameas]=')).toEqual([err('query.filter.createdAt.sameas', 'invalid_filter_value')]);
  });
  it('malformed keys: invalid_filter', () => {
    for (const key of ['filter[status', 'filter[status][eq][x]', 'filter', 'filter[]', 'filter[status][]', 'filter[status]x', 'filter[a]b[c]']) {
      expect(errorsOf(`${key}=1`), key).toEqual([err('query.filter', 'invalid_filter')]);
    }
    expect(errorsOf('filterx=1&filters[status]=1')).toEqual([]); // not the filter parameter at all
  });
  it('the same field and operator twice: invalid_filter', () => {
    expect(errorsOf('filter[status]=1&filter[status]=2')).toEqual([err('query.filter.status.eq', 'invalid_filter')]);
    expect(errorsOf('filter[status]=1&filter[status][eq]=2')).toEqual([err('query.filter.status.eq', 'invalid_filter')]);
    expect(errorsOf('filter[status][in]=1&filter[status][in]=2&filter[status][in]=3')).toHaveLength(2);
  });
  it('reports every problem of one request, in order, and keeps the valid clauses', () => {
    const { query, errors } = parse(
      'page[size]=500&sort=colour,-status&filter[colour]=red&filter[status][like]=1&filter[priority][in]=1,x&' +
        'filter[incident][notNull]=yes&filter[a&filter[createdAt][between]=2026-01-01&filter[status]=10',
    );
    expect(errors).toEqual([
      err('query.page.size', 'less_than_equal'),
      err('query.sort', 'invalid_sort_field'),
      err('query.filter.colour', 'invalid_filter_field'),
      err('query.filter.status.like', 'invalid_filter_operator'),
      err('query.filter.priority.in.1', 'int_parsing'),
      err('query.filter.incident.notNull', 'invalid_filter_value'),
      err('query.filter', 'invalid_filter'),
      err('query.filter.createdAt.between', 'invalid_filter_value'),
    ]);
    expect(query.page.size).toBe(50);
    expect(query.sort).toEqual([{ field: 'status', descending: true, type: 'integer' }]);
    expect(query.filters).toEqual([{ field: 'status', operator: 'eq', type: 'integer', values: [10] }]);
  });
});

describe('every operator on every value type it applies to', () => {
  // A literal raw value per (type, arity) and the value the grammar must read from it.
  const literal: Record<string, Record<string, [string, unknown[]]>> = {
    string: { none: ['', []], single: ['Pr%C3%ADnter%2C%20%F0%9F%98%80', ['Prínter, 😀']], field: ['id', ['id']], list: ['a,b%5C%2Cc', ['a', 'b,c']], pair: ['a,z', ['a', 'z']] },
    integer: { none: ['', []], single: ['-7', [-7]], field: ['status', ['status']], list: ['1,10,18', [1, 10, 18]], pair: ['1,3', [1, 3]] },
    datetime: {
      none: ['', []], single: ['2026-03-04T05:06:07.891%2B01:00', ['2026-03-04T04:06:07.891Z']], field: ['createdAt', ['createdAt']],
      list: ['2026-01-01,1767225600', ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z']], pair: ['2026-01-01T00:00,2026-12-31 23:59:59Z', ['2026-01-01T00:00:00.000Z', '2026-12-31T23:59:59.000Z']],
    },
    boolean: { none: ['', []], single: ['False', [false]], field: ['partnerComment', ['partnerComment']] },
    stringArray: { none: ['', []], single: ['ana.silva%40customer.example', ['ana.silva@customer.example']] },
  };
  const lists = spec.operations.filter((op) => op.list).map((op) => op.list!);
  const rows: Array<[string, string, string, string]> = [];
  for (const list of lists) {
    for (const field of Object.values(list.filterFields)) {
      for (const operator of field.operators) rows.push([list.operationId, field.name, field.type, operator]);
    }
  }
  const seenTypes = new Set(rows.map((row) => `${row[2]} ${row[3]}`));

  it('covers all five value types and all 28 operators', () => {
    expect(new Set(rows.map((row) => row[2]))).toEqual(new Set(Object.keys(literal)));
    expect(new Set(rows.map((row) => row[3])).size).toBe(28);
  });

  it.each([...seenTypes].map((key) => key.split(' ') as [string, string]))('%s %s', (type, operator) => {
    for (const [operationId, fieldName] of rows.filter((row) => row[2] === type && row[3] === operator).map((row) => [row[0], row[1]])) {
      const list = spec.operation(operationId).list!;
      const arity = spec.operators[operator].arity;
      let [raw, values] = literal[type][arity];
      if (arity === 'field') [raw, values] = [fieldName, [fieldName]]; // a field always has its own type
      const key = `filter[${fieldName}][${operator}]`;
      const { query, errors } = parseListQuery(arity === 'none' ? key : `${key}=${raw}`, list, spec.operators);
      expect(errors, `${operationId} ${key}`).toEqual([]);
      expect(query.filters).toEqual([{ field: fieldName, operator, type, values }]);
    }
  });
});
