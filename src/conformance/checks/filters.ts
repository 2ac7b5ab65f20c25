// Area "filters": for every declared filterable field and every operator that applies to it, a request with a value
// taken from real data; the answer must be exactly the items the shared grammar says satisfy the filter (so every
// returned item satisfies it, and the complement is checked: a negative operator and its positive partition the
// list). Invalid field, operator or value: 400 with one error per problem. Several filters all apply.
import { matchesFilters, serializeFilter } from '../../grammar/index.ts';
import type { FilterFieldSpec } from '../../spec/types.ts';
import { Skip, expect, expectErrors, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { clausesOf } from '../grammar.ts';
import { expectEachRefused, perListOperation } from './lists.ts';

const isNull = (v: unknown) => v === null || v === undefined;
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The list as the suite will judge it: every item, when there are few enough to hold. */
async function snapshot(ctx: Context, op: string, params: Record<string, string>) {
  return ctx.memo(`snapshot:${op}`, () => ctx.listAll(ctx.customer, op, params));
}

/** A value for `field` `operator` taken from the data, or undefined when the data offers none. */
export function valueFor(field: FilterFieldSpec, operator: string, arity: string, items: any[], fields: Record<string, FilterFieldSpec>): unknown {
  if (arity === 'none') return true;
  if (arity === 'field') {
    // the names the description allows (D-105), else the list's fields of the same type (D-44)
    const allowed = field.operandNames[operator];
    const others = Object.values(fields).filter((f) => f.name !== field.name && (allowed ? allowed.includes(f.name) : f.type === field.type));
    // Prefer a field that sometimes holds the same value (createdAt and created), so both answers are non-trivial.
    const same = others.find((o) => items.some((i) => !isNull(i[field.name]) && i[field.name] === i[o.name]));
    return (same ?? others[0])?.name;
  }
  const raw = items.map((i) => i[field.name]).filter((v) => !isNull(v));
  const values = field.type === 'stringArray' ? raw.flat().filter((v) => typeof v === 'string') : raw;
  const distinct = [...new Set(values.map((v) => JSON.stringify(v)))].map((s) => JSON.parse(s)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (distinct.length === 0) return undefined;
  const mid = distinct[Math.floor(distinct.length / 2)];
  if (arity === 'list') {
    const withComma = distinct.find((v) => typeof v === 'string' && v.includes(','));
    return [...new Set([withComma ?? distinct[0], distinct[distinct.length - 1]])];
  }
  if (arity === 'pair') return distinct.length > 1 ? [distinct[0], mid] : [distinct[0], distinct[0]];
  if (field.type !== 'string' || typeof mid !== 'string') return mid;
  // Text operators: a part of a real value, so both the operator and its complement have members.
  const text = distinct.find((v) => typeof v === 'string' && v.length >= 4 && !/[*?]/.test(v)) ?? mid;
  switch (operator) {
    case 'contains': case 'notContains': return text.length > 4 ? text.slice(1, -1) : text;
    case 'startswith': case 'notStartswith': return text.slice(0, Math.min(6, text.length));
    case 'endswith': case 'notEndswith': return text.slice(-Math.min(6, text.length));
    case 'like': case 'notLike': return `${text.slice(0, 2)}*${text.length > 3 ? `${text.slice(3, 5)}*` : ''}`;
    case 'match': case 'notMatch': return `^${escapeRegex(text.slice(0, 3))}`;
    default: return mid;
  }
}

const ids = (items: any[]) => items.map((i) => i.id as string);
const sameSet = (a: string[], b: string[]) => a.length === b.length && new Set([...a, ...b]).size === a.length;

export const filterChecks: Check[] = [
  perListOperation({
    id: 'filters.operators',
    area: 'filters',
    title: 'Every filterable field with every operator that applies answers exactly the matching items',
    statements: ['S1.filter-forms', 'S1.filter-operators', 'S1.filter-semantics', 'D-21.declared-fields', 'D-22.semantics', 'D-23.commas'],
    async run(ctx, op, params) {
      const list = ctx.spec.operation(op).list!;
      const all = await snapshot(ctx, op, params);
      if (all.items.length === 0) throw new Skip(`${op} has no items to filter`);
      const answers = new Map<string, string[]>();
      let covered = 0;
      const uncovered: string[] = [];
      for (const field of Object.values(list.filterFields)) {
        for (const operator of field.operators) {
          const arity = ctx.spec.operators[operator]?.arity;
          const value = valueFor(field, operator, arity, all.items, list.filterFields);
          if (value === undefined) {
            uncovered.push(`${field.name}.${operator}`);
            continue;
          }
          const filter = serializeFilter({ [field.name]: { [operator]: value } }, ctx.spec.operators).join('&');
          const r = await ctx.list(ctx.customer, op, params, `${filter}&page[size]=200`);
          const clauses = clausesOf(ctx, op, filter);
          for (const item of r.items) {
            expect(matchesFilters(item, clauses, ctx.spec.operators), `${op}?${decodeURIComponent(filter)} returned ${item.id}, whose ${field.name} is ${JSON.stringify(item[field.name])}: it does not satisfy the filter`, r.exchange);
          }
          const expected = all.items.filter((i) => matchesFilters(i, clauses, ctx.spec.operators));
          if (all.complete) {
            expect(r.page.totalCount === expected.length, `${op}?${decodeURIComponent(filter)}: ${expected.length} of the ${all.items.length} items satisfy it, the answer's totalCount is ${r.page.totalCount}`, r.exchange);
            if (expected.length <= 200) {
              expect(sameSet(ids(r.items), ids(expected)), `${op}?${decodeURIComponent(filter)}: answered ${r.items.length} items, ${expected.length} satisfy it (missing: ${ids(expected).filter((id) => !ids(r.items).includes(id)).slice(0, 3).join(', ') || 'none'})`, r.exchange);
            }
          }
          answers.set(`${field.name}|${operator}|${JSON.stringify(value)}`, ids(r.items));
          covered++;
        }
      }
      // The complement: each negative operator and its positive, with the same value, partition the list.
      if (all.complete && all.items.length <= 200) {
        for (const [key, got] of answers) {
          const [field, operator, value] = key.split('|');
          const positive = ctx.spec.operators[operator]?.negationOf;
          const other = positive ? answers.get(`${field}|${positive}|${value}`) : undefined;
          if (!other) continue;
          const union = new Set([...got, ...other]);
          expect(union.size === got.length + other.length && union.size === all.items.length,
            `${op}: filter[${field}][${operator}] (${got.length} items) and filter[${field}][${positive}] (${other.length} items) with ${value} should partition the ${all.items.length} items`);
        }
      }
      return `${covered} field/operator pairs${uncovered.length ? `; no data for ${uncovered.length} (${uncovered.slice(0, 4).join(', ')}${uncovered.length > 4 ? ', …' : ''})` : ''}`;
    },
  }),
  perListOperation({
    id: 'filters.shorthand',
    area: 'filters',
    title: 'filter[field]=value means eq; a no-value operator works with and without "="',
    statements: ['S1.filter-forms'],
    async run(ctx, op, params) {
      const list = ctx.spec.operation(op).list!;
      const all = await snapshot(ctx, op, params);
      const field = Object.values(list.filterFields).find((f) => f.operators.includes('eq') && all.items.some((i) => !isNull(i[f.name])));
      if (!field) throw new Skip(`${op} has no data for an eq filter`);
      const value = all.items.find((i) => !isNull(i[field.name]))[field.name];
      const v = encodeURIComponent(String(value));
      const short = await ctx.list(ctx.customer, op, params, `filter[${field.name}]=${v}&page[size]=200`);
      const long = await ctx.list(ctx.customer, op, params, `filter[${field.name}][eq]=${v}&page[size]=200`);
      expect(sameSet(ids(short.items), ids(long.items)) && short.items.length > 0, `${op}: filter[${field.name}]=${value} answered ${short.items.length} items, filter[${field.name}][eq]=${value} ${long.items.length}`, short.exchange);
      const bare = await ctx.list(ctx.customer, op, params, `filter[${field.name}][notNull]&page[size]=200`);
      const empty = await ctx.list(ctx.customer, op, params, `filter[${field.name}][notNull]=&page[size]=200`);
      expect(sameSet(ids(bare.items), ids(empty.items)), `${op}: filter[${field.name}][notNull] and filter[${field.name}][notNull]= differ`, empty.exchange);
    },
  }),
  perListOperation({
    id: 'filters.combined',
    area: 'filters',
    title: 'Several filters in one request all apply (AND)',
    statements: ['S1.filter-combined'],
    async run(ctx, op, params) {
      const list = ctx.spec.operation(op).list!;
      const all = await snapshot(ctx, op, params);
      const fields = Object.values(list.filterFields).filter((f) => f.operators.includes('ne') && f.name !== 'id' && all.items.some((i) => !isNull(i[f.name])));
      if (fields.length < 2 || all.items.length < 2 || !all.complete) throw new Skip(`${op} answers ${all.items.length} item(s) to this account: too few to tell two filters apart`);
      const [a, b] = fields;
      const va = all.items.find((i) => !isNull(i[a.name]))[a.name];
      const vb = all.items.filter((i) => !isNull(i[b.name])).at(-1)[b.name];
      const filter = serializeFilter({ [a.name]: { ne: va }, [b.name]: { ne: vb } }, ctx.spec.operators).join('&');
      const r = await ctx.list(ctx.customer, op, params, `${filter}&page[size]=200`);
      const clauses = clausesOf(ctx, op, filter);
      const expected = all.items.filter((i) => matchesFilters(i, clauses, ctx.spec.operators));
      expect(sameSet(ids(r.items), ids(expected)), `${op}?${decodeURIComponent(filter)}: ${expected.length} items satisfy both filters, the answer holds ${r.items.length}`, r.exchange);
    },
  }),
  perListOperation({
    id: 'filters.operand-names',
    area: 'filters',
    title: 'sameas and notSameas take every field name the description lists for them and refuse one it leaves out',
    statements: ['D-105.operand-schemas', 'D-44.grammar-errors'],
    async run(ctx, op, params) {
      const fields = Object.values(ctx.spec.operation(op).list!.filterFields);
      let taken = 0;
      for (const field of fields) {
        for (const [operator, names] of Object.entries(field.operandNames)) {
          for (const name of names) {
            const query = `filter[${field.name}][${operator}]=${encodeURIComponent(name)}&page[size]=1`;
            const x = await ctx.call(ctx.customer, op, params, { query });
            expect(x.status === 200, `${op}?${query}: the description lists ${name} for ${operator} on ${field.name}, the answer is ${x.status}`, x);
            taken++;
          }
          const outside = fields.find((other) => !names.includes(other.name));
          if (outside) await expectEachRefused(ctx, op, params, [`filter[${field.name}][${operator}]=${outside.name}`], 'query.filter');
        }
      }
      if (taken === 0) throw new Skip(`${op}: the description lists no operand names (a bundle before D-105)`);
      return `${taken} operand names taken`;
    },
  }),
  perListOperation({
    id: 'filters.invalid',
    area: 'filters',
    title: 'An invalid field, operator or value is 400 with one error object per problem',
    statements: ['S1.filter-invalid', 'S7.status-400', 'S7.error-object', 'D-44.grammar-errors', 'D-105.operand-schemas'],
    async run(ctx, op, params) {
      const list = ctx.spec.operation(op).list!;
      const fields = Object.values(list.filterFields);
      const bad: string[] = ['filter[conformanceNoSuchField]=1', `filter[${fields[0].name}][conformanceNoSuchOperator]=1`];
      const narrow = fields.find((f) => f.operators.length < Object.keys(ctx.spec.operators).length);
      if (narrow) {
        const refused = Object.keys(ctx.spec.operators).find((o) => !narrow.operators.includes(o) && ctx.spec.operators[o].arity === 'single');
        if (refused) bad.push(`filter[${narrow.name}][${refused}]=1`);
      }
      const typed = (type: string) => fields.find((f) => f.type === type);
      const int = typed('integer');
      // An integer operand lies within ±(2^53 − 1) (D-105): one past it would be rounded by a double.
      if (int) bad.push(`filter[${int.name}][eq]=conformance`, `filter[${int.name}][between]=1`, `filter[${int.name}][eq]=9007199254740992`);
      // A list value admits the escapes \, and \\ only (D-23, D-105).
      const textField = fields.find((f) => f.type === 'string' && f.operators.includes('in'));
      if (textField) bad.push(`filter[${textField.name}][in]=a%5Cq,b`);
      const dt = typed('datetime');
      if (dt) bad.push(`filter[${dt.name}][gt]=yesterday`);
      const bool = typed('boolean');
      if (bool) bad.push(`filter[${bool.name}]=maybe`);
      const str = fields.find((f) => f.type === 'string' && f.operators.includes('match'));
      if (str) bad.push(`filter[${str.name}][match]=(unclosed`);
      await expectEachRefused(ctx, op, params, bad, 'query.filter');
      // Two problems, two error objects: never one merged message.
      const two = `${bad[0]}&${bad[bad.length - 1]}`;
      const x = await ctx.call(ctx.customer, op, params, { query: two });
      expectErrors(x, 400, `${op}?${two}`, 2);
      return `${bad.length + 1} invalid queries`;
    },
  }),
];
