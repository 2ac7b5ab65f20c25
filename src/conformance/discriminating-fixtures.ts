// Data that tells every filter operator apart from its neighbours: where the suite may write, a small set of cases,
// and comments on a fresh case, whose values are built from the list's declared filter fields and their types
// (src/spec), never from a hand-kept list of fields. Text fields get prefix, infix and suffix occurrences of one word,
// mixed case, literal `* ? % _` and regex metacharacters, null and the empty string; enumerated integers get every
// value (so each bound has values on, below and above it); contact fields cycle through the account's contacts, lists
// of them include the empty list; fields only the service sets (timestamps, identifiers) keep the values it gives.
// Read-only fields the reference sandbox's agent API can set (the case's incident) are set through it when the config
// names one (outside the contract, as in webhooks.own-actions). Without writes, the data is what the lists answer.
import { serializeFilter } from '../grammar/index.ts';
import { deref } from '../spec/refs.ts';
import type { FilterFieldSpec } from '../spec/types.ts';
import { Skip, expectStatus } from './check.ts';
import type { Context } from './context.ts';
import { MARK } from './context.ts';
import { send } from './http.ts';

export interface DiscriminatingData {
  operationId: string;
  params: Record<string, string>;
  /** The items as the target answered them after the last write. */
  items: any[];
  /** A filter (query string) selecting exactly these items, and one that does not use the field `id`. */
  scope: string;
  scopeWithoutId: string;
  /** Why the data is what it is (fixtures created, or read from the lists). */
  source: string;
}

/** The property schema as the item or a body declares it: refs followed, `oneOf [X, null]` read as nullable X. */
export interface FieldShape {
  schema: any;
  nullable: boolean;
  readOnly: boolean;
  required: boolean;
}

export function fieldShape(ctx: Context, objectSchema: any, name: string): FieldShape | undefined {
  const doc = ctx.spec.document;
  const object = deref(doc, objectSchema);
  const raw = object?.properties?.[name];
  if (!raw) return undefined;
  let schema = deref(doc, raw);
  let nullable = Array.isArray(schema?.type) && schema.type.includes('null');
  const alternatives = (schema?.oneOf ?? schema?.anyOf) as any[] | undefined;
  if (alternatives) {
    const resolved = alternatives.map((a) => deref(doc, a));
    nullable ||= resolved.some((a) => a?.type === 'null');
    schema = { ...resolved.find((a) => a?.type !== 'null'), ...raw, oneOf: undefined, anyOf: undefined };
  } else if (raw.$ref) {
    schema = { ...schema, ...Object.fromEntries(Object.entries(raw).filter(([k]) => k !== '$ref')) };
  }
  return { schema, nullable, readOnly: Boolean(schema?.readOnly ?? raw.readOnly), required: (object.required ?? []).includes(name) };
}

const itemSchemaOf = (ctx: Context, operationId: string) => ({ $ref: `#/components/schemas/${ctx.spec.operation(operationId).list!.itemSchema}` });

/** A field that names another resource: some operation has a path parameter `<field>Id` (contract -> contractId). */
export function isReference(ctx: Context, name: string): boolean {
  return ctx.spec.operations.some((op) => op.parameters.some((p) => p.in === 'path' && p.name === `${name}Id`));
}

/** Can the field hold the empty string or the empty list, as the description declares it? */
export function canBeEmpty(ctx: Context, operationId: string, field: FilterFieldSpec): boolean {
  const shape = fieldShape(ctx, itemSchemaOf(ctx, operationId), field.name);
  if (!shape) return true;
  const s = shape.schema;
  if (field.type === 'stringArray') return !(s.minItems >= 1);
  if (field.type !== 'string') return false;
  if (shape.readOnly && !shape.nullable) return false; // an identifier the service assigns
  return !(s.minLength >= 1 || s.format || s.enum || s.pattern || isReference(ctx, field.name));
}

/** Can the field be null, or absent, as the description declares it? */
export function canBeNull(ctx: Context, operationId: string, field: FilterFieldSpec): { nullable: boolean; absent: boolean } {
  const shape = fieldShape(ctx, itemSchemaOf(ctx, operationId), field.name);
  return { nullable: shape ? shape.nullable : true, absent: shape ? !shape.required : true };
}

/** Free-text variants of one word: whole, prefix, infix, suffix, upper case, wildcards and regex metacharacters. */
export function textVariants(word: string, nullable: boolean, emptyAllowed: boolean): Array<string | null> {
  const lower = word.toLowerCase();
  return [
    word,
    `${word} jams daily`,
    `old ${word} unit`,
    `replace the ${word}`,
    `${word.toUpperCase()} LOUD`,
    `a*b?c%d_e ${lower}`,
    `v1.2 [x] ^$ (${word})`,
    nullable ? null : `${word}${word}`,
    emptyAllowed ? '' : `${lower} and ${word}`,
  ];
}

