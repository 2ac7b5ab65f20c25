// Area "operations": every operation answers as its description says (status declared, content type,
// X-CareAPI-Env with the environment's value, body valid against the schema, no 5xx), on errors too.
import { CheckFailure, Skip, expect, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import type { Exchange } from '../http.ts';
import { judge } from '../judge.ts';

const ENVELOPE = ['S1.env-header', 'S1.success-envelope', 'S4.operations'];
const ERRORS = ['S1.env-header', 'S1.error-envelope', 'S7.error-object', 'S7.error-env-header'];

/** GET operations that need no body: every one can be called with fixture ids. */
function readable(ctx: Context) {
  return ctx.operations().filter((op) => op.method === 'get');
}

function assertConforms(ctx: Context, x: Exchange, operationId: string) {
  const problems = judge(ctx.spec, ctx.spec.operation(operationId), x, ctx.envHeader);
  expect(problems.length === 0, problems.join('; '), x);
}

export const operationsChecks: Check[] = [
  {
    id: 'operations.read',
    area: 'operations',
    title: 'Every readable operation answers 200 as described',
    statements: ENVELOPE,
    cases: (ctx) => readable(ctx).map((op) => op.operationId),
    async run(ctx, operationId) {
      const op = ctx.spec.operation(operationId!);
      const params = await ctx.fixtures.pathParams(op.operationId);
      const x = await ctx.call(ctx.customer, op.operationId, params);
      expect(x.status === 200, `${op.operationId}: expected 200, got ${x.status}`, x);
      assertConforms(ctx, x, op.operationId);
      if (op.list) expect(Array.isArray(x.json.data), `${op.operationId}: a list answers data as an array`, x);
      else if (op.responses.find((r) => r.status === '200')?.schema) {
        expect(x.json.data && !Array.isArray(x.json.data) && typeof x.json.data === 'object', `${op.operationId}: a single-resource answer holds one object in data`, x);
      }
    },
  },
  {
    id: 'operations.versioning',
    area: 'operations',
    title: 'The base URL carries the version: /care/v0 in production, /care/v0/sandbox in sandbox',
    statements: ['S9.versioning', 'D-01.servers'],
    needs: ['state'], // Prism serves the paths at its root, whatever the servers say
    async run(ctx) {
      const path = new URL(ctx.config.baseUrl).pathname.replace(/\/$/, '');
      const want = ctx.environment === 'sandbox' ? '/care/v0/sandbox' : '/care/v0';
      expect(path.endsWith(want), `the ${ctx.environment} base URL should end in ${want}, it is ${ctx.config.baseUrl}`);
      const declared = (ctx.spec.document.servers ?? []).map((s: any) => String(s.url));
      expect(declared.some((u: string) => u.endsWith(want)), `the description declares no server ending in ${want}`);
    },
  },
  {
    id: 'operations.unknown-path',
    area: 'operations',
    title: 'An unknown path answers 404 in the error envelope with X-CareAPI-Env',
    statements: ['S1.env-header', 'S1.error-envelope', 'S7.error-env-header', 'D-37.status-codes'],
    needs: ['state'],
    async run(ctx) {
      const x = await ctx.customer.request({ path: `/conformance-no-such-path-${ctx.runTag}` });
      expect(x.status === 404, `an unknown path: expected 404, got ${x.status}`, x);
      expect(x.headers['x-careapi-env'] === ctx.envHeader, `the 404 lacks X-CareAPI-Env: ${ctx.envHeader}`, x);
      expect(Array.isArray(x.json?.errors) && x.json.errors.length > 0 && x.json.meta, 'the 404 is not in the error envelope', x);
    },
  },
  {
    id: 'operations.wrong-method',
    area: 'operations',
    title: 'A known path with a wrong method answers 405 in the error envelope',
    statements: ['S1.env-header', 'S1.error-envelope', 'S7.error-env-header', 'D-37.status-codes'],
    needs: ['state'],
    async run(ctx) {
      const x = await ctx.customer.request({ method: 'DELETE', path: ctx.path('listCases') });
      expect(x.status === 405, `DELETE ${ctx.path('listCases')}: expected 405, got ${x.status}`, x);
      expect(x.headers['x-careapi-env'] === ctx.envHeader, `the 405 lacks X-CareAPI-Env: ${ctx.envHeader}`, x);
      expect(Array.isArray(x.json?.errors) && x.json.errors.length > 0, 'the 405 is not in the error envelope', x);
    },
  },
  {
    id: 'operations.observed',
    area: 'operations',
    title: 'Every answer the run received conforms to its operation',
    statements: [...new Set([...ENVELOPE, ...ERRORS]), 'D-02.success-codes', 'D-05.fields-present', 'D-26.meta', 'D-38.identifiers', 'D-40.bodies', 'D-103.server-errors'],
    last: true,
    cases(ctx) {
      return [...ctx.observed.byOperation.keys()].sort();
    },
    async run(ctx, operationId) {
      // Judged as each answer arrived (observed.ts): the run keeps the first non-conforming answer, not every answer.
      const record = ctx.observed.byOperation.get(operationId!)!;
      const failure = record.failure;
      if (failure) {
        const x = failure.exchange;
        throw new CheckFailure(`${failure.problems.join('; ')} (one of ${record.judged} ${x.method} ${x.path} answers seen in this run)`, x);
      }
      return `${record.judged} answers`;
    },
  },
  {
    id: 'operations.coverage',
    area: 'operations',
    title: 'The run called every operation of the environment at least once',
    statements: ['S4.operations'],
    needs: ['writes'],
    last: true,
    async run(ctx) {
      if (ctx.options.areas.length) throw new Skip(`a partial run (--areas ${ctx.options.areas.join(',')}) does not call every operation`);
      const called = new Set(ctx.observed.byOperation.keys());
      const missing = ctx.operations().map((op) => op.operationId).filter((id) => !called.has(id));
      expect(missing.length === 0, `the suite did not call ${missing.join(', ')}: their answers were never judged`);
      return `${called.size} operations`;
    },
  },
];
