// serializeListQuery and careQuerySerializer against literal expected query strings.
import { describe, expect, it } from 'vitest';
import { careQuerySerializer, fallbackArity, formatValue, serializeListQuery } from '../src/grammar/index.ts';
import { loadSpec } from '../src/spec/index.ts';

const spec = loadSpec();

describe('serializeListQuery', () => {
  it('writes the seed shapes with literal brackets and commas', () => {
    expect(serializeListQuery({ page: { number: 2, size: 50 } })).toBe('page[number]=2&page[size]=50');
    expect(serializeListQuery({ sort: ['status', '-created'] })).toBe('sort=status,-created');
    expect(serializeListQuery({ sort: 'status,-created' })).toBe('sort=status,-created');
    expect(serializeListQuery({ sort: [{ field: 'status', descending: false }, { field: 'created', descending: true }] })).toBe('sort=status,-created');
    expect(serializeListQuery({ filter: { status: 10 } })).toBe('filter[status]=10');
    expect(serializeListQuery({ filter: { priority: { in: [1, 2] } } })).toBe('filter[priority][in]=1,2');
    expect(serializeListQuery({ filter: { incident: { notNull: true } } })).toBe('filter[incident][notNull]');
    expect(serializeListQuery({ filter: { createdAt: { ge: '2026-01-01' } } })).toBe('filter[createdAt][ge]=2026-01-01');
  });

  it('writes the FilterInput example of the brief', () => {
    const query = serializeListQuery({
      page: { number: 1, size: 200 },
      sort: ['-createdAt'],
      filter: {
        status: 10, priority: { in: [1, 2] }, incident: { notNull: true },
        createdAt: { between: ['2026-01-01', new Date('2026-02-01T00:00:00Z')] },
      },
    });
    expect(query).toBe(
      'page[number]=1&page[size]=200&sort=-createdAt&filter[status]=10&filter[priority][in]=1,2&filter[incident][notNull]&' +
        'filter[createdAt][between]=2026-01-01,2026-02-01T00%3A00%3A00.000Z',
    );
  });

  it('percent-encodes values, escapes commas and backslashes inside list values only', () => {
    expect(serializeListQuery({ filter: { shortDescription: 'a,b & c=d #1 +x [y]' } })).toBe('filter[shortDescription]=a%2Cb%20%26%20c%3Dd%20%231%20%2Bx%20%5By%5D');
    expect(serializeListQuery({ filter: { shortDescription: { in: ['a,b', 'c\\', ''] } } })).toBe('filter[shortDescription][in]=a%5C%2Cb,c%5C%5C,');
    expect(serializeListQuery({ filter: { shortDescription: { contains: '😀é' } } })).toBe('filter[shortDescription][contains]=%F0%9F%98%80%C3%A9');
    expect(serializeListQuery({ filter: { shortDescription: { eq: 'back\\slash' } } })).toBe('filter[shortDescription][eq]=back%5Cslash');
  });

  it('writes booleans as true/false, Dates as ISO strings, and leaves out false, null and undefined', () => {
    expect(serializeListQuery({ filter: { enabled: true, partnerComment: { ne: false } } })).toBe('filter[enabled]=true&filter[partnerComment][ne]=false');
    expect(serializeListQuery({ filter: { createdAt: new Date(0) } })).toBe('filter[createdAt]=1970-01-01T00%3A00%3A00.000Z');
    expect(serializeListQuery({ filter: { incident: { notNull: false, null: undefined }, contract: null, status: undefined } })).toBe('');
    expect(serializeListQuery({})).toBe('');
  });

  it('reads a top-level array as in, and a scalar given to a list operator as a one-value list', () => {
    expect(serializeListQuery({ filter: { priority: [1, 2] } })).toBe('filter[priority][in]=1,2');
    expect(serializeListQuery({ filter: { status: { in: 5 } } })).toBe('filter[status][in]=5');
    expect(serializeListQuery({ filter: { shortDescription: { notIn: 'a,b' } } })).toBe('filter[shortDescription][notIn]=a%5C%2Cb');
  });

  it('refuses what cannot be written', () => {
    expect(() => serializeListQuery({ filter: { priority: { in: [] } } })).toThrow(/at least one value/);
    expect(() => serializeListQuery({ filter: { status: { eq: { x: 1 } } } })).toThrow(TypeError);
    expect(() => formatValue(Symbol('x'))).toThrow(TypeError);
    expect(() => serializeListQuery({ filter: { incident: { notNull: 'yes' } } })).toThrow(/takes no value/);
  });

  it('uses the declared arities when given, and its naming fallback agrees with all 28 of them', () => {
    for (const op of Object.values(spec.operators)) expect(fallbackArity(op.name), op.name).toBe(op.arity);
    const arities = { ...spec.operators, custom: { arity: 'none' as const } };
    expect(serializeListQuery({ filter: { incident: { custom: true } } }, arities)).toBe('filter[incident][custom]');
    expect(serializeListQuery({ filter: { incident: { custom: true } } })).toBe('filter[incident][custom]=true');
  });
});

describe('careQuerySerializer (openapi-fetch querySerializer)', () => {
  it('writes page, sort and filter in the grammar and other parameters form-style', () => {
    expect(careQuerySerializer({
      page: { number: 3 }, sort: ['-createdAt', 'id'], filter: { status: { in: [1, 10] }, incident: { null: true } },
      q: 'a b', ids: ['x', 'y,z'], nested: { a: 1, b: undefined }, skipped: undefined, nothing: null, flag: false,
    })).toBe('page[number]=3&sort=-createdAt,id&filter[status][in]=1,10&filter[incident][null]&q=a%20b&ids=x,y%2Cz&nested[a]=1&flag=false');
    expect(careQuerySerializer(undefined)).toBe('');
    expect(careQuerySerializer({})).toBe('');
    expect(careQuerySerializer({ sort: [] })).toBe('');
  });
});
