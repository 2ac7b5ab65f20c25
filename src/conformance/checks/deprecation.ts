// Area "operations", deprecation (D-33): every operation the description marks `deprecated` with
// `x-care-deprecated-since` and `x-care-sunset` answers the `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers
// with those dates, on success and on errors. Reads are called with fixture ids; anything else with an id that
// does not exist and a body that is not an object, so the check never writes.
import { Skip, expect, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import type { Exchange } from '../http.ts';

const MISSING_ID = 'conformance-no-such-id';

function deprecated(ctx: Context) {
  return ctx.operations().filter((op) => op.deprecation);
}

function expectAnnounced(x: Exchange, operationId: string, want: { Deprecation: string; Sunset: string }): void {
  for (const [name, value] of Object.entries(want)) {
    const got = x.headers[name.toLowerCase()];
    expect(got === value, `${operationId} is deprecated: expected ${name}: ${value} on its ${x.status} answer, got ${got === undefined ? 'no such header' : `${name}: ${got}`}`, x);
  }
}

export const deprecationChecks: Check[] = [
  {
    id: 'operations.deprecation',
    area: 'operations',
    title: 'A deprecated operation answers Deprecation and Sunset with the dates of the description, errors included',
    statements: ['S9.versioning', 'D-33.deprecation', 'D-54.deprecation-headers'],
    needs: ['state'], // a mock answers the headers' examples, not the operation's dates
    cases: (ctx) => {
      const ids = deprecated(ctx).map((op) => op.operationId);
      return ids.length > 0 ? ids : ['none'];
    },
    async run(ctx, operationId) {
      if (operationId === 'none') throw new Skip('the description deprecates no operation');
      const op = ctx.spec.operation(operationId!);
      const want = op.deprecation!;
      if (op.method === 'get') {
        const x = await ctx.call(ctx.customer, op.operationId, await ctx.fixtures.pathParams(op.operationId));
        expectAnnounced(x, op.operationId, want);
      }
      const pathNames = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
      if (op.method === 'get' && pathNames.length === 0 && !op.list) return `Deprecation: ${want.Deprecation}, Sunset: ${want.Sunset} (success only)`;
      const missing = Object.fromEntries(pathNames.map((name) => [name, MISSING_ID]));
      // An unknown id, a body that is not an object, or page 0 of a list: refused before anything is written.
      const refused = await ctx.call(ctx.customer, op.operationId, missing, {
        ...(op.requestBody ? { json: [] } : {}),
        ...(op.list ? { query: 'page[number]=0' } : {}),
      });
      expect(refused.status >= 400 && refused.status < 500, `${op.operationId} refused (unknown id, non-object body or page 0): expected a 4xx answer, got ${refused.status}`, refused);
      expectAnnounced(refused, op.operationId, want);
      return `Deprecation: ${want.Deprecation}, Sunset: ${want.Sunset}`;
    },
  },
];
