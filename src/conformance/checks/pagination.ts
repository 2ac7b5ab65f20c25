// Area "pagination": default size 50, 200 accepted and 201 refused (D-29), a page past the end is empty,
// meta.page is consistent with data and with itself, and walking all pages yields totalCount distinct items.
import { expect, type Check } from '../check.ts';
import type { ListResult } from '../context.ts';
import { expectEachRefused, perListOperation } from './lists.ts';

const STATEMENTS = ['S1.page-params', 'S1.page-meta', 'S8.limits'];

function consistent(r: ListResult, what: string) {
  const p = r.page;
  for (const k of ['number', 'size', 'count', 'totalCount'] as const) {
    expect(Number.isInteger(p[k]), `${what}: meta.page.${k} must be an integer, got ${JSON.stringify(p[k])}`, r.exchange);
  }
  expect(p.count === r.items.length, `${what}: meta.page.count is ${p.count} but data holds ${r.items.length} items`, r.exchange);
  const expected = Math.max(0, Math.min(p.size, p.totalCount - (p.number - 1) * p.size));
  expect(p.count === expected, `${what}: page ${p.number} of size ${p.size} with totalCount ${p.totalCount} should hold ${expected} items, meta.page.count is ${p.count}`, r.exchange);
}

export const paginationChecks: Check[] = [
  perListOperation({
    id: 'pagination.defaults',
    area: 'pagination',
    title: 'Without page parameters a list answers page 1 of size 50, meta.page consistent',
    statements: STATEMENTS,
    async run(ctx, op, params) {
      const r = await ctx.list(ctx.customer, op, params);
      expect(r.page.number === 1, `${op}: default meta.page.number should be 1, got ${r.page.number}`, r.exchange);
      expect(r.page.size === 50, `${op}: default meta.page.size should be 50, got ${r.page.size}`, r.exchange);
      consistent(r, op);
      return `totalCount ${r.page.totalCount}`;
    },
  }),
  perListOperation({
    id: 'pagination.bounds',
    area: 'pagination',
    title: 'page[size]=200 is accepted; 201, 0 and page[number]=0 are refused with one error each (D-29)',
    statements: [...STATEMENTS, 'S7.status-400', 'D-29.page-bounds'],
    async run(ctx, op, params) {
      const max = await ctx.list(ctx.customer, op, params, 'page[size]=200');
      expect(max.page.size === 200, `${op}: page[size]=200 should answer meta.page.size 200, got ${max.page.size}`, max.exchange);
      consistent(max, `${op} page[size]=200`);
      await expectEachRefused(ctx, op, params, ['page[size]=201', 'page[size]=0', 'page[number]=0'], 'query.page');
    },
  }),
  perListOperation({
    id: 'pagination.past-end',
    area: 'pagination',
    title: 'A page past the end answers 200 with empty data and the true totalCount',
    statements: ['S1.page-past-end', 'S1.page-meta', 'D-29.page-bounds'],
    async run(ctx, op, params) {
      const first = await ctx.list(ctx.customer, op, params, 'page[size]=2');
      const beyond = Math.ceil(first.page.totalCount / 2) + 1;
      for (const n of [beyond, beyond + 10]) {
        const r = await ctx.list(ctx.customer, op, params, `page[number]=${n}&page[size]=2`);
        expect(r.items.length === 0, `${op}: page ${n} of size 2 is past the end of ${first.page.totalCount} items but data holds ${r.items.length}`, r.exchange);
        expect(r.page.count === 0 && r.page.number === n, `${op}: past the end meta.page should be number ${n}, count 0`, r.exchange);
        expect(r.page.totalCount === first.page.totalCount, `${op}: totalCount changed past the end (${first.page.totalCount} -> ${r.page.totalCount})`, r.exchange);
      }
    },
  }),
  perListOperation({
    id: 'pagination.walk',
    area: 'pagination',
    title: 'Walking all pages yields totalCount distinct items, every page consistent',
    statements: ['S1.page-params', 'S1.page-meta', 'S4.list-shape'],
    async run(ctx, op, params) {
      const head = await ctx.list(ctx.customer, op, params, 'page[size]=1');
      const total = head.page.totalCount;
      // Pages small enough that the walk crosses page boundaries, few enough to stay bounded (at most ~12 requests).
      const size = Math.min(200, Math.max(2, Math.ceil(total / 10)));
      const seen = new Set<string>();
      const pages = Math.ceil(total / size);
      if (pages > 50) return `skipped the walk: ${total} items`;
      for (let n = 1; n <= pages; n++) {
        const r = await ctx.list(ctx.customer, op, params, `page[number]=${n}&page[size]=${size}`);
        consistent(r, `${op} page ${n}`);
        expect(r.page.totalCount === total, `${op}: totalCount differs between pages (${total} vs ${r.page.totalCount})`, r.exchange);
        for (const item of r.items) {
          expect(!seen.has(item.id), `${op}: item ${item.id} appears on two pages`, r.exchange);
          seen.add(item.id);
        }
      }
      expect(seen.size === total, `${op}: walking ${pages} pages of ${size} gave ${seen.size} distinct items, totalCount says ${total}`, head.exchange);
      return `${total} items in ${pages} pages`;
    },
  }),
];
