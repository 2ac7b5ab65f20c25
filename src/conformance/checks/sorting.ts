// Area "sorting": every sortable field ascending and descending, and two keys, verified on the returned data with
// the shared grammar's comparator (D-28: null first ascending, ties by id); an invalid field is 400.
import { compareBySort } from '../../grammar/index.ts';
import { expect, type Check } from '../check.ts';
import type { Context, ListResult } from '../context.ts';
import { sortKeysOf } from '../grammar.ts';
import { expectEachRefused, perListOperation } from './lists.ts';

function assertOrdered(ctx: Context, op: string, sort: string, r: ListResult, label = `sort=${sort}`) {
  const keys = sortKeysOf(ctx, op, `sort=${sort}`);
  for (let i = 1; i < r.items.length; i++) {
    const [a, b] = [r.items[i - 1], r.items[i]];
    expect(compareBySort(a, b, keys) <= 0,
      `${op}?${label}: item ${i} (${a.id}, ${keys.map((k) => `${k.field}=${JSON.stringify(a[k.field])}`).join(', ')}) comes before item ${i + 1} (${b.id}, ${keys.map((k) => `${k.field}=${JSON.stringify(b[k.field])}`).join(', ')}) but sorts after it`, r.exchange);
  }
}

export const sortingChecks: Check[] = [
  perListOperation({
    id: 'sorting.fields',
    area: 'sorting',
    title: 'The default order, every sortable field ascending and descending, and two keys, order the data',
    statements: ['S1.sort', 'D-21.declared-fields', 'D-28.sorting'],
    async run(ctx, op, params) {
      const list = ctx.spec.operation(op).list!;
      // Without sort the order is id ascending (D-28), so pages are stable.
      assertOrdered(ctx, op, 'id', await ctx.list(ctx.customer, op, params, 'page[size]=200'), 'page[size]=200 (no sort: id ascending, D-28)');
      let distinctOrders = 0;
      for (const field of list.sortFields) {
        const up = await ctx.list(ctx.customer, op, params, `sort=${field}&page[size]=200`);
        assertOrdered(ctx, op, field, up);
        const down = await ctx.list(ctx.customer, op, params, `sort=-${field}&page[size]=200`);
        assertOrdered(ctx, op, `-${field}`, down);
        if (up.items.length > 1 && up.items[0].id !== down.items[0].id) distinctOrders++;
      }
      const [first, second] = list.sortFields.filter((f) => f !== 'id');
      if (first && second) {
        const two = `${first},-${second}`;
        assertOrdered(ctx, op, two, await ctx.list(ctx.customer, op, params, `sort=${two}&page[size]=200`));
      }
      return `${list.sortFields.length} fields, ${distinctOrders} with a visible difference between ascending and descending`;
    },
  }),
  perListOperation({
    id: 'sorting.invalid',
    area: 'sorting',
    title: 'An invalid sort field is 400 with one error',
    statements: ['S1.sort', 'S7.status-400', 'D-44.grammar-errors'],
    async run(ctx, op, params) {
      await expectEachRefused(ctx, op, params, ['sort=conformanceNoSuchField', 'sort=-conformanceNoSuchField'], 'query.sort');
    },
  }),
];

