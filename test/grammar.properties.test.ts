// Property tests (fast-check): serialize then parse gives back the same query for every declared field, applicable
// operator and value; evaluation laws (negations partition, operator equivalences, a total sort order).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareBySort, matchesClause, parseListQuery, serializeListQuery } from '../src/grammar/index.ts';
import { datetimeMillis, isoFromMillis } from '../src/grammar/coerce.ts';
import type { FilterClause, SortKey } from '../src/grammar/index.ts';
import { loadSpec } from '../src/spec/index.ts';
import type { FilterFieldSpec, ListSpec, ValueType } from '../src/spec/index.ts';

const spec = loadSpec();
const lists: ListSpec[] = spec.operations.filter((op) => op.list).map((op) => op.list!);
const RUNS = { numRuns: 300 };

// Strings rich in what breaks query strings and lists: separators, escapes, brackets, percent, astral characters.
const tricky = fc.constantFrom(',', '\\', '[', ']', '&', '=', '%', '%2C', '+', '#', '?', '*', ' ', '\u0000', 'é', '😀', '\uFFFF', 'a', 'Z');
const anyString = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: tricky, maxLength: 8 }));
const escapeRegex = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/** A value for a field of `type` as a client passes it, and the value the grammar must read back. */
function valueOf(type: ValueType): fc.Arbitrary<{ input: unknown; expected: string | number | boolean }> {
  switch (type) {
    case 'integer':
      return fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map((n) => ({ input: n, expected: n }));
    case 'boolean':
      return fc.boolean().map((b) => ({ input: b, expected: b }));
    case 'datetime':
      return fc
        .date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
        .chain((date) => fc.constantFrom<unknown>(date, date.toISOString()).map((input) => ({ input, expected: date.toISOString() })));
    default:
      return anyString.map((s) => ({ input: s, expected: s }));
  }
}

/** One clause a client may write: a declared field, an operator that applies to it, and values of the right kind. */
function clauseFor(list: ListSpec, field: FilterFieldSpec): fc.Arbitrary<{ operator: string; input: unknown; expected: unknown[] }> {
  return fc.constantFrom(...field.operators).chain((operator) => {
    const arity = spec.operators[operator].arity;
    const value = valueOf(field.type);
    switch (arity) {
      case 'none':
        return fc.constant({ operator, input: true, expected: [] });
      case 'field': {
        const sameType = Object.values(list.filterFields).filter((f) => f.type === field.type).map((f) => f.name);
        return fc.constantFrom(...sameType).map((name) => ({ operator, input: name, expected: [name] }));
      }
      case 'list':
        return fc.array(value, { minLength: 1, maxLength: 5 }).map((vs) => ({ operator, input: vs.map((v) => v.input), expected: vs.map((v) => v.expected) }));
      case 'pair':
        return fc.tuple(value, value).map(([a, b]) => ({ operator, input: [a.input, b.input], expected: [a.expected, b.expected] }));
      default:
        if (operator === 'match' || operator === 'notMatch') {
          return anyString.map((s) => ({ operator, input: escapeRegex(s), expected: [escapeRegex(s)] }));
        }
        return value.map((v) => ({ operator, input: v.input, expected: [v.expected] }));
    }
  });
}

