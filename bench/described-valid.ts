// How many requests drawn from the description's own schemas the reference sandbox refuses (issue 45): for every list
// of both environments, every filter field and each of its operators, operands drawn from the operand's schema as the
// bundle declares it (the per-list operand enums of D-105 included), as a schema-driven fuzzer (Schemathesis) draws
// them; and page[number]/page[size] drawn from the Page schema. A refusal (400) of such a request is the description
// saying less than the service. Printed, never asserted.
//
//   npx tsx bench/described-valid.ts [--root DIR] [--draws N]
//
// --root measures another checkout (its src/ and generated/), e.g. the code before a change, with this script.
// Draws use json-schema-faker (installed with Prism) on a fixed seed, so two runs draw the same values.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { JSONSchemaFaker } from 'json-schema-faker';

const { values } = parseArgs({ options: { root: { type: 'string' }, draws: { type: 'string' } } });
const root = resolve(values.root ?? new URL('..', import.meta.url).pathname);
const DRAWS = Number(values.draws ?? 4);

const { createSandbox } = (await import(resolve(root, 'src/sandbox/app.ts'))) as typeof import('../src/sandbox/app.ts');
const { loadSpec, deref } = (await import(resolve(root, 'src/spec/index.ts'))) as typeof import('../src/spec/index.ts');
const { validatorFor } = (await import(resolve(root, 'src/spec/ajv.ts'))) as typeof import('../src/spec/ajv.ts');

let seed = 20261128;
JSONSchemaFaker.option({ random: () => ((seed = (seed * 16807) % 2147483647) / 2147483647), alwaysFakeOptionals: true, maxLength: 64, maxItems: 4 });

const spec = loadSpec(resolve(root, 'generated/care-api.yaml'));
const sandbox = await createSandbox({ seedCases: 20, deliver: false, log: () => undefined, bundle: resolve(root, 'generated/care-api.yaml') });
const BASES = { production: '/care/v0', sandbox: '/care/v0/sandbox' } as const;

async function token(env: 'production' | 'sandbox'): Promise<string> {
  const key = sandbox.demo[env].customer;
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: key.apiKeyId, client_secret: key.apiKeySecret, audience: env });
  const answer = await fetch(`${sandbox.url}/auth/v2/oauth/token`, { method: 'POST', body });
  return ((await answer.json()) as { access_token: string }).access_token;
}

/** The operand schema of `operator` on `field` of a list's filter schema, as the bundle declares it (D-105 included). */
function operandSchema(filterSchema: any, field: string, operator: string): any {
  const fieldRef = deref(spec.document, filterSchema).properties[field];
  const shared = deref(spec.document, deref(spec.document, fieldRef).properties?.[operator]);
  // the per-list operand enum sits beside the shared field filter's $ref (D-105): both apply
  const beside = fieldRef?.properties?.[operator];
  return beside ? { ...shared, ...beside } : shared;
}

// An `enum` beside other keywords admits the members those keywords admit too; a schema-aware fuzzer (Schemathesis)
// draws from them, while json-schema-faker would draw from the `pattern` alone.
const canonical = (schema: any): any => {
  if (!Array.isArray(schema?.enum)) return schema;
  const validate = validatorFor(spec, schema);
  return { enum: schema.enum.filter((member: unknown) => validate(member)) };
};

const draw = (schema: any): string => {
  const value = JSONSchemaFaker.generate(structuredClone({ ...canonical(schema), components: spec.document.components }) as any);
  return String(value);
};

let sent = 0;
let refused = 0;
const why = new Map<string, number>();
for (const env of ['production', 'sandbox'] as const) {
  const bearer = `Bearer ${await token(env)}`;
  const caseId = ((await (await fetch(`${sandbox.url}${BASES[env]}/cases?page[size]=1`, { headers: { authorization: bearer } })).json()) as any).data[0]?.id;
  for (const op of spec.operations.filter((o) => o.list && o.environments.includes(env))) {
    const path = op.path.replace('{caseId}', encodeURIComponent(caseId));
    if (path.includes('{')) continue;
    const filter = op.parameters.find((p) => p.name === 'filter')!.schema;
    const page = deref(spec.document, op.parameters.find((p) => p.name === 'page')!.schema);
    const queries: string[] = [];
    for (const [field, declared] of Object.entries(op.list!.filterFields)) {
      for (const operator of declared.operators) {
        const arity = spec.operators[operator]?.arity;
        if (arity === 'none') {
          queries.push(`filter[${field}][${operator}]`);
          continue;
        }
        const schema = operandSchema(filter, field, operator);
        for (let i = 0; i < DRAWS; i++) queries.push(`filter[${field}][${operator}]=${encodeURIComponent(draw(schema))}`);
      }
    }
    for (const member of ['number', 'size']) {
      for (let i = 0; i < DRAWS; i++) queries.push(`page[${member}]=${encodeURIComponent(draw(page.properties[member]))}`);
    }
    for (const query of queries) {
      sent++;
      const answer = await fetch(`${sandbox.url}${BASES[env]}${path}?${query}`, { headers: { authorization: bearer } }).catch((error: Error) => error);
      if (answer instanceof Error) {
        // a head over the parser's limit: Node answers 431 and closes the connection under the request
        const key = `${op.operationId} ${query.replace(/=.*/, '')}: closed (${query.length} bytes)`;
        why.set(key, (why.get(key) ?? 0) + 1);
        refused++;
        continue;
      }
      if (answer.status === 400 || answer.status === 431) {
        refused++;
        const error = ((await answer.json()) as any).errors?.[0];
        const key = `${op.operationId} ${query.replace(/=.*/, '')}: ${error?.code}`;
        why.set(key, (why.get(key) ?? 0) + 1);
      } else await answer.arrayBuffer();
    }
  }
}
await sandbox.close();
console.log(`${root}: ${sent} requests drawn from the description, ${refused} refused (400, 431)`);
const top = [...why.entries()].sort((a, b) => b[1] - a[1]);
const byOperator = new Map<string, number>();
for (const [key, count] of top) {
  const operator = /\]\[(\w+)\]|page\[(\w+)\]/.exec(key);
  const name = operator ? operator[1] ?? `page[${operator[2]}]` : key;
  byOperator.set(name, (byOperator.get(name) ?? 0) + count);
}
console.log('refused by operator:', Object.fromEntries([...byOperator.entries()].sort((a, b) => b[1] - a[1])));
console.log('most refused:', top.slice(0, 8).map(([key, count]) => `${count} ${key}`));
