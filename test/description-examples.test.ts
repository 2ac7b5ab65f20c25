// Issue 38, item 1: the description's own examples work. Every request example of each environment's bundle (path,
// query and header parameters, JSON bodies composed from their properties' examples, as Schemathesis and Prism
// compose them) is sent to a sandbox seeded as a fresh one is (the default 300 cases per environment), as the demo
// partner account, and must be accepted (2xx) with an answer valid against the description. The examples of a field
// filter's operands are sent one by one too, on every field of their type, since tools compose them that way. Every
// response example must validate against its schema. And the datetime filter pattern admits exactly what the
// input coercion reads (real calendar dates).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datetimeMillis } from '../src/grammar/coerce.ts';
import { bundlePath, deref, loadSpec, repoRoot, validatorFor } from '../src/spec/index.ts';
import type { CareSpec, Environment } from '../src/spec/types.ts';
import { deepObject, exampleAccount, exampleOf, exampleRequests, type ExampleRequest } from './helpers/examples.ts';
import { BASES, responseProblems, send, startHarness } from './helpers/sandbox.ts';
import type { Answer, Harness } from './helpers/sandbox.ts';

const ENVIRONMENTS: Environment[] = ['sandbox', 'production'];
const specs = Object.fromEntries(ENVIRONMENTS.map((env) => [env, loadSpec(bundlePath(env))])) as Record<Environment, CareSpec>;

let h: Harness;
beforeAll(async () => {
  // seeded as `npm start` and `care-sandbox` seed a new database: the examples name those records
  h = await startHarness({ seedCases: 300, deliver: false });
});
afterAll(async () => h?.close());

/** Writes that make things first, reads and changes next, deletions last, and last of all the revocation of the
 * key the example names; each as the account exampleAccount names. */
const ORDER = (r: ExampleRequest) => (r.operationId === 'revokeApiKey' ? 3 : r.method === 'POST' ? 0 : r.method === 'DELETE' ? 2 : 1);

async function sendExample(request: ExampleRequest): Promise<Answer> {
  const url = `${h.origin}${BASES[request.env]}${request.path}${request.query ? `?${request.query}` : ''}`;
  const account = exampleAccount(request.operationId);
  return send(url, { method: request.method, headers: { authorization: `Bearer ${h.tokens[request.env][account]}`, ...request.headers }, body: request.body });
}