describe('serialize then parse', () => {
  it.each(lists.map((list) => [list.operationId, list] as const))('%s: one filter on any field, operator and value', (_, list) => {
    const fields = Object.values(list.filterFields);
    fc.assert(
      fc.property(fc.constantFrom(...fields).chain((field) => clauseFor(list, field).map((clause) => ({ field, clause }))), ({ field, clause }) => {
        const query = serializeListQuery({ filter: { [field.name]: { [clause.operator]: clause.input } } }, spec.operators);
        const parsed = parseListQuery(query, list, spec.operators);
        expect(parsed.errors, query).toEqual([]);
        expect(parsed.query.filters).toEqual([{ field: field.name, operator: clause.operator, type: field.type, values: clause.expected }]);
      }),
      RUNS,
    );
  });

  it.each(lists.map((list) => [list.operationId, list] as const))('%s: several filters, a sort and a page at once', (_, list) => {
    const fields = Object.values(list.filterFields);
    const filters = fc.uniqueArray(fc.constantFrom(...fields), { minLength: 1, maxLength: fields.length, selector: (f) => f.name })
      .chain((chosen) => fc.tuple(...chosen.map((field) => clauseFor(list, field).map((clause) => ({ field, clause })))));
    const sort = fc.uniqueArray(fc.constantFrom(...list.sortFields), { maxLength: list.sortFields.length })
      .chain((names) => fc.tuple(...names.map((name) => fc.boolean().map((descending) => ({ field: name, descending })))));
    const page = fc.record({ number: fc.integer({ min: 1, max: 1_000_000 }), size: fc.integer({ min: 1, max: 200 }) });
    fc.assert(
      fc.property(filters, sort, page, (chosen, keys, pageInput) => {
        const filter = Object.fromEntries(chosen.map(({ field, clause }) => [field.name, { [clause.operator]: clause.input }]));
        const query = serializeListQuery({ page: pageInput, sort: keys as SortKey[], filter }, spec.operators);
        const parsed = parseListQuery(query, list, spec.operators);
        expect(parsed.errors, query).toEqual([]);
        expect(parsed.query.page).toEqual(pageInput);
        expect(parsed.query.sort.map(({ field, descending }) => ({ field, descending }))).toEqual(keys);
        expect(parsed.query.filters).toEqual(chosen.map(({ field, clause }) => ({ field: field.name, operator: clause.operator, type: field.type, values: clause.expected })));
      }),
      { numRuns: 100 },
    );
  });

  it('eq shorthand and list values survive with commas, backslashes and brackets', () => {
    const list = spec.operation('listCases').list!;
    fc.assert(
      fc.property(anyString, fc.array(anyString, { minLength: 1, maxLength: 4 }), (single, many) => {
        const query = serializeListQuery({ filter: { shortDescription: single, contact: { in: many } } });
        const parsed = parseListQuery(query, list, spec.operators);
        expect(parsed.errors).toEqual([]);
        expect(parsed.query.filters.map((f) => f.values)).toEqual([[single], many]);
      }),
      RUNS,
    );
  });
});

describe('datetime arithmetic', () => {
  it('writes and reads every instant of years 0000-9999 exactly as Date does', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }), (date) => {
        const millis = date.getTime();
        const iso = new Date(millis).toISOString();
        expect(isoFromMillis(millis)).toBe(iso);
        expect(datetimeMillis(iso)).toEqual({ ok: true, value: millis });
      }),
      { numRuns: 2000 },
    );
  });
});

// --- evaluation laws ------------------------------------------------------------------------------------------------

const caseList = spec.operation('listCases').list!;
const small = fc.constantFrom('', 'a', 'ab', 'b', 'A', 'é', '😀', '\uFFFF', 'a*', 'a?b', 'ba');
const instants = ['2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00+01:00', '2026-01-02T00:00:00.000Z', '2025-12-31T23:59:59.999Z'];

function rawValueOf(type: ValueType): fc.Arbitrary<unknown> {
  switch (type) {
    case 'integer': return fc.integer({ min: -2, max: 3 });
    case 'boolean': return fc.boolean();
    case 'datetime': return fc.constantFrom(...instants);
    case 'stringArray': return fc.array(small, { maxLength: 3 });
    default: return small;
  }
}

/** An item whose declared fields are each absent, null, or a value of the field's type. */
const itemArb = fc.record(
  Object.fromEntries(Object.values(caseList.filterFields).map((field) => [
    field.name,
    fc.oneof({ weight: 1, arbitrary: fc.constant('absent') }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: rawValueOf(field.type) }),
  ])),
).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== 'absent')) as Record<string, unknown>);
const itemsArb = fc.array(itemArb, { minLength: 1, maxLength: 12 }).map((items) =>
  items.map((item, index): Record<string, unknown> => ({ ...item, id: `C${String(index).padStart(3, '0')}` })),
);

