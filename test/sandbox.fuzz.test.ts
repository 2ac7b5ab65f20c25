// Fuzzing from the description (fast-check): 5,000+ requests to every operation in both environments, valid and
// invalid (wrong types, missing and unknown fields, unknown filter fields and operators, malformed JSON, huge bodies,
// odd unicode, foreign ids, bad tokens). Every answer: no 5xx, the env header, the envelope, a declared status and a
// body valid against the description; a rejected request writes nothing. Then the stateful part (issue 38): the
// description's OpenAPI `links` are followed, create then act on what was created, every link of each environment's
// bundle at least once and in drawn orders after that, each answer checked against the description.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePath, deref, loadSpec } from '../src/spec/index.ts';
import type { CareSpec, Environment, OperationSpec } from '../src/spec/types.ts';
import { exampleRequests, type ExampleRequest } from './helpers/examples.ts';
import { BASES, responseProblems, send, spec, startHarness } from './helpers/sandbox.ts';
import type { Answer, Harness } from './helpers/sandbox.ts';

const RUNS = 5200;
let h: Harness;
const ids: Record<Environment, Record<string, string[]>> = { production: {}, sandbox: {} };
/** Statuses answered that the operation does not declare: reported, and only 413 is tolerated (see below). */
const undeclared = new Map<string, number>();

beforeAll(async () => {
  h = await startHarness({ seedCases: 40, deliver: false });
  const store = h.sandbox.svc.store;
  for (const env of ['production', 'sandbox'] as Environment[]) {
    const demo = h.sandbox.demo[env];
    const any = { by: 'contract' as const, values: [...demo.partner.contracts, demo.foreignContract] };
    const cases = store.findAll('cases', env, any).map((c) => c.record.id);
    ids[env] = {
      caseId: cases.filter((_, i) => i % 5 === 0),
      commentId: store.findAll('comments', env, { by: 'case', values: cases }).slice(0, 20).map((c) => c.record.id),
      attachmentId: store.findAll('attachments', env, { by: 'case', values: cases }).slice(0, 20).map((c) => c.record.id),
      contractId: [...demo.partner.contracts, demo.foreignContract],
      keyId: [demo.customer.apiKeyId, demo.partner.apiKeyId, demo.revokedApiKey.apiKeyId],
      webhookId: [],
      eventId: [],
    };
  }
});
afterAll(async () => {
  await h?.close();
  if (undeclared.size > 0) console.log('statuses answered but not declared by the operation:', Object.fromEntries(undeclared));
});

const odd = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', ' ', '💥', 'Zürich', 'e\u0301', '\u0000', '\u202e', 'null', 'true', '1e309', '-0', '0x10', '2.5', "'; DROP TABLE cases; --", '[', '%', '*', '\\,'),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);

function pathValue(env: Environment, name: string) {
  const known = ids[env][name] ?? [];
  return fc.oneof({ weight: 4, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant('X1') }, { weight: 1, arbitrary: odd.filter((s) => s.length > 0) }, { weight: 1, arbitrary: fc.constant('x'.repeat(70)) });
}

function queryArb(op: OperationSpec) {
  const list = op.list;
  if (!list) return fc.constant('');
  const fields = [...Object.keys(list.filterFields), 'colour', 'created_at', ''];
  const operators = [...Object.keys(spec.operators), 'regex', 'EQ', ''];
  const value = fc.oneof(odd, fc.integer().map(String), fc.constantFrom('2026-01-01', '2026-13-45', '1,2', '1,2,3', 'CT0000101', 'a\\,b,c', '^P', '(', 'true'));
  const pair = fc.oneof(
    fc.tuple(fc.constantFrom(...fields), fc.constantFrom(...operators), value).map(([f, o, v]) => [`filter[${f}][${o}]`, v]),
    fc.tuple(fc.constantFrom(...fields), value).map(([f, v]) => [`filter[${f}]`, v]),
    fc.tuple(fc.constantFrom(...fields), fc.constantFrom(...operators)).map(([f, o]) => [`filter[${f}][${o}]`, '']),
    fc.tuple(fc.constantFrom('page[number]', 'page[size]', 'page[other]', 'page'), fc.oneof(fc.integer({ min: -3, max: 400 }).map(String), odd)).map(([k, v]) => [k, v]),
    fc.tuple(fc.constant('sort'), fc.oneof(fc.subarray(list.sortFields.flatMap((f) => [f, `-${f}`])).map((a) => a.join(',')), odd)).map(([k, v]) => [k, v]),
    fc.tuple(odd, odd).map(([k, v]) => [k, v]),
  );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.map(([k, v]) => `${safeEncode(k)}=${safeEncode(v)}`).join('&'));
}

function safeEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return 'x';
  }
}

/** Plausible values per field name and type, mixed with junk of every JSON type. */
function fieldValue(env: Environment, name: string, schema: any) {
  const demo = h.sandbox.demo[env];
  const emails = [...demo.customer.contacts, ...demo.partner.contacts, 'nobody@else.example', 'not an email'];
  const junk = fc.oneof(fc.jsonValue({ maxDepth: 2 }), odd, fc.integer(), fc.boolean(), fc.constant(null));
  const plausible: Record<string, fc.Arbitrary<unknown>> = {
    contract: fc.constantFrom(...demo.customer.contracts, ...demo.partner.contracts, demo.foreignContract, 'CT9999999'),
    contact: fc.constantFrom(...emails),
    watchList: fc.oneof(fc.subarray(emails), fc.constantFrom(emails.join(','), 'a@b')),
    priority: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('2', '2.0', '2.5', 'high', 3.0)),
    status: fc.oneof(fc.constantFrom(1, 10, 18, 6, 3, 2, '10'), fc.integer()),
    shortDescription: fc.oneof(fc.string({ maxLength: 20 }), fc.constant('x'.repeat(161)), odd),
    text: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), odd),
    url: fc.constantFrom('https://127.0.0.1:9/hook', 'http://127.0.0.1:9/hook', 'ftp://x', 'not a url', ''),
    contracts: fc.oneof(fc.constant(['*']), fc.subarray([...demo.partner.contracts, demo.foreignContract, 'CT*']), fc.constant([])),
    eventTypes: fc.oneof(fc.constant(['case.*']), fc.constantFrom(['nope'], ['*'], ['case.updated', 'x'])),
    authorization: fc.oneof(
      fc.constant(null),
      fc.constant({ type: 'bearer', token: 't' }),
      fc.constant([{ type: 'basic', username: 'u', password: 'p' }, { type: 'header', name: 'X-K', value: 'v' }]),
      fc.constant({ type: 'header', name: 'bad name', value: 'v' }),
      fc.constant({ type: 'bearer' }),
    ),
    partnerComment: fc.constantFrom(true, false, 'yes', 'no', 1, 2, 'maybe'),
    enabled: fc.constantFrom(true, false, 'on', 'off', 'x'),
    expiresAt: fc.constantFrom(null, '2099-01-01', '2000-01-01', 4102444800, 'tomorrow', '2026-02-30T00:00'),
    label: fc.oneof(fc.string({ maxLength: 10 }), fc.constant('')),
    caseId: fc.constantFrom(...(ids[env].caseId.length > 0 ? ids[env].caseId : ['CS0010001']), 'CS9999999'),
    commentId: fc.constantFrom(...(ids[env].commentId.length > 0 ? ids[env].commentId : ['CC1']), 'CC9999999'),
    attachmentId: fc.constantFrom(...(ids[env].attachmentId.length > 0 ? ids[env].attachmentId : ['AT1']), 'AT9999999'),
    updated: fc.constantFrom(['status'], ['colour'], [], 'status,priority'),
    externalReference: fc.oneof(fc.constant(null), fc.string({ maxLength: 10 }), fc.constant('r'.repeat(101))),
  };
  void schema;
  return fc.oneof({ weight: 5, arbitrary: plausible[name] ?? junk }, { weight: 1, arbitrary: junk });
}

