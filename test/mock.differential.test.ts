// The mock and the sandbox are one service seen twice (issue 44, D-98). One corpus goes to the Prism mock of each
// environment (behind its front, started as `npm run mock` starts it) and to the sandbox, in both environments:
// every operation's own example request (valid), variants of each made invalid (no token, a token the service never
// issued, a method it does not declare, malformed and unknown ids, unknown keys, a lone surrogate, wrong types, JSON
// that is not, wrong media types, list queries the grammar refuses), multipart variants, absolute-form targets and the
// raw-socket corpus of malformed HTTP. Both answers must agree on the status, the envelope, the error locations and
// codes, and the headers the description declares (X-CareAPI-Env, Allow, Location under the environment's base).
// Where they may not, the reason is one of the differences docs/mocks.md lists under "What differs from the sandbox":
// the test reads that list, and a disagreement none of them explains fails it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../src/mock/index.ts';
import { bundlePath, deref, loadSpec, repoRoot } from '../src/spec/index.ts';
import type { CareSpec, Environment, OperationSpec } from '../src/spec/types.ts';
import { exampleAccount, type ExampleRequest, exampleRequests } from './helpers/examples.ts';
import { rawCorpus, sendRaw } from './helpers/raw-corpus.ts';
import { startHarness, type Harness } from './helpers/sandbox.ts';

const ENVIRONMENTS: Environment[] = ['production', 'sandbox'];
const specs = Object.fromEntries(ENVIRONMENTS.map((env) => [env, loadSpec(bundlePath(env))])) as Record<Environment, CareSpec>;
/** Each environment's base path, from its bundle's server URL (`https://{host}/care/v0/sandbox`). */
const BASE = Object.fromEntries(ENVIRONMENTS.map((env) => [env, String(specs[env].document.servers[0].url).replace(/^https?:\/\/[^/]+/, '')])) as Record<Environment, string>;
const ENV_VALUE: Record<Environment, string> = { production: 'Production', sandbox: 'Sandbox' };

// ---- the documented differences, read from docs/mocks.md ----

/** The bold names of the bullets under "## What differs from the sandbox". */
export function documentedDifferences(markdown: string): string[] {
  const section = /^## What differs from the sandbox\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? '';
  return [...section.matchAll(/^- \*\*([^*]+?)\.?\*\*/gm)].map((m) => m[1].trim());
}

// ---- the corpus ----

interface Probe {
  what: string;
  env: Environment;
  operation?: OperationSpec;
  /** Sent with fetch: method, a path under the base (query included), headers and body. */
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | FormData | Uint8Array;
  /** Or these bytes, written to a socket as they are. */
  raw?: Buffer;
  head?: boolean;
  /** The request reads what an earlier request of the corpus changed at the sandbox. */
  afterChange?: boolean;
  /** The path is the origin's, not under the environment's base (the token endpoint). */
  outsideBase?: boolean;
}

interface Outcome {
  status: number;
  env: string | null;
  allow: string | null;
  location: string | null;
  contentType: string | null;
  /** Names of the headers present, in lower case. */
  headerNames: Set<string>;
  json: any;
}

const UNKNOWN_ID = 'XX0000001';

/** The path of an example request with its last path parameter replaced. */
function withLastParam(op: OperationSpec, example: ExampleRequest, value: string): string | undefined {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  if (names.length === 0) return undefined;
  const segments = example.path.split('/');
  const templateSegments = op.path.split('/');
  const at = templateSegments.lastIndexOf(`{${names.at(-1)}}`);
  segments[at] = value;
  return segments.join('/');
}

/** A JSON body's top-level string property, for the lone surrogate. */
function firstStringProperty(body: Record<string, unknown>): string | undefined {
  return Object.keys(body).find((key) => typeof body[key] === 'string');
}