/** A clause built as the parser builds it (values already of the field's type). */
function typedValue(type: ValueType): fc.Arbitrary<string | number | boolean> {
  switch (type) {
    case 'integer': return fc.integer({ min: -2, max: 3 });
    case 'boolean': return fc.boolean();
    case 'datetime': return fc.constantFrom(...instants).map((v) => new Date(v).toISOString());
    default: return small;
  }
}
const clauseArb: fc.Arbitrary<FilterClause> = fc.constantFrom(...Object.values(caseList.filterFields)).chain((field) =>
  fc.constantFrom(...field.operators).chain((operator) => {
    const arity = spec.operators[operator].arity;
    const base = { field: field.name, operator, type: field.type };
    if (arity === 'none') return fc.constant({ ...base, values: [] });
    if (arity === 'field') {
      const same = Object.values(caseList.filterFields).filter((f) => f.type === field.type).map((f) => f.name);
      return fc.constantFrom(...same).map((name) => ({ ...base, values: [name] }));
    }
    const count = arity === 'pair' ? fc.constant(2) : arity === 'list' ? fc.integer({ min: 1, max: 3 }) : fc.constant(1);
    return count.chain((n) => fc.array(typedValue(field.type), { minLength: n, maxLength: n })).map((values) => ({ ...base, values }));
  }),
);

const match = (item: Record<string, unknown>, clause: FilterClause) => matchesClause(item, clause, spec.operators);

