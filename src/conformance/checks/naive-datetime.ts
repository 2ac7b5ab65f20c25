// Area "coercion": a datetime without a zone is UTC (seed §1), checked against data. A bound at the earliest datetime
// of the items, written without a zone, must select exactly what the same bound with `Z` selects; `le` at that bound
// holds at least one item and `ge` all of them, so a reading as local time (an offset either way) changes the answer.
// In a body: a datetime written without a zone is stored as that instant in UTC, and filters find it by either form.
import { serializeFilter } from '../../grammar/index.ts';
import { Skip, expect, expectStatus, type Check } from '../check.ts';
import { modelMatcher } from '../discriminate.ts';
import { discriminatingCases } from '../discriminating-fixtures.ts';

const sorted = (items: any[]) => items.map((i) => String(i.id)).sort().join(',');
const naive = (iso: string) => iso.replace(/Z$/, '');
const HOURS = 3;

export const naiveDatetimeChecks: Check[] = [
  {
    id: 'coercion.naive-datetime.query',
    area: 'coercion',
    title: 'Query: a datetime bound without zone selects exactly what the same bound with Z selects (on data around it)',
    statements: ['S1.coercion'],
    needs: ['state'],
    async run(ctx) {
      const data = await discriminatingCases(ctx);
      const list = ctx.spec.operation(data.operationId).list!;
      let checked = 0;
      for (const field of Object.values(list.filterFields).filter((f) => f.type === 'datetime')) {
        const instants = data.items.map((i) => i[field.name]).filter((v) => typeof v === 'string').map((v) => Date.parse(v)).filter(Number.isFinite);
        if (instants.length === 0) continue;
        const bound = new Date(Math.min(...instants)).toISOString();
        for (const operator of ['le', 'ge'].filter((o) => field.operators.includes(o))) {
          const model = data.items.filter(modelMatcher(field, operator, bound, ctx.spec.operators)!);
          // The answer a server reading the bound as local time (UTC-3h or UTC+3h) would give, by the model.
          const shift = (operator === 'le' ? -1 : 1) * HOURS * 3600_000;
          const local = data.items.filter(modelMatcher(field, operator, new Date(Date.parse(bound) + shift).toISOString(), ctx.spec.operators)!);
          if (sorted(local) === sorted(model)) throw new Skip(`not discriminated: ${field.name} ${operator} ${bound} selects the same items ${HOURS} hours away`);
          for (const value of [bound, naive(bound)]) {
            const filter = serializeFilter({ [field.name]: { [operator]: value } }, ctx.spec.operators).join('&');
            const r = await ctx.list(ctx.customer, data.operationId, data.params, `${data.scope}&${filter}&page[size]=200`);
            expect(sorted(r.items) === sorted(model), `${data.operationId}?${decodeURIComponent(filter)} (scoped to ${data.items.length} items): ${r.items.length} item(s), ${model.length} hold ${field.name} ${operator} ${bound}${sorted(r.items) === sorted(local) ? ': read as local time, not UTC' : ''}`, r.exchange);
          }
          checked++;
        }
      }
      if (checked === 0) throw new Skip('not discriminated: no datetime field with le or ge holds data');
      return `${checked} field/operator pairs, naive and Z bounds at the earliest item`;
    },
  },
  {
    id: 'coercion.naive-datetime.body',
    area: 'coercion',
    title: 'Body: a datetime without zone is stored as that instant in UTC, and filters find it with or without Z',
    statements: ['S1.coercion'],
    needs: ['writes'],
    async run(ctx) {
      const keyId = await ctx.fixtures.keyId();
      const op = 'listApiKeys';
      const field = Object.values(ctx.spec.operation(op).list!.filterFields).find((f) => f.type === 'datetime' && f.name === 'expiresAt');
      if (!field) throw new Skip('listApiKeys has no expiresAt filter');
      const instant = '2099-03-04T05:06:07.891Z';
      const x = await ctx.call(ctx.customer, 'updateApiKey', { keyId }, { json: { expiresAt: naive(instant) } });
      expectStatus(x, 200, `updateApiKey expiresAt ${naive(instant)}`);
      expect(Date.parse(x.json.data.expiresAt) === Date.parse(instant), `updateApiKey expiresAt "${naive(instant)}" should be stored as ${instant}, got ${x.json.data.expiresAt}`, x);
      for (const value of [instant, naive(instant)]) {
        const q = serializeFilter({ id: keyId, [field.name]: { eq: value } }, ctx.spec.operators).join('&');
        const r = await ctx.list(ctx.customer, op, {}, q);
        expect(r.items.length === 1, `${op}?${decodeURIComponent(q)} should find the key whose ${field.name} was set to "${naive(instant)}", got ${r.items.length} item(s)`, r.exchange);
      }
      const away = new Date(Date.parse(instant) + HOURS * 3600_000).toISOString();
      const r = await ctx.list(ctx.customer, op, {}, serializeFilter({ id: keyId, [field.name]: { eq: naive(away) } }, ctx.spec.operators).join('&'));
      expect(r.items.length === 0, `${op}: filter[${field.name}][eq]=${naive(away)} should not find the key stored at ${instant}`, r.exchange);
      return 'stored as UTC; found by Z and zone-less bounds';
    },
  },
];