/** The reference sandbox's agent API mirrors the public paths under `{agentUrl}/{environment}`. */
function agent(ctx: Context, method: string, path: string, body: unknown) {
  const base = ctx.config.agentUrl!.replace(/\/$/, '');
  return send(method, `${base}/${ctx.environment}${path}`, { 'content-type': 'application/json' }, JSON.stringify(body), ctx.counter);
}

/** What to write into each body field for fixture number `i` (undefined: leave out). */
async function valuePlan(ctx: Context, operationId: string, field: FilterFieldSpec, shape: FieldShape, count: number, contacts: string[]): Promise<Array<unknown>> {
  const s = shape.schema;
  // null where the item may hold it (a body leaves the field out, or an agent sets it), whatever the body's schema says.
  const nullable = fieldShape(ctx, itemSchemaOf(ctx, operationId), field.name)?.nullable ?? shape.nullable;
  const word = 'Fuser';
  if (isReference(ctx, field.name)) {
    const own = [...(await ctx.fixtures.controlledContracts())];
    // The last one without (null), where the description allows it and the agent API can unassign.
    return Array.from({ length: count }, (_, i) => (i === count - 1 && nullable && ctx.config.agentUrl ? null : own[i % own.length]));
  }
  if (field.type === 'string' && s.format === 'email') {
    return Array.from({ length: count }, (_, i) => (nullable && i % 4 === 3 ? null : contacts[i % contacts.length]));
  }
  if (field.type === 'stringArray') {
    return Array.from({ length: count }, (_, i) => [[], contacts.slice(0, 1), contacts.slice(0, 2), contacts.slice(1, 2)][i % 4].filter(Boolean));
  }
  if (field.type === 'integer') {
    const values = (s.enum as number[] | undefined)?.slice().sort((a, b) => a - b) ?? [s.minimum ?? 0, (s.minimum ?? 0) + 1, (s.minimum ?? 0) + 2];
    return Array.from({ length: count }, (_, i) => values[i % values.length]);
  }
  if (field.type === 'boolean') return Array.from({ length: count }, (_, i) => i % 3 === 2);
  if (field.type === 'string') {
    const variants = textVariants(word, nullable, canBeEmpty(ctx, operationId, field));
    return Array.from({ length: count }, (_, i) => variants[i % variants.length]);
  }
  return [];
}

const FIXTURE_COUNT = 9;

/** Create the discriminating cases (with writes) or read the customer's cases; memoised for the run. */
export function discriminatingCases(ctx: Context): Promise<DiscriminatingData> {
  return ctx.memo('discriminating:cases', async () => {
    if (!ctx.canWrite) return readOnlyData(ctx, 'listCases', {});
    const create = ctx.spec.operation('createCase').requestBody?.schema;
    const update = ctx.spec.operation('updateCase').requestBody?.schema;
    const fields = Object.values(ctx.spec.operation('listCases').list!.filterFields);
    const marker = `zq${ctx.runTag}`;
    const contacts = ctx.config.customer.contacts;
    const bodies: Array<{ create: Record<string, unknown>; update: Record<string, unknown>; agent: Record<string, unknown> }> =
      Array.from({ length: FIXTURE_COUNT }, () => ({ create: {}, update: {}, agent: {} }));
    for (const field of fields) {
      const inCreate = fieldShape(ctx, create, field.name);
      const inUpdate = fieldShape(ctx, update, field.name);
      const inItem = fieldShape(ctx, itemSchemaOf(ctx, 'listCases'), field.name)!;
      const viaAgent = !inCreate && !inUpdate && inItem.readOnly && inItem.nullable && field.type === 'string' && ctx.config.agentUrl;
      const shape = inCreate ?? inUpdate ?? (viaAgent ? inItem : undefined);
      if (!shape) continue; // set by the service only: its values are what the service gives
      const plan = await valuePlan(ctx, 'listCases', field, shape, FIXTURE_COUNT, contacts);
      plan.forEach((value, i) => {
        const target = viaAgent ? bodies[i].agent : inCreate ? bodies[i].create : bodies[i].update;
        if (value === null) {
          // null: left out of the create body (the service stores null), or set to null where a body takes null.
          if (viaAgent || (!inCreate && inUpdate?.nullable)) target[field.name] = null;
          else if (inCreate?.required && isReference(ctx, field.name) && ctx.config.agentUrl) {
            // Created with a value (it is required), then unassigned by the agent API.
            bodies[i].agent[field.name] = null;
            target[field.name] = plan.find((v) => v !== null);
          } else if (inCreate?.required) target[field.name] = `${field.name} ${i}`;
          return;
        }
        target[field.name] = value;
      });
    }
    const ids: string[] = [];
    for (const [i, b] of bodies.entries()) {
      // Every record the suite creates starts with MARK (cleanup by prefix finds it); the run's marker ends the short
      // description. Between them the variants still hold prefix, infix and suffix occurrences of the word.
      const short = typeof b.create.shortDescription === 'string' ? b.create.shortDescription : `case ${i}`;
      b.create.shortDescription = `${MARK} ${short} ${marker}`;
      const x = await ctx.call(ctx.customer, 'createCase', {}, { json: b.create });
      expectStatus(x, 201, `creating discriminating case ${i + 1}`);
      const id = x.json.data.id as string;
      ids.push(id);
      if (Object.keys(b.update).length) expectStatus(await ctx.call(ctx.customer, 'updateCase', { caseId: id }, { json: b.update }), 200, `updating discriminating case ${i + 1}`);
      if (Object.keys(b.agent).length) expectStatus(await agent(ctx, 'PATCH', ctx.path('updateCase', { caseId: id }), b.agent), 200, `setting read-only fields of discriminating case ${i + 1} (agent API)`);
    }
    return scoped(ctx, 'listCases', {}, ids, serializeFilter({ shortDescription: { endswith: marker } }, ctx.spec.operators).join('&'), `${ids.length} cases created for it`);
  });
}