function multipart(parts: string[]): { body: Uint8Array; type: string } {
  const text = parts.map((part) => `--zz\r\n${part}\r\n`).join('') + '--zz--\r\n';
  return { body: new Uint8Array(Buffer.from(text)), type: 'multipart/form-data; boundary=zz' };
}

function variants(env: Environment, spec: CareSpec, example: ExampleRequest, token: string): Probe[] {
  const op = spec.operation(example.operationId);
  const path = `${example.path}${example.query ? `?${example.query}` : ''}`;
  const auth = { authorization: `Bearer ${token}` };
  const probe = (what: string, rest: Partial<Probe>): Probe => ({ what: `${env} ${op.operationId}: ${what}`, env, operation: op, method: example.method, path, headers: { ...auth, ...example.headers }, body: example.body, ...rest });
  const out: Probe[] = [
    probe('no token', { headers: { ...example.headers } }),
    probe('a token the service never issued', { headers: { ...example.headers, authorization: 'Bearer not-a-token-of-ours' } }),
    probe('PUT, a method no operation declares', { method: 'PUT' }),
    probe('trailing slash, no token', { path: `${example.path}/`, headers: { ...example.headers } }),
  ];
  if (example.method === 'GET') {
    out.push(probe('HEAD', { method: 'HEAD', head: true }));
    out.push(probe('Prism\'s Prefer: code=404', { headers: { ...auth, prefer: 'code=404' } }));
  }
  const malformed = withLastParam(op, example, '%zz');
  if (malformed) out.push(probe('malformed escape in the id', { path: malformed }));
  const unknown = withLastParam(op, example, UNKNOWN_ID);
  if (unknown) out.push(probe('an id that does not exist', { path: unknown }));
  if (op.list) {
    const base = example.path;
    out.push(probe('an unknown filter field', { path: `${base}?filter[colour][eq]=red` }));
    out.push(probe('page[size]=0 and page[number]=x', { path: `${base}?page[size]=0&page[number]=x` }));
    out.push(probe('an unknown sort field', { path: `${base}?sort=-colour` }));
    out.push(probe('a query that is not UTF-8', { path: `${base}?filter[id][eq]=%C3%28` }));
    const field = Object.values(op.list.filterFields).find((f) => f.type === 'integer');
    if (field) out.push(probe(`filter[${field.name}][in]=1,x`, { path: `${base}?filter[${field.name}][in]=1,x` }));
    const text = Object.values(op.list.filterFields).find((f) => f.type === 'string' && f.operators.includes('contains'));
    if (text) out.push(probe(`filter[${text.name}][contains] with a lone surrogate's escape`, { path: `${base}?filter[${text.name}][contains]=%ED%A0%80` }));
  }
  if (op.requestBody?.contentTypes.includes('application/json') && typeof example.body === 'string') {
    const valid = JSON.parse(example.body) as Record<string, unknown>;
    const json = { ...auth, 'content-type': 'application/json' };
    out.push(probe('an empty object', { headers: json, body: '{}' }));
    out.push(probe('three unknown keys beside valid fields', { headers: json, body: JSON.stringify({ ...valid, colour: 'red', size: 3, shape: null }) }));
    out.push(probe('twelve unknown keys alone', { headers: json, body: JSON.stringify(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`extra${i}`, i]))) }));
    const text = firstStringProperty(valid);
    if (text) out.push(probe(`a lone surrogate in ${text}`, { headers: json, body: JSON.stringify({ ...valid, [text]: 'before \ud800 after' }) }));
    out.push(probe('a prototype key', { headers: json, body: `{"__proto__": {"x": 1}, ${example.body.slice(1)}` }));
    out.push(probe('every field an object', { headers: json, body: JSON.stringify(Object.fromEntries(Object.keys(valid).map((key) => [key, { x: 1 }]))) }));
    const integer = Object.keys(valid).find((key) => Number.isInteger(valid[key]));
    if (integer) out.push(probe(`${integer} as a string`, { headers: json, body: JSON.stringify({ ...valid, [integer]: String(valid[integer]) }) }));
    out.push(probe('JSON that is not', { headers: json, body: '{"a": ' }));
    out.push(probe('an array', { headers: json, body: '[]' }));
    out.push(probe('text/plain', { headers: { ...auth, 'content-type': 'text/plain' } }));
    out.push(probe('nested 40 deep', { headers: json, body: JSON.stringify({ ...valid, [Object.keys(valid)[0]]: JSON.parse('['.repeat(40) + ']'.repeat(40)) }) }));
  }
  if (op.requestBody?.contentTypes.includes('multipart/form-data')) {
    const upload = (what: string, parts: string[]) => {
      const { body, type } = multipart(parts);
      out.push(probe(what, { headers: { ...auth, 'content-type': type }, body }));
    };
    upload('a file part without Content-Type', ['Content-Disposition: form-data; name="file"; filename="log.txt"\r\n\r\nprinter log']);
    upload('a file part without filename', ['Content-Disposition: form-data; name="file"\r\nContent-Type: text/plain\r\n\r\nprinter log']);
    upload('two file parts', ['Content-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nfirst', 'Content-Disposition: form-data; name="file"; filename="b.png"\r\nContent-Type: image/png\r\n\r\nsecond']);
    upload('no part named file', ['Content-Disposition: form-data; name="other"\r\n\r\nx']);
    upload('a text part and a file part without Content-Type', ['Content-Disposition: form-data; name="note"\r\n\r\nsee log', 'Content-Disposition: form-data; name="file"; filename="log.txt"\r\n\r\nprinter log']);
    out.push(probe('multipart without boundary', { headers: { ...auth, 'content-type': 'multipart/form-data' }, body: 'x' }));
    out.push(probe('JSON to an upload', { headers: { ...auth, 'content-type': 'application/json' }, body: '{}' }));
  }
  return out;
}