function bodyArb(env: Environment, op: OperationSpec) {
  const schema = op.requestBody?.schema;
  if (!schema || !op.requestBody?.contentTypes.includes('application/json')) return fc.constant(undefined);
  const resolved = deref(spec.document, schema);
  const names = Object.keys(resolved.properties ?? {});
  const object = fc
    .tuple(...names.map((n) => fc.option(fieldValue(env, n, resolved.properties[n]), { nil: undefined, freq: 3 })), fc.option(fc.tuple(odd, fc.jsonValue({ maxDepth: 1 })), { freq: 4 }))
    .map((values) => {
      const body: Record<string, unknown> = {};
      names.forEach((n, i) => {
        if (values[i] !== undefined) body[n] = values[i];
      });
      const extra = values[names.length] as [string, unknown] | null;
      if (extra) body[extra[0]] = extra[1];
      return JSON.stringify(body);
    });
  return fc.oneof(
    { weight: 12, arbitrary: object },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constantFrom('{"contract": ', '{,}', 'nul', '\uFEFF{}', '{"a":1}}', '') },
    { weight: 1, arbitrary: odd },
  );
}

interface Request {
  env: Environment;
  op: OperationSpec;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

function requestArb(): fc.Arbitrary<Request> {
  return fc
    .tuple(fc.constantFrom(...spec.operations), fc.constantFrom<Environment>('production', 'sandbox'))
    .filter(([op, env]) => op.environments.includes(env))
    .chain(([op, env]) => {
      const params = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
      const isUpload = op.requestBody?.contentTypes.includes('multipart/form-data');
      return fc
        .record({
          params: fc.tuple(...params.map((p) => pathValue(env, p))),
          query: queryArb(op),
          body: isUpload ? fc.constant(undefined) : bodyArb(env, op),
          upload: fc.constantFrom('file', 'other', 'json', 'none'),
          who: fc.constantFrom('customer', 'customer', 'customer', 'partner', 'partner', 'partner', 'none', 'garbage', 'otherEnv'),
          type: fc.constantFrom('application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'none'),
        })
        .map(({ params: values, query, body, upload, who, type }) => {
          let path = op.path;
          params.forEach((name, i) => {
            path = path.replace(`{${name}}`, safeEncode(values[i] as string));
          });
          const headers: Record<string, string> = {};
          const other: Environment = env === 'production' ? 'sandbox' : 'production';
          if (who === 'customer' || who === 'partner') headers.authorization = `Bearer ${h.tokens[env][who]}`;
          if (who === 'garbage') headers.authorization = 'Bearer eyJhbGciOiJub25lIn0.e30.';
          if (who === 'otherEnv') headers.authorization = `Bearer ${h.tokens[other].customer}`;
          let payload: string | FormData | undefined = body;
          if (isUpload) {
            if (upload === 'file' || upload === 'other') {
              const form = new FormData();
              form.append(upload, new Blob([Buffer.from('fuzz ✓')], { type: 'text/plain' }), 'fuzz ✓.txt');
              payload = form;
            } else if (upload === 'json') {
              payload = '{}';
              headers['content-type'] = 'application/json';
            }
          } else if (payload !== undefined && type !== 'none') headers['content-type'] = type;
          return { env, op, path: `${path}${query ? `?${query}` : ''}`, method: op.method.toUpperCase(), headers, body: payload };
        });
    });
}

function checkAnswer(request: Request, answer: Answer, writesBefore: number, writesAfter: number): void {
  const where = `${request.method} ${request.path} ${typeof request.body === 'string' ? request.body.slice(0, 200) : ''} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  expect(answer.headers.get('x-careapi-env'), where).toBe(request.env === 'production' ? 'Production' : 'Sandbox');
  if (answer.status >= 400) {
    expect(answer.json?.meta, where).toBeTypeOf('object');
    expect(answer.json.errors.length, where).toBeGreaterThan(0);
    for (const error of answer.json.errors) {
      expect(error, where).toMatchObject({ status: String(answer.status), title: expect.any(String), detail: expect.any(String), code: expect.any(String) });
      expect(error.detail, where).toMatch(/^(body|query|path|header|method|server)(\.|:)/);
    }
    expect(writesAfter, `a rejected request wrote: ${where}`).toBe(writesBefore);
  }
  const problems = responseProblems(request.op, request.env, answer);
  const notDeclared = problems.some((p) => p.includes('is not declared'));
  if (notDeclared) {
    const key = `${request.op.operationId} ${answer.status}`;
    undeclared.set(key, (undeclared.get(key) ?? 0) + 1);
    // 413 on JSON operations: the description declares it on uploads only (D-10 says JSON bodies over 1 MiB are 413).
    expect(answer.status, where).toBe(413);
  } else {
    expect(problems, where).toEqual([]);
  }
}

describe('fuzzing from the description', () => {
  it('answers huge bodies 413 and writes nothing', async () => {
    const before = h.sandbox.svc.store.writeCount();
    for (const env of ['production', 'sandbox'] as Environment[]) {
      const contract = h.sandbox.demo[env].customer.contracts[0];
      const body = JSON.stringify({ contract, shortDescription: 'big', description: '💥'.repeat(400_000) });
      const answer = await h.call(env, 'customer', 'POST', '/cases', body, { 'content-type': 'application/json' });
      expect(answer.status).toBe(413);
      expect(answer.json.errors[0].code).toBe('payload_too_large');
    }
    expect(h.sandbox.svc.store.writeCount()).toBe(before);
  });

  it(`answers ${RUNS} generated requests without 5xx, in the envelope, as declared, writing nothing when rejecting`, async () => {
    let count = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb(), async (request) => {
        const before = h.sandbox.svc.store.writeCount();
        const answer = await send(h.origin + BASES[request.env] + request.path, { method: request.method, headers: request.headers, body: request.body });
        const after = h.sandbox.svc.store.writeCount();
        count++;
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        checkAnswer(request, answer, before, after);
        // keep the ids of things made on the way, so later requests address them
        if (answer.status === 201 && answer.json?.data?.id) {
          const id: string = answer.json.data.id;
          const key = id.startsWith('WH') ? 'webhookId' : id.startsWith('AK') ? 'keyId' : id.startsWith('CS') ? 'caseId' : id.startsWith('CC') ? 'commentId' : id.startsWith('AT') ? 'attachmentId' : null;
          if (key) ids[request.env][key].push(id);
        }
        if (answer.status === 202 && answer.json?.data?.id) ids[request.env].eventId.push(answer.json.data.id);
      }),
      { numRuns: RUNS, seed: 20261122, endOnFailure: true },
    );
    expect(count).toBeGreaterThanOrEqual(5000);
    // the generator reaches success and every kind of refusal
    for (const code of [200, 201, 400, 401, 403, 404]) expect(statuses.get(code) ?? 0, `status ${code}`).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The links walk: a stateful fuzzer over the description's own `links`.

interface DescribedLink {
  from: string;
  status: string;
  name: string;
  to: string;
  parameters: Record<string, string>;
}

interface Step {
  env: Environment;
  operationId: string;
  pathParams: Record<string, string>;
  answer: Answer;
}

/** Its own sandbox: the fuzzing above revokes the demo keys on its way. */
let w: Harness;

const envSpecs = { production: loadSpec(bundlePath('production')), sandbox: loadSpec(bundlePath('sandbox')) } as Record<Environment, CareSpec>;

/** Every link of a bundle, read from the responses of its operations. */
function describedLinks(envSpec: CareSpec): DescribedLink[] {
  const links: DescribedLink[] = [];
  for (const op of envSpec.operations) {
    const raw = deref(envSpec.document, envSpec.document.paths[op.path])[op.method];
    for (const [status, response] of Object.entries<any>(raw.responses ?? {})) {
      for (const [name, link] of Object.entries<any>(deref(envSpec.document, response).links ?? {})) {
        const resolved = deref(envSpec.document, link);
        links.push({ from: op.operationId, status, name, to: resolved.operationId, parameters: resolved.parameters ?? {} });
      }
    }
  }
  return links;
}

/** A link's runtime expression against the step that answered: `$response.body#/…`, `$request.path.…` or a constant. */
function evaluate(expression: string, step: Step): string | undefined {
  const body = /^\$response\.body#(.*)$/.exec(expression);
  if (body) {
    let node: any = step.answer.json;
    for (const segment of body[1].split('/').slice(1)) node = node?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
    return node === undefined || node === null ? undefined : String(node);
  }
  const path = /^\$request\.path\.(.+)$/.exec(expression);
  if (path) return step.pathParams[path[1]];
  return expression;
}

/** The request of `operationId` made of the bundle's examples, its path parameters replaced by `pathParams`. */
function requestFor(env: Environment, operationId: string, pathParams: Record<string, string>, examples: Map<string, ExampleRequest>): { url: string; init: RequestInit; pathParams: Record<string, string> } {
  const op = envSpecs[env].operation(operationId);
  const example = examples.get(operationId)!;
  const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const exampleValues = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(example.path.split('/').filter(Boolean)[op.path.split('/').filter(Boolean).indexOf(`{${name}}`)] ?? '')]));
  const values = { ...exampleValues, ...pathParams };
  let path = op.path;
  for (const name of names) path = path.replace(`{${name}}`, encodeURIComponent(values[name]));
  let body = example.body;
  if (body instanceof FormData) {
    body = new FormData();
    body.append('file', new Blob([Buffer.from('links walk\n')], { type: 'text/plain' }), 'walk.log');
  }
  return {
    url: `${w.origin}${BASES[env]}${path}`,
    init: { method: example.method, headers: { authorization: `Bearer ${w.tokens[env].partner}`, ...example.headers }, body },
    pathParams: values,
  };
}