/** Create a fresh case with discriminating comments (with writes) or read the comments of a case. */
export function discriminatingComments(ctx: Context): Promise<DiscriminatingData> {
  return ctx.memo('discriminating:comments', async () => {
    if (!ctx.canWrite) return readOnlyData(ctx, 'listCaseComments', { caseId: await ctx.fixtures.caseId() });
    const cases = await discriminatingCases(ctx);
    // The first fixture case has a contract of the account; a fresh case holds only the comments made here.
    const contract = cases.items.find((c) => c.contract)?.contract ?? (await ctx.fixtures.contract());
    const x = await ctx.call(ctx.customer, 'createCase', {}, { json: { contract, shortDescription: `${MARK} comments zq${ctx.runTag}` } });
    expectStatus(x, 201, 'creating the case for discriminating comments');
    const caseId = x.json.data.id as string;
    const create = ctx.spec.operation('createCaseComment').requestBody?.schema;
    const fields = Object.values(ctx.spec.operation('listCaseComments').list!.filterFields);
    const bodies: Array<Record<string, unknown>> = Array.from({ length: FIXTURE_COUNT - 1 }, () => ({}));
    for (const field of fields) {
      const shape = fieldShape(ctx, create, field.name);
      if (!shape) continue;
      const plan = await valuePlan(ctx, 'listCaseComments', field, shape, bodies.length, ctx.config.customer.contacts);
      // The comment's text starts with MARK, as every text the suite writes.
      const marked = (v: unknown) => (field.name === 'text' && typeof v === 'string' ? `${MARK} ${v}` : v);
      plan.forEach((value, i) => { if (value !== null && value !== undefined) bodies[i][field.name] = marked(value); });
    }
    const partnerContact = ctx.config.partner?.contacts?.[0];
    for (const [i, body] of bodies.entries()) {
      // A partner comment needs a partner account or the agent API; without either the customer writes a normal one.
      const partnerComment = Object.entries(body).some(([k, v]) => v === true && fieldShape(ctx, create, k)?.schema?.type === 'boolean');
      if (partnerComment && ctx.config.agentUrl && partnerContact) {
        expectStatus(await agent(ctx, 'POST', ctx.path('createCaseComment', { caseId }), { ...body, contact: partnerContact }), 201, `writing discriminating partner comment ${i + 1} (agent API)`);
        continue;
      }
      const plain = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== true));
      expectStatus(await ctx.call(ctx.customer, 'createCaseComment', { caseId }, { json: plain }), 201, `writing discriminating comment ${i + 1}`);
    }
    const all = await ctx.listAll(ctx.customer, 'listCaseComments', { caseId });
    const ids = all.items.map((c) => c.id as string);
    return scoped(ctx, 'listCaseComments', { caseId }, ids, '', `${ids.length} comments on a fresh case`);
  });
}

async function scoped(ctx: Context, operationId: string, params: Record<string, string>, ids: string[], scopeWithoutId: string, source: string): Promise<DiscriminatingData> {
  const scope = serializeFilter({ id: { in: ids } }, ctx.spec.operators).join('&');
  const r = await ctx.list(ctx.customer, operationId, params, `${scope}&page[size]=200`);
  return { operationId, params, items: r.items, scope, scopeWithoutId, source };
}

/** Read-only: the first page of 50 items the list answers, scoped by their ids. */
async function readOnlyData(ctx: Context, operationId: string, params: Record<string, string>): Promise<DiscriminatingData> {
  // Sorted by id, so the range of the page's ids holds exactly its items (while nothing is added).
  const sort = ctx.spec.operation(operationId).list!.sortFields.includes('id') ? 'sort=id&' : '';
  const r = await ctx.list(ctx.customer, operationId, params, `${sort}page[size]=50`);
  if (r.items.length === 0) throw new Skip(`not discriminated: read-only run and ${operationId} answers no item`);
  const ids = r.items.map((i) => i.id as string);
  const sorted = ids.slice().sort();
  const data = await scoped(ctx, operationId, params, ids, '', `${ids.length} items the list answers (read-only)`);
  // Without a marker, `id` operators are scoped by the range of these ids, which holds exactly them when nothing is added.
  data.scopeWithoutId = serializeFilter({ id: { between: [sorted[0], sorted[sorted.length - 1]] } }, ctx.spec.operators).join('&');
  return data;
}