function absoluteForm(env: Environment, example: ExampleRequest, token: string): Probe {
  const target = `http://localhost${BASE[env]}${example.path}${example.query ? `?${example.query}` : ''}`;
  return {
    what: `${env} ${example.operationId}: absolute-form target`,
    env,
    raw: Buffer.from(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`, 'latin1'),
  };
}

function corpus(env: Environment, h: Harness): Probe[] {
  const spec = specs[env];
  const token = h.tokens[env].partner;
  const examples = exampleRequests(spec, env);
  const order = (r: ExampleRequest) => (r.operationId === 'revokeApiKey' ? 3 : r.method === 'POST' ? 0 : r.method === 'DELETE' ? 2 : 1);
  const valid = [...examples].sort((a, b) => order(a) - order(b));
  const caseId = String(deref(spec.document, { $ref: '#/components/parameters/CaseId' }).example);
  const probes: Probe[] = [];
  const exampleProbe = (example: ExampleRequest): Probe => {
    const op = spec.operation(example.operationId);
    return { what: `${env} ${op.operationId}: the example request`, env, operation: op, method: example.method, path: `${example.path}${example.query ? `?${example.query}` : ''}`, headers: { authorization: `Bearer ${h.tokens[env][exampleAccount(op.operationId)]}`, ...example.headers }, body: example.body };
  };
  // the example writes first: the records the other examples name exist from here on
  for (const example of valid.filter((e) => order(e) === 0)) probes.push(exampleProbe(example));
  // then the refusals and the reads: none of them changes the sandbox
  for (const example of examples) probes.push(...variants(env, spec, example, token));
  for (const example of examples.filter((e) => e.method === 'GET')) probes.push(absoluteForm(env, example, token));
  for (const item of rawCorpus({ base: BASE[env], token, caseId })) probes.push({ what: `${env} raw: ${item.what}`, env, raw: item.bytes, head: item.head });
  // fetch would read `//[` as a host: written to the socket as a client that sends the path as it is
  probes.push({ what: `${env} a path that is no URL (//[/cases)`, env, raw: Buffer.from(`GET //[/cases HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`) });
  probes.push({ what: `${env} the token endpoint`, env, method: 'POST', path: '/auth/v2/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials', outsideBase: true });
  probes.push({ what: `${env} a case of a contract the account does not control`, env, method: 'GET', path: `/cases/${foreignCaseIds[env]}`, headers: { authorization: `Bearer ${token}` } });
  // then the example reads and changes, deletions last (each DELETE once more: the sandbox has deleted it)
  for (const example of valid.filter((e) => order(e) > 0)) {
    probes.push(exampleProbe(example));
    if (example.method === 'DELETE' && example.operationId !== 'revokeApiKey') {
      probes.push({ ...exampleProbe(example), what: `${env} ${example.operationId}: the same DELETE again`, afterChange: true });
    }
  }
  return probes;
}

/** Per environment, a case of a contract the partner account does not control (found at start). */
const foreignCaseIds: Record<Environment, string> = { production: '', sandbox: '' };

// ---- sending and reading ----

function fromRaw(bytes: Buffer): Outcome {
  const text = bytes.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const lines = (split >= 0 ? text.slice(0, split) : text).split('\r\n');
  const header = (name: string) => lines.find((line) => line.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? null;
  let json: any;
  try {
    json = JSON.parse(bytes.subarray(split + 4).toString('utf8'));
  } catch {
    json = undefined;
  }
  const headerNames = new Set(lines.slice(1).map((line) => line.slice(0, line.indexOf(':')).trim().toLowerCase()));
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0), env: header('x-careapi-env'), allow: header('allow'), location: header('location'), contentType: header('content-type'), headerNames, json };
}

function headerNamesOf(headers: Headers): Set<string> {
  const names = new Set<string>();
  headers.forEach((_value, name) => names.add(name.toLowerCase()));
  return names;
}

async function send(origin: string, probe: Probe): Promise<Outcome> {
  if (probe.raw) return fromRaw(await sendRaw(Number(new URL(origin).port), probe.raw));
  const url = `${origin}${probe.outsideBase ? '' : BASE[probe.env]}${probe.path}`;
  const response = await fetch(url, { method: probe.method, headers: probe.headers, body: probe.body as BodyInit | undefined });
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const h = response.headers;
  return { status: response.status, env: h.get('x-careapi-env'), allow: h.get('allow'), location: h.get('location'), contentType: h.get('content-type'), headerNames: headerNamesOf(h), json };
}

// ---- comparing ----

const locationOf = (detail: string) => detail.slice(0, Math.max(0, detail.indexOf(': ')));

/** The errors as sorted `location code (title)` lines. */
function errorKeys(outcome: Outcome): string[] {
  const errors: any[] = Array.isArray(outcome.json?.errors) ? outcome.json.errors : [];
  return errors.map((e) => `${locationOf(String(e.detail))} ${e.code} (${e.title})`).sort();
}

function isEnvelope(outcome: Outcome, status: number): boolean {
  const body = outcome.json;
  if (!body || typeof body.meta !== 'object' || typeof body.meta.requestId !== 'string') return false;
  if (status >= 400) return Array.isArray(body.errors) && body.errors.length > 0 && body.errors.every((e: any) => e.status === String(status));
  return 'data' in body;
}

/** What differs between the two answers, as short lines (empty: they agree). */
function disagreements(probe: Probe, mock: Outcome, sandbox: Outcome): string[] {
  const out: string[] = [];
  if (mock.status !== sandbox.status) return [`status: mock ${mock.status}, sandbox ${sandbox.status}`];
  if (mock.env !== sandbox.env) out.push(`X-CareAPI-Env: mock ${mock.env}, sandbox ${sandbox.env}`);
  if (mock.allow !== sandbox.allow) out.push(`Allow: mock ${mock.allow}, sandbox ${sandbox.allow}`);
  const noBody = probe.head || mock.status === 204 || !/json/.test(sandbox.contentType ?? '');
  if (!noBody) {
    if (isEnvelope(mock, mock.status) !== isEnvelope(sandbox, sandbox.status)) out.push(`envelope: mock ${isEnvelope(mock, mock.status)}, sandbox ${isEnvelope(sandbox, sandbox.status)}`);
    if (mock.status >= 400 && errorKeys(mock).join('; ') !== errorKeys(sandbox).join('; ')) out.push(`errors: mock [${errorKeys(mock).join('; ')}], sandbox [${errorKeys(sandbox).join('; ')}]`);
    if (mock.status < 400 && mock.json && sandbox.json && Object.keys(mock.json.meta ?? {}).sort().join() !== Object.keys(sandbox.json.meta ?? {}).sort().join()) {
      out.push(`meta: mock ${Object.keys(mock.json.meta ?? {})}, sandbox ${Object.keys(sandbox.json.meta ?? {})}`);
    }
  }
  // every other header the description declares on this answer is sent by both or by neither
  const declared = probe.operation?.responses.find((r) => r.status === String(mock.status))?.headers ?? [];
  for (const name of declared.map((n) => n.toLowerCase())) {
    if (mock.headerNames.has(name) !== sandbox.headerNames.has(name)) out.push(`${name}: mock ${mock.headerNames.has(name) ? 'sent' : 'absent'}, sandbox ${sandbox.headerNames.has(name) ? 'sent' : 'absent'}`);
  }
  if ((mock.location === null) !== (sandbox.location === null)) out.push(`Location: mock ${mock.location}, sandbox ${sandbox.location}`);
  else if (mock.location && sandbox.location) {
    const collection = (location: string) => location.slice(0, location.lastIndexOf('/') + 1);
    if (collection(mock.location) !== collection(sandbox.location)) out.push(`Location: mock ${mock.location}, sandbox ${sandbox.location}`);
  }
  return out;
}

interface Pair {
  probe: Probe;
  mock: Outcome;
  sandbox: Outcome;
}

const codes = (outcome: Outcome): string[] => (Array.isArray(outcome.json?.errors) ? outcome.json.errors.map((e: any) => String(e.code)) : []);
const success = (outcome: Outcome) => outcome.status >= 200 && outcome.status < 300;

/**
 * Which documented difference explains a disagreement: one recogniser per bullet of docs/mocks.md, by its name.
 * Each is as narrow as the difference it names.
 */
const EXPLAINED_BY: Record<string, (pair: Pair) => boolean> = {
  'No state': ({ probe }) => probe.afterChange === true,
  'Any id answers': ({ mock, sandbox }) => mock.status !== 404 && sandbox.status === 404 && errorKeys(sandbox).every((key) => /^path\.\w+ not_found /.test(key)),
  'No scoping': ({ mock, sandbox }) => success(mock) && sandbox.status === 403,
  'Any bearer token': ({ probe, mock, sandbox }) => sandbox.status === 401 && /^Bearer \S/.test(probe.headers?.authorization ?? '') && !codes(mock).includes('unauthorized') && mock.status !== 401,
  'No token service': ({ probe, mock }) => (probe.path ?? '').startsWith('/auth/') && mock.status === 404,
  // the sandbox took a value its coercion reads, or named a type error otherwise (`datetime_type` for `string_type`)
  'No coercion of bodies': ({ mock, sandbox }) => {
    if (mock.status !== 400 || !codes(mock).every((c) => /_type$/.test(c) || c === 'missing' || c === 'extra_forbidden')) return false;
    if (success(sandbox)) return true;
    const at = (outcome: Outcome) => errorKeys(outcome).map((key) => key.split(' ')[0]);
    return sandbox.status === 400 && at(mock).join() === at(sandbox).join() && errorKeys(mock).every((key, i) => key === errorKeys(sandbox)[i] || /_type /.test(key));
  },
  'Prism\'s Prefer header': ({ probe }) => probe.headers?.prefer !== undefined,
  'No rate limiting': ({ sandbox }) => sandbox.status === 429,
  'One environment per mock': (pair) => {
    const expected = ENV_VALUE[pair.probe.env];
    const rest = disagreements(pair.probe, pair.mock, { ...pair.sandbox, env: pair.mock.env });
    return pair.mock.env === expected && pair.sandbox.env !== expected && rest.length === 0;
  },
  '503 while Prism restarts': ({ mock }) => mock.status === 503 && codes(mock).includes('mock_unavailable'),
};

let h: Harness;
const mocks = {} as Record<Environment, RunningMock>;
beforeAll(async () => {
  // seeded as a new database is: the description's examples name those records (test/description-examples.test.ts)
  h = await startHarness({ seedCases: 300, deliver: false });
  for (const env of ENVIRONMENTS) {
    mocks[env] = await startMock({ environment: env, log: () => undefined });
    // a case of a contract the partner does not control: 403 at the sandbox
    const list = await h.call(env, 'customer', 'GET', `/cases?page[size]=100`);
    const partnerContracts = new Set(h.sandbox.demo[env].partner.contracts);
    foreignCaseIds[env] = list.json.data.find((c: any) => !partnerContracts.has(c.contract))?.id ?? UNKNOWN_ID;
  }
}, 240_000);
afterAll(async () => {
  await Promise.all(ENVIRONMENTS.map((env) => mocks[env]?.stop()));
  await h?.close();
});

describe('the mock and the sandbox, one corpus', () => {
  const documented = documentedDifferences(readFileSync(resolve(repoRoot, 'docs/mocks.md'), 'utf8'));
  const seen: Record<string, number> = {};
  /** Statuses both answered alike, with how often. */
  const agreed: Record<number, number> = {};
  let sent = 0;

  it('docs/mocks.md lists exactly the differences this test recognises', () => {
    expect(documented.length).toBeGreaterThan(0);
    expect([...documented].sort()).toEqual(Object.keys(EXPLAINED_BY).sort());
  });

  it.each(ENVIRONMENTS)('%s: every disagreement is a documented difference', async (env) => {
    const probes = corpus(env, h);
    const unexplained: string[] = [];
    for (const probe of probes) {
      // one at a time: the sandbox keeps state and the corpus is ordered (writes, then reads, then deletions)
      const [mock, sandbox] = await Promise.all([send(mocks[env].url, probe), send(h.origin, probe)]);
      const lines = disagreements(probe, mock, sandbox);
      if (lines.length === 0) {
        agreed[mock.status] = (agreed[mock.status] ?? 0) + 1;
        continue;
      }
      const reason = Object.entries(EXPLAINED_BY).find(([name, explains]) => documented.includes(name) && explains({ probe, mock, sandbox }))?.[0];
      if (!reason) {
        unexplained.push(`${probe.what}\n    ${lines.join('\n    ')}`);
        continue;
      }
      seen[reason] = (seen[reason] ?? 0) + 1;
      if (process.env.CARE_DIFF_VERBOSE) console.log(`[${reason}] ${probe.what}\n    ${lines.join('\n    ')}`);
    }
    sent += probes.length;
    console.log(`${env}: ${probes.length} requests to each of the mock and the sandbox`);
    expect(unexplained, unexplained.join('\n')).toEqual([]);
    // the corpus reaches what both answer alike: success and the refusals
  }, 600_000);

  it('shows the differences it explains', () => {
    console.log(`differential corpus: ${sent} requests in all; answered alike, by status:`, agreed, 'documented differences seen:', seen);
    // the corpus reaches success and every kind of refusal, answered alike
    for (const status of [200, 201, 204, 400, 401, 404, 405, 413, 415, 431]) expect(agreed[status], `status ${status}`).toBeGreaterThan(0);
  });
});