/** Roots of a walk: operations that make or list things (no path parameter), and in the sandbox the triggers,
 * whose bodies name records of this harness's seed. */
function rootSteps(env: Environment): string[] {
  const roots = envSpecs[env].operations.filter((op) => !op.path.includes('{') && (op.method === 'post' || op.list));
  // what makes things first, so the lists after them have something to link to
  return [...roots.filter((op) => op.method === 'post'), ...roots.filter((op) => op.method !== 'post')].map((op) => op.operationId);
}

function triggerBody(env: Environment, operationId: string): string | undefined {
  if (!operationId.startsWith('trigger')) return undefined;
  const store = w.sandbox.svc.store;
  const demo = w.sandbox.demo[env];
  const cases = store.findAll('cases', env, { by: 'contract', values: demo.partner.contracts }).map((c) => c.record.id as string);
  if (operationId === 'triggerCaseCommentCreated') {
    const comment = store.findAll('comments', env, { by: 'case', values: cases })[0].record;
    return JSON.stringify({ caseId: comment.case, commentId: comment.id });
  }
  if (operationId === 'triggerCaseAttachmentCreated') {
    const attachment = store.findAll('attachments', env, { by: 'case', values: cases })[0].record;
    return JSON.stringify({ caseId: attachment.case, attachmentId: attachment.id });
  }
  if (operationId === 'triggerCaseUpdated') return JSON.stringify({ caseId: cases[0], updated: ['status'] });
  return JSON.stringify({ caseId: cases[0] });
}