describe('evaluation laws', () => {
  it('every negative operator is the exact complement of its positive one: the two partition any list', () => {
    const negative = clauseArb.filter((clause) => spec.operators[clause.operator].negationOf !== null);
    fc.assert(
      fc.property(itemsArb, negative, (items, clause) => {
        const positive = { ...clause, operator: spec.operators[clause.operator].negationOf! };
        const yes = items.filter((item) => match(item, positive)).map((item) => item.id);
        const no = items.filter((item) => match(item, clause)).map((item) => item.id);
        expect([...yes, ...no].sort()).toEqual(items.map((item) => item.id));
        expect(yes.filter((id) => no.includes(id))).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('null values satisfy no positive comparison and every negative one', () => {
    fc.assert(
      fc.property(clauseArb.filter((c) => !['null', 'empty', 'exists', 'sameas'].includes(c.operator) && spec.operators[c.operator].negationOf === null), (clause) => {
        expect(match({ [clause.field]: null }, clause)).toBe(false);
        expect(match({}, clause)).toBe(false);
        const negation = Object.values(spec.operators).find((op) => op.negationOf === clause.operator);
        if (negation) {
          expect(match({ [clause.field]: null }, { ...clause, operator: negation.name })).toBe(true);
          expect(match({}, { ...clause, operator: negation.name })).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('in is eq on any of the values; between is ge and le; lt is not ge on values', () => {
    const ordered = Object.values(caseList.filterFields).filter((f) => f.operators.includes('between'));
    fc.assert(
      fc.property(
        itemArb,
        fc.constantFrom(...ordered).chain((field) => fc.tuple(fc.constant(field), typedValue(field.type), typedValue(field.type), typedValue(field.type))),
        (item, [field, a, b, c]) => {
          const clause = (operator: string, values: FilterClause['values']) => ({ field: field.name, operator, type: field.type, values });
          expect(match(item, clause('in', [a, b, c]))).toBe([a, b, c].some((v) => match(item, clause('eq', [v]))));
          expect(match(item, clause('between', [a, b]))).toBe(match(item, clause('ge', [a])) && match(item, clause('le', [b])));
          const value = item[field.name];
          if (value !== null && value !== undefined) {
            expect(match(item, clause('lt', [a]))).toBe(!match(item, clause('ge', [a])));
            expect(match(item, clause('le', [a]))).toBe(match(item, clause('lt', [a])) || match(item, clause('eq', [a])));
          }
        },
      ),
      RUNS,
    );
  });

  it('like, startswith, endswith, contains and match agree where they mean the same', () => {
    const textFields = Object.values(caseList.filterFields).filter((f) => f.type === 'string').map((f) => f.name);
    const plain = small.filter((s) => !/[*?]/.test(s));
    fc.assert(
      fc.property(itemArb, fc.constantFrom(...textFields), plain, (item, field, s) => {
        const clause = (operator: string, value: string) => ({ field, operator, type: 'string' as const, values: [value] });
        expect(match(item, clause('like', s))).toBe(match(item, clause('eq', s)));
        expect(match(item, clause('like', `*${s}*`))).toBe(match(item, clause('contains', s)));
        expect(match(item, clause('like', `${s}*`))).toBe(match(item, clause('startswith', s)));
        expect(match(item, clause('like', `*${s}`))).toBe(match(item, clause('endswith', s)));
        expect(match(item, clause('match', escapeRegex(s)))).toBe(match(item, clause('contains', s)));
        expect(match(item, clause('match', `^${escapeRegex(s)}$`))).toBe(match(item, clause('eq', s)));
      }),
      RUNS,
    );
  });

  it('like and match take any literal text (every ASCII punctuation, astral characters)', () => {
    const punctuation = fc.constantFrom(...'!"#$%&\'()+,-./:;<=>@[\\]^_`{|}~ aZ0é😀\u0000\n'.split(''));
    // Text is well-formed Unicode (D-82): half a surrogate pair reaches no filter over HTTP, and it is not text.
    const literal = fc.oneof(fc.string({ unit: punctuation, maxLength: 10 }), fc.string({ unit: 'binary', maxLength: 10 }))
      .filter((s) => !/[*?]/.test(s) && !/\p{Cs}/u.test(s));
    fc.assert(
      fc.property(literal, literal, (pattern, value) => {
        const item = { shortDescription: value };
        const clause = (operator: string, text: string): FilterClause => ({ field: 'shortDescription', operator, type: 'string', values: [text] });
        expect(match(item, clause('like', pattern))).toBe(value === pattern);
        expect(match({ shortDescription: pattern }, clause('like', pattern))).toBe(true);
        expect(match({ shortDescription: `${value}${pattern}` }, clause('like', `*${pattern}`))).toBe(true);
        expect(match(item, clause('match', escapeRegex(pattern)))).toBe(value.includes(pattern));
      }),
      { numRuns: 500 },
    );
  });

  it('the sort order is total: antisymmetric, transitive, and only an item equals itself (ties by id)', () => {
    const keys = fc.uniqueArray(fc.constantFrom(...caseList.sortFields), { maxLength: 3 })
      .chain((names) => fc.tuple(...names.map((name) => fc.boolean().map((descending): SortKey => ({ field: name, descending, type: caseList.filterFields[name]?.type })))));
    fc.assert(
      fc.property(itemsArb, keys, (items, sort) => {
        const cmp = (a: Record<string, unknown>, b: Record<string, unknown>) => Math.sign(compareBySort(a, b, sort));
        for (const a of items) {
          for (const b of items) {
            expect(cmp(a, b)).toBe(-cmp(b, a) || 0);
            expect(cmp(a, b) === 0).toBe(a.id === b.id);
            for (const c of items) if (cmp(a, b) <= 0 && cmp(b, c) <= 0) expect(cmp(a, c)).toBeLessThanOrEqual(0);
          }
        }
        const sorted = [...items].sort((a, b) => compareBySort(a, b, sort));
        for (let i = 1; i < sorted.length; i++) {
          const [key] = sort;
          if (!key) continue;
          const previous = sorted[i - 1][key.field];
          const current = sorted[i][key.field];
          const isNull = (v: unknown) => v === null || v === undefined;
          // null first ascending, last descending
          if (isNull(current) && !isNull(previous)) expect(key.descending).toBe(true);
          if (isNull(previous) && !isNull(current)) expect(key.descending).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});