describe('the description\'s request examples, sent to the sandbox of their environment', () => {
  // first: the example requests end by revoking the partner's key
  it('the operands of every field filter, each alone on every field of its type, are accepted in both environments', async () => {
    const refused: string[] = [];
    let sent = 0;
    for (const env of ENVIRONMENTS) {
      const spec = specs[env];
      const caseId = String(deref(spec.document, { $ref: '#/components/parameters/CaseId' }).example);
      for (const op of spec.operations.filter((o) => o.list && o.method === 'get')) {
        const path = op.path.replace('{caseId}', caseId);
        const filter = deref(spec.document, op.parameters.find((p) => p.name === 'filter')!.schema);
        for (const [field, rawField] of Object.entries<any>(filter.properties)) {
          const fieldFilter = deref(spec.document, rawField);
          for (const [operator, operand] of Object.entries<any>(fieldFilter.properties ?? {})) {
            const value = exampleOf(spec, operand);
            const answer = await send(`${h.origin}${BASES[env]}${path}?${deepObject(`filter[${field}][${operator}]`, value ?? '').join('&')}`, { headers: { authorization: `Bearer ${h.tokens[env].partner}` } });
            sent++;
            if (answer.status !== 200) refused.push(`${env} ${op.operationId} filter[${field}][${operator}]=${String(value)} -> ${answer.status} ${answer.text.slice(0, 200)}`);
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(500);
    // integer and boolean fields do not share a name across lists: their operand examples name cases' and
    // subscriptions' fields, and the schema's text says so (D-91); every other operand example works everywhere
    // and `contract` with `eq` or `in` names a contract, which the field's own example does (D-30): the shared
    // operand's example (`printer`) cannot
    const expected = refused.filter((line) => !/ (listCaseAttachments|listCaseComments) filter\[(size|partnerComment)\]\[(sameas|notSameas)\]=/.test(line) && !/ filter\[contract\]\[(eq|in)\]=/.test(line));
    expect(refused.length - expected.length).toBe(2 * 2 * 2 + 2 * 2 * 2); // those, and no more, refused
    expect(expected).toEqual([]);
  }, 300_000);

  for (const env of ENVIRONMENTS) {
    it(`${env}: every operation's example request is accepted, and answered as described`, async () => {
      const requests = exampleRequests(specs[env], env).sort((a, b) => ORDER(a) - ORDER(b));
      expect(requests.length).toBeGreaterThan(env === 'sandbox' ? 25 : 20);
      const refused: string[] = [];
      for (const request of requests) {
        const answer = await sendExample(request);
        const where = `${request.operationId} ${request.method} ${request.path}?${request.query} ${typeof request.body === 'string' ? request.body : ''} -> ${answer.status} ${answer.text.slice(0, 300)}`;
        if (answer.status >= 300) refused.push(where);
        else expect(responseProblems(specs[env].operation(request.operationId), env, answer), where).toEqual([]);
      }
      expect(refused).toEqual([]);
    }, 120_000);
  }

  it('every response example validates against its schema in both bundles', () => {
    let checked = 0;
    for (const env of ENVIRONMENTS) {
      const spec = specs[env];
      for (const op of spec.operations) {
        const raw = deref(spec.document, spec.document.paths[op.path])[op.method];
        for (const [status, rawResponse] of Object.entries<any>(raw.responses ?? {})) {
          for (const [type, media] of Object.entries<any>(deref(spec.document, rawResponse).content ?? {})) {
            if (!type.includes('json') || !media.schema) continue;
            const examples = [...('example' in media ? [media.example] : []), ...Object.values<any>(media.examples ?? {}).map((e) => deref(spec.document, e).value)];
            const validate = validatorFor(spec, media.schema);
            for (const example of examples) {
              checked++;
              expect(validate(example), `${env} ${op.operationId} ${status}: ${JSON.stringify(validate.errors?.slice(0, 2))}`).toBe(true);
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});

describe('datetime filter values: the pattern admits what the coercion reads (D-27, D-91)', () => {
  const pattern = new RegExp(deref(specs.sandbox.document, { $ref: '#/components/schemas/FilterDateTime' }).pattern);
  const vectors = [
    '2026-01-01', '2026-12-31', '2024-02-29', '2000-02-29', '0000-02-29', '2026-04-30T23:59:59.123456+14:00', '2026-01-01 00:00', '2026-01-01t00:00z',
    '1767225600', '-5', '1.', '.5', '1.25',
    '2026-13-01', '2026-00-10', '7983-13-53', '2026-02-29', '1900-02-29', '2100-02-29', '2026-04-31', '2026-01-32', '2026-01-00',
    '2026-01-01T24:00', '2026-01-01T23:60', '2026-01-01T23:59:60', '2026-01-01T00:00+24:00', '2026-01-01T00:00+01:60', '2026-01-01T00:00:00.1234567',
    '2026-1-1', 'tomorrow', '', '2026-01-01T', '1e3',
  ];
  it.each(vectors)('%s', (value) => {
    expect(pattern.test(value), `pattern on ${value}`).toBe(datetimeMillis(value).ok);
  });
});

describe('the links in the docs (Redoc shows no OpenAPI links: the docs step writes them into each response)', () => {
  it('every link of the complete bundle is listed in its response, with a jump to its target operation', () => {
    const script = readFileSync(resolve(repoRoot, 'generated/docs/description.js'), 'utf8');
    const docs = JSON.parse(script.slice(script.indexOf('=') + 1).trim().replace(/;$/, ''));
    const complete = loadSpec();
    let links = 0;
    for (const op of complete.operations) {
      const responses = deref(complete.document, complete.document.paths[op.path])[op.method].responses ?? {};
      for (const [status, response] of Object.entries<any>(responses)) {
        for (const link of Object.values<any>(deref(complete.document, response).links ?? {})) {
          links++;
          const shown = String(docs.paths[op.path][op.method].responses[status].description);
          expect(shown, `${op.operationId} ${status} -> ${link.operationId}`).toContain(`[${link.operationId}](#operation/${link.operationId})`);
        }
      }
    }
    expect(links).toBeGreaterThan(30);
  });
});
