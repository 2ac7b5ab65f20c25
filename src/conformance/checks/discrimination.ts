// Area "filters", check "filters.discriminated": for every declared field and operator of the lists the suite can
// build data for (cases, and comments of a case), values chosen so that the model (src/grammar's evaluator) answers
// differently from each neighbouring reading of the operator (src/conformance/discriminate.ts); the target must answer
// exactly the model's set, scoped to the fixture items. Where no value of the data tells the operator from a
// neighbour, the result is "not discriminated" with the reason (a skip, never a pass); where the description itself
// makes two readings equal (a field that is never null, never empty), that is said in the note.
import { serializeFilter } from '../../grammar/index.ts';
import type { FilterFieldSpec } from '../../spec/types.ts';
import { Skip, expect, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { NOT_DISCRIMINATED, candidatesFor, chooseValues, modelMatcher, neighboursOf } from '../discriminate.ts';
import { canBeEmpty, canBeNull, isReference, discriminatingCases, discriminatingComments, type DiscriminatingData } from '../discriminating-fixtures.ts';

/** The lists the suite builds discriminating data for; their fields and operators come from the description. */
const SOURCES: Record<string, (ctx: Context) => Promise<DiscriminatingData>> = {
  listCases: discriminatingCases,
  listCaseComments: discriminatingComments,
};

const NULLISH = ['null', 'empty', 'notExists'];

/** Do `a` and `b` (of null, empty, notExists) answer the same on every value the description allows? */
function describedSame(ctx: Context, op: string, field: FilterFieldSpec, a: string, b: string): boolean {
  const { nullable, absent } = canBeNull(ctx, op, field);
  const empty = canBeEmpty(ctx, op, field);
  const pair = new Set([a, b]);
  if (pair.has('null') && pair.has('notExists')) return !nullable && !absent;
  if (pair.has('null') && pair.has('empty')) return !empty;
  if (pair.has('empty') && pair.has('notExists')) return !empty && !nullable && !absent;
  return false;
}

const base = (operator: string, ctx: Context) => (operator === 'notExists' ? operator : ctx.spec.operators[operator]?.negationOf ?? operator);
const strip = (name: string) => name.replace(/^not /, '');

/** Does this filter name, by equality, a contract the account does not control (decision D-30)? */
async function namesForeignContract(ctx: Context, field: FilterFieldSpec, operator: string, value: unknown): Promise<boolean> {
  if (!['eq', 'in'].includes(operator) || !isReference(ctx, field.name)) return false;
  const own = await ctx.fixtures.controlledContracts();
  return (Array.isArray(value) ? value : [value]).some((v) => !own.has(String(v)));
}

const ids = (items: any[]) => items.map((i) => String(i.id)).sort();

export const discriminationChecks: Check[] = [
  {
    id: 'filters.discriminated',
    area: 'filters',
    title: 'Each operator on each field is told apart from its neighbours on data built for it, and answers exactly the model',
    statements: ['S1.filter-operators', 'S1.filter-semantics', 'D-21.declared-fields', 'D-22.semantics', 'D-30.contract-filter'],
    needs: ['state'],
    cases(ctx) {
      const keys: string[] = [];
      for (const op of Object.keys(SOURCES)) {
        if (!ctx.operations().some((o) => o.operationId === op)) continue;
        for (const field of Object.values(ctx.spec.operation(op).list!.filterFields)) {
          for (const operator of field.operators) keys.push(`${op}:${field.name}.${operator}`);
        }
      }
      return keys;
    },
    async run(ctx, key) {
      const [op, rest] = key!.split(':');
      const dot = rest.indexOf('.');
      const fieldName = rest.slice(0, dot);
      const operator = rest.slice(dot + 1);
      const data = await SOURCES[op](ctx);
      const fields = Object.values(ctx.spec.operation(op).list!.filterFields);
      const field = fields.find((f) => f.name === fieldName)!;
      const arity = ctx.spec.operators[operator].arity;
      const verdict = chooseValues(data.items, field, operator, candidatesFor(data.items, field, arity, fields), ctx.spec.operators);
      if (verdict.chosen.length === 0) throw new Skip(`${NOT_DISCRIMINATED}: no ${field.name} value in the data (${data.source}) to test ${operator} with`);
      const neighbours = neighboursOf(field, operator, ctx.spec.operators);
      for (const value of verdict.chosen) {
        const filter = serializeFilter({ [field.name]: { [operator]: value } }, ctx.spec.operators).join('&');
        const scope = field.name === 'id' && (operator === 'in' || operator === 'notIn') ? data.scopeWithoutId : data.scope;
        const query = [scope, filter, 'page[size]=200'].filter(Boolean).join('&');
        if (await namesForeignContract(ctx, field, operator, value)) {
          // D-30: equality on a contract the account does not control is 403, which no neighbour answers either.
          expectStatus(await ctx.call(ctx.customer, op, data.params, { query }), 403, `${op}?${decodeURIComponent(filter)} (a contract the account does not control, D-30)`);
          continue;
        }
        const r = await ctx.list(ctx.customer, op, data.params, query);
        const expected = ids(data.items.filter(modelMatcher(field, operator, value, ctx.spec.operators)!));
        const got = ids(r.items);
        if (JSON.stringify(got) !== JSON.stringify(expected)) {
          const like = neighbours.find((n) => {
            const m = n.matcher(value);
            return m && JSON.stringify(ids(data.items.filter(m))) === JSON.stringify(got);
          });
          expect(false, `${op}?${decodeURIComponent(filter)} (scoped to the fixture items): expected ${expected.length} item(s) [${expected.slice(0, 5).join(', ')}], got ${got.length} [${got.slice(0, 5).join(', ')}]${like ? `: answered as "${like.name}" would` : ''}`, r.exchange);
        }
      }
      const same: string[] = [];
      const open: string[] = [];
      for (const name of verdict.undiscriminated) {
        const b = strip(name);
        if (NULLISH.includes(b) && describedSame(ctx, op, field, base(operator, ctx), b)) same.push(name);
        else open.push(name);
      }
      if (open.length) {
        throw new Skip(`${NOT_DISCRIMINATED}: no ${field.name} value in the data (${data.source}) makes ${operator} answer differently from ${open.map((n) => `"${n}"`).join(', ')}`);
      }
      const told = neighbours.length - same.length;
      return `${verdict.chosen.length} value(s); told apart from ${told} neighbour(s)${same.length ? `; the same as ${same.join(', ')} by the description (${field.name} is never null or empty)` : ''}`;
    },
  },
];
