// Area "coercion": each row of the seed's input-coercion table on a field of that type, in the query string and in
// JSON bodies. Rows for types the description never uses are skipped with that reason, found by searching it.
import { Skip, expect, expectEqual, expectErrors, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { MARK } from '../context.ts';
import { listOperations, withData } from './lists.ts';

const ids = (items: any[]) => items.map((i) => i.id).sort().join(',');

/** A list operation with a filterable field of `type` holding data, or Skip. */
async function fieldOfType(ctx: Context, type: string): Promise<{ op: string; field: string; params: Record<string, string>; items: any[] }> {
  for (const op of listOperations(ctx)) {
    const list = ctx.spec.operation(op).list!;
    const field = Object.values(list.filterFields).find((f) => f.type === type && f.name !== 'id');
    if (!field) continue;
    const params = await withData(ctx, op);
    const all = await ctx.listAll(ctx.customer, op, params, '', 200);
    if (all.items.some((i) => i[field.name] !== null && i[field.name] !== undefined)) return { op, field: field.name, params, items: all.items };
  }
  throw new Skip(`no list has data in a filterable ${type} field`);
}

/** Every query form must answer the same items as the canonical one. */
async function sameAnswers(ctx: Context, op: string, params: Record<string, string>, canonical: string, forms: string[]) {
  const base = await ctx.list(ctx.customer, op, params, `${canonical}&page[size]=200`);
  for (const q of forms) {
    const r = await ctx.list(ctx.customer, op, params, `${q}&page[size]=200`);
    expect(ids(r.items) === ids(base.items), `${op}?${q} answered ${r.items.length} items, the same filter written ${canonical} answered ${base.items.length}`, r.exchange);
  }
  return base.items.length;
}

const TRUE = ['True', 'true', 't', 'on', 'yes', 'y', '1'];
const FALSE = ['False', 'false', 'f', 'off', 'no', 'n', '0'];

/** Types of the table the description has no field of (searched in every schema). */
function unusedTypes(ctx: Context): Record<string, string> {
  const text = JSON.stringify(ctx.spec.document.components?.schemas ?? {});
  const used = {
    float: /"type":(?:"number"|\[[^\]]*"number")/.test(text),
    date: /"format":"date"/.test(text),
    time: /"format":"time"/.test(text),
    timedelta: /"format":"duration"/.test(text),
  };
  return Object.fromEntries(Object.entries(used).filter(([, u]) => !u).map(([t]) => [t, `the description declares no ${t} field: this row of the table applies to nothing`]));
}

const S = ['S1.coercion', 'D-27.coercion-schemas', 'D-43.coercion-details'];

export const coercionChecks: Check[] = [
  {
    id: 'coercion.query.integer',
    area: 'coercion',
    title: 'Query: an integer is read from "2", "2.0" and "20e-1" (D-72); "2.5" and text are 400',
    statements: [...S, 'D-72.integer-and-boolean-strings'],
    needs: ['state'],
    async run(ctx) {
      const { op, field, params, items } = await fieldOfType(ctx, 'integer');
      const v = items.find((i) => Number.isInteger(i[field]))[field];
      await sameAnswers(ctx, op, params, `filter[${field}][eq]=${v}`, [`filter[${field}][eq]=${v}.0`, `filter[${field}]=${v}`, `filter[${field}][eq]=%2B${v}`, `filter[${field}][eq]=${v * 10}e-1`]);
      for (const bad of [`${v}.5`, 'two']) expectErrors(await ctx.call(ctx.customer, op, params, { query: `filter[${field}][eq]=${bad}` }), 400, `${op} filter[${field}][eq]=${bad}`, 1);
      return `${op} ${field}`;
    },
  },
  {
    id: 'coercion.query.boolean',
    area: 'coercion',
    title: 'Query: a boolean is read from each true and false spelling of the table, in any ASCII case (D-72); others are 400',
    statements: [...S, 'D-72.integer-and-boolean-strings'],
    needs: ['state'],
    async run(ctx) {
      const { op, field, params } = await fieldOfType(ctx, 'boolean');
      await sameAnswers(ctx, op, params, `filter[${field}][eq]=true`, [...TRUE, 'TRUE', 'Yes', 'oN'].map((t) => `filter[${field}][eq]=${t}`));
      await sameAnswers(ctx, op, params, `filter[${field}][eq]=false`, [...FALSE, 'FALSE', 'No', 'oFF'].map((f) => `filter[${field}][eq]=${f}`));
      expectErrors(await ctx.call(ctx.customer, op, params, { query: `filter[${field}][eq]=maybe` }), 400, `${op} filter[${field}]=maybe`, 1);
      return `${op} ${field}`;
    },
  },
  {
    id: 'coercion.query.datetime',
    area: 'coercion',
    title: 'Query: a datetime is read in every form of the table (zone, no zone as UTC, offset, date, Unix time)',
    statements: S,
    needs: ['state'],
    async run(ctx) {
      const { op, field, params, items } = await fieldOfType(ctx, 'datetime');
      const values = items.map((i) => Date.parse(i[field])).filter(Number.isFinite).sort((a, b) => a - b);
      const t = new Date(Math.floor(values[Math.floor(values.length / 2)] / 1000) * 1000);
      const iso = t.toISOString().replace('.000Z', 'Z');
      const noZone = iso.replace('Z', '');
      const plus2 = new Date(t.getTime() + 2 * 3600_000).toISOString().replace('.000Z', '+02:00');
      const plus2compact = plus2.replace('+02:00', '+0200');
      const unix = String(t.getTime() / 1000);
      const forms = [noZone, `${noZone}.000000`, noZone.replace('T', ' '), plus2, plus2compact, unix, `${unix}.0`].map((f) => `filter[${field}][ge]=${encodeURIComponent(f)}`);
      const n = await sameAnswers(ctx, op, params, `filter[${field}][ge]=${encodeURIComponent(iso)}`, forms);
      const day = iso.slice(0, 10);
      await sameAnswers(ctx, op, params, `filter[${field}][ge]=${day}T00:00:00Z`, [`filter[${field}][ge]=${day}`]);
      expectErrors(await ctx.call(ctx.customer, op, params, { query: `filter[${field}][ge]=2026-13-45` }), 400, `${op} filter[${field}][ge]=2026-13-45`, 1);
      return `${op} ${field}, ${n} items on or after ${iso}`;
    },
  },
  {
    id: 'coercion.query.array',
    area: 'coercion',
    title: 'Query: an array is a comma-separated string (in = the union of its values)',
    statements: S,
    needs: ['state'],
    async run(ctx) {
      const { op, field, params, items } = await fieldOfType(ctx, 'integer');
      const [a, b] = [...new Set(items.map((i) => i[field]).filter(Number.isInteger))];
      if (b === undefined) throw new Skip(`${op} ${field} holds one value only`);
      const ra = await ctx.list(ctx.customer, op, params, `filter[${field}]=${a}&page[size]=200`);
      const rb = await ctx.list(ctx.customer, op, params, `filter[${field}]=${b}&page[size]=200`);
      const both = await ctx.list(ctx.customer, op, params, `filter[${field}][in]=${a},${b}&page[size]=200`);
      expect(ids(both.items) === ids([...ra.items, ...rb.items]), `${op} filter[${field}][in]=${a},${b} should answer the ${ra.items.length}+${rb.items.length} items of both values, got ${both.items.length}`, both.exchange);
    },
  },
  {
    id: 'coercion.query.string',
    area: 'coercion',
    title: 'Query: a string field takes any text, digits included, as a string',
    statements: S,
    needs: ['state'],
    async run(ctx) {
      const { op, field, params } = await fieldOfType(ctx, 'string');
      const r = await ctx.list(ctx.customer, op, params, `filter[${field}][eq]=12345&page[size]=200`);
      expect(r.items.every((i) => i[field] === '12345'), `${op} filter[${field}][eq]=12345 returned items whose ${field} is not "12345"`, r.exchange);
    },
  },
  {
    id: 'coercion.body.integer',
    area: 'coercion',
    title: 'Body: an integer is read from 2, 4.0, "2" and "3.0"',
    statements: S,
    needs: ['writes'],
    async run(ctx) {
      const caseId = (await ctx.fixtures.cases()).at(-1).id;
      for (const [input, want] of [['2', 2], [4.0, 4], ['3.0', 3], [1, 1]] as const) {
        const x = await ctx.call(ctx.customer, 'updateCase', { caseId }, { json: { priority: input } });
        expectStatus(x, 200, `updateCase priority ${JSON.stringify(input)}`);
        expect(x.json.data.priority === want, `updateCase priority ${JSON.stringify(input)} should store the integer ${want}, got ${JSON.stringify(x.json.data.priority)}`, x);
      }
    },
  },
  {
    id: 'coercion.body.boolean',
    area: 'coercion',
    title: 'Body: a boolean is read from true/false, 1/0 and each string spelling of the table',
    statements: S,
    needs: ['writes'],
    async run(ctx) {
      const webhookId = await ctx.fixtures.webhookId();
      const cases: Array<[unknown, boolean]> = [[true, true], [false, false], [1, true], [0, false], ...TRUE.map((t): [string, boolean] => [t, true]), ...FALSE.map((f): [string, boolean] => [f, false])];
      for (const [input, want] of cases) {
        const x = await ctx.call(ctx.customer, 'updateWebhook', { webhookId }, { json: { enabled: input } });
        expectStatus(x, 200, `updateWebhook enabled ${JSON.stringify(input)}`);
        expect(x.json.data.enabled === want, `updateWebhook enabled ${JSON.stringify(input)} should be ${want}, got ${JSON.stringify(x.json.data.enabled)}`, x);
      }
      await ctx.call(ctx.customer, 'updateWebhook', { webhookId }, { json: { enabled: false } });
      return `${cases.length} spellings`;
    },
  },
  {
    id: 'coercion.body.datetime',
    area: 'coercion',
    title: 'Body: a datetime is read with zone, without (UTC), with an offset, as a date and as Unix time, and answered in the stored form',
    statements: [...S, 'D-39.utc-millis'],
    needs: ['writes'],
    async run(ctx) {
      const keyId = await ctx.fixtures.keyId();
      const cases: Array<[unknown, string]> = [
        ['2099-01-02T03:04:05Z', '2099-01-02T03:04:05.000Z'],
        ['2099-01-02T03:04', '2099-01-02T03:04:00.000Z'],
        ['2099-01-02 03:04:05.123456+02:00', '2099-01-02T01:04:05.123Z'],
        ['2099-01-02T03:04:05-0130', '2099-01-02T04:34:05.000Z'],
        ['2099-01-02', '2099-01-02T00:00:00.000Z'],
        [4071006245, '2099-01-02T03:04:05.000Z'],
        ['4071006245', '2099-01-02T03:04:05.000Z'],
      ];
      for (const [input, want] of cases) {
        const x = await ctx.call(ctx.customer, 'updateApiKey', { keyId }, { json: { expiresAt: input } });
        expectStatus(x, 200, `updateApiKey expiresAt ${JSON.stringify(input)}`);
        // The stored form exactly (D-39: UTC, milliseconds, Z), not just the same instant: answered as sent is wrong.
        expectEqual(x.json.data.expiresAt, want, `updateApiKey expiresAt ${JSON.stringify(input)} should be answered as ${want} (D-39), got ${JSON.stringify(x.json.data.expiresAt)}`, x, 'body.data.expiresAt');
      }
      return `${cases.length} forms`;
    },
  },
  {
    id: 'coercion.body.array',
    area: 'coercion',
    title: 'Body: an array is read from a JSON array or a comma-separated string',
    statements: S,
    needs: ['writes'],
    async run(ctx) {
      const contacts = ctx.config.customer.contacts;
      if (contacts.length === 0) throw new Skip('no customer contact in the configuration');
      const caseId = (await ctx.fixtures.cases()).at(-1).id;
      const want = contacts.slice(0, 2);
      const x = await ctx.call(ctx.customer, 'updateCase', { caseId }, { json: { watchList: want.join(',') } });
      expectStatus(x, 200, `updateCase watchList "${want.join(',')}"`);
      expect(JSON.stringify(x.json.data.watchList) === JSON.stringify(want), `watchList "${want.join(',')}" should be stored as ${JSON.stringify(want)}, got ${JSON.stringify(x.json.data.watchList)}`, x);
    },
  },
  {
    id: 'coercion.body.string',
    area: 'coercion',
    title: 'Body: a string field takes a string',
    statements: S,
    needs: ['writes'],
    async run(ctx) {
      const caseId = (await ctx.fixtures.cases()).at(-1).id;
      const ok = await ctx.call(ctx.customer, 'updateCase', { caseId }, { json: { shortDescription: `${MARK} 12345` } });
      expectStatus(ok, 200, 'updateCase shortDescription as a string');
    },
  },
  {
    id: 'coercion.body.refused',
    area: 'coercion',
    title: 'Body: a value that cannot be converted is 400 with one error naming the field',
    statements: [...S, 'S7.status-400', 'S7.error-object', 'D-46.strings-strict'],
    needs: ['writes'],
    async run(ctx) {
      const caseId = (await ctx.fixtures.cases()).at(-1).id;
      const webhookId = await ctx.fixtures.webhookId();
      const keyId = await ctx.fixtures.keyId();
      const cases: Array<[string, Record<string, string>, string, unknown]> = [
        ['updateCase', { caseId }, 'priority', 2.5],
        ['updateCase', { caseId }, 'priority', 'high'],
        ['updateCase', { caseId }, 'shortDescription', 12345],
        ['updateWebhook', { webhookId }, 'enabled', 'maybe'],
        ['updateApiKey', { keyId }, 'expiresAt', 'next week'],
      ];
      for (const [op, params, field, value] of cases) {
        const x = await ctx.call(ctx.customer, op, params, { json: { [field]: value } });
        const [e] = expectErrors(x, 400, `${op} ${field} ${JSON.stringify(value)}`, 1);
        expect(e.detail.startsWith(`body.${field}`), `${op} ${field} ${JSON.stringify(value)}: the error should name body.${field}, got "${e.detail}"`, x);
      }
      return `${cases.length} unconvertible values`;
    },
  },
  ...(['float', 'date', 'time', 'timedelta'] as const).map((type): Check => ({
    id: `coercion.${type}`,
    area: 'coercion',
    title: `The ${type} row of the coercion table`,
    statements: S,
    async run(ctx) {
      const reason = unusedTypes(ctx)[type];
      if (reason) throw new Skip(reason);
      ctx.fail(`the description now has a ${type} field: the suite needs a check for this row`);
    },
  })),
];