/** Sends one step and checks its answer: no 5xx, a declared status, an answer valid against the description. */
async function takeStep(env: Environment, operationId: string, pathParams: Record<string, string>, examples: Map<string, ExampleRequest>, trail: string[]): Promise<Step> {
  const request = requestFor(env, operationId, pathParams, examples);
  const body = triggerBody(env, operationId);
  if (body) request.init.body = body;
  const answer = await send(request.url, request.init);
  const where = `${env} ${[...trail, operationId].join(' -> ')} ${request.init.method} ${request.url} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  expect(responseProblems(envSpecs[env].operation(operationId), env, answer), where).toEqual([]);
  return { env, operationId, pathParams: request.pathParams, answer };
}

/** The steps a link of `step`'s answer leads to, with the path parameters it gives (undefined when the answer has
 * nothing there, as a link from an empty page). */
function nextRequests(step: Step, links: DescribedLink[]): Array<{ link: DescribedLink; pathParams: Record<string, string> } > {
  const found: Array<{ link: DescribedLink; pathParams: Record<string, string> }> = [];
  for (const link of links.filter((l) => l.from === step.operationId && l.status === String(step.answer.status))) {
    const pathParams: Record<string, string> = {};
    let complete = true;
    for (const [name, expression] of Object.entries(link.parameters)) {
      const value = evaluate(expression, step);
      if (value === undefined) complete = false;
      else pathParams[name.replace(/^path\./, '')] = value;
    }
    if (complete) found.push({ link, pathParams });
  }
  return found;
}

/** Deletions and revocations go last among the links of one answer (the others act on what they would remove),
 * what makes things first (the lists after them then have something to link to). */
const destroys = (operationId: string) => operationId.startsWith('delete') || operationId.startsWith('revoke');
const makes = (operationId: string) => operationId.startsWith('create') || operationId.startsWith('upload');
const linkOrder = (operationId: string) => (makes(operationId) ? 0 : destroys(operationId) ? 2 : 1);

describe('the links walk (stateful fuzzing from the description\'s links)', () => {
  beforeAll(async () => {
    w = await startHarness({ seedCases: 40, deliver: false });
  });
  afterAll(async () => w?.close());

  for (const env of ['sandbox', 'production'] as Environment[]) {
    it(`${env}: follows every link from what the roots make and list, each answer as described and accepted`, async () => {
      const links = describedLinks(envSpecs[env]);
      expect(links.length).toBeGreaterThan(env === 'sandbox' ? 30 : 20);
      const examples = new Map(exampleRequests(envSpecs[env], env).map((r) => [r.operationId, r]));
      const followed = new Set<string>();
      const walk = async (step: Step, trail: string[]): Promise<void> => {
        const next = nextRequests(step, links).sort((a, b) => linkOrder(a.link.to) - linkOrder(b.link.to));
        for (const { link, pathParams } of next) {
          const taken = await takeStep(env, link.to, pathParams, examples, [...trail, `${step.operationId}[${link.name}]`]);
          // a link from a successful answer leads to a request the service accepts: create, then act on it
          expect(taken.answer.status, `${env} ${trail.join(' -> ')} ${step.operationId} -[${link.name}]-> ${link.to} ${JSON.stringify(pathParams)}: ${taken.answer.text.slice(0, 300)}`).toBeLessThan(300);
          followed.add(`${link.from} ${link.status} ${link.name}`);
          await walk(taken, [...trail, step.operationId]);
        }
      };
      for (const root of rootSteps(env)) {
        const step = await takeStep(env, root, {}, examples, []);
        expect(step.answer.status, `${env} root ${root}: ${step.answer.text.slice(0, 300)}`).toBeLessThan(300);
        await walk(step, []);
        // made once more and kept: the walk above deleted what it made, and the lists after it link from their items
        if (envSpecs[env].operation(root).method === 'post') await takeStep(env, root, {}, examples, []);
      }
      const never = links.map((l) => `${l.from} ${l.status} ${l.name}`).filter((key) => !followed.has(key));
      expect(never, 'links no walk followed').toEqual([]);
    }, 120_000);

    it(`${env}: drawn walks over everything made so far (delete, then read; revoke, then change) stay as described`, async () => {
      const links = describedLinks(envSpecs[env]);
      const examples = new Map(exampleRequests(envSpecs[env], env).map((r) => [r.operationId, r]));
      const roots = rootSteps(env);
      let steps = 0;
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...roots), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), async (root, choices) => {
          const pool: Step[] = [await takeStep(env, root, {}, examples, [])];
          const gone = new Set<string>();
          for (const choice of choices) {
            const options = pool.flatMap((step) => nextRequests(step, links).map((next) => ({ step, ...next })));
            if (options.length === 0) break;
            const { step, link, pathParams } = options[choice % options.length];
            const taken = await takeStep(env, link.to, pathParams, examples, [`${step.operationId}[${link.name}]`]);
            steps++;
            const touchesGone = Object.values(pathParams).some((id) => gone.has(id));
            // only what a step of this walk deleted or revoked may be refused (404, 409, 400): the rest is accepted
            if (!touchesGone) expect(taken.answer.status, `${env} ${step.operationId} -[${link.name}]-> ${link.to} ${JSON.stringify(pathParams)}: ${taken.answer.text.slice(0, 300)}`).toBeLessThan(300);
            if (destroys(link.to) && taken.answer.status < 300) for (const id of Object.values(pathParams)) gone.add(id);
            pool.push(taken);
          }
        }),
        { numRuns: 40, seed: 20261126, endOnFailure: true },
      );
      expect(steps).toBeGreaterThan(100);
    }, 180_000);
  }
});
