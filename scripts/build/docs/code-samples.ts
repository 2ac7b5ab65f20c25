// `x-codeSamples` of every operation, made from the description: curl against the local sandbox (with the API-key
// exchange first) and TypeScript with @care-api/client (a typed filter where the operation lists). Values come from
// the description's own examples: path parameters, the list parameters' examples, the request body's example or
// its required properties' examples. test/docs-samples.test.ts compiles every TypeScript sample against the packed
// client and runs the read-only ones, curl and TypeScript, against a sandbox.
import type { CareSpec, OperationSpec } from '../../../src/spec/index.ts';
import { splitList } from '../../../src/grammar/index.ts';

/**
 * The variables every sample reads: exactly the ones of the line `npm start` prints
 * (`export CARE_BASE_URL=… CARE_AUTH_URL=… CARE_API_KEY_ID=… CARE_API_KEY_SECRET=…`), so pasting it is the setup.
 */
export const SAMPLE_VARIABLES = ['CARE_BASE_URL', 'CARE_AUTH_URL', 'CARE_API_KEY_ID', 'CARE_API_KEY_SECRET'] as const;
const SETUP_COMMENT = 'First paste the line npm start prints: export CARE_BASE_URL=… CARE_AUTH_URL=… CARE_API_KEY_ID=… CARE_API_KEY_SECRET=…';

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** An operation of the complete description, raw (parameters may be $refs). */
function rawOperation(spec: CareSpec, op: OperationSpec): any {
  for (const item of Object.values<any>(spec.document.paths)) {
    for (const candidate of Object.values<any>(item)) if (candidate?.operationId === op.operationId) return candidate;
  }
  throw new Error(`operation ${op.operationId} not in paths`);
}

function deref(spec: CareSpec, node: any): any {
  let current = node;
  for (let i = 0; current?.$ref && i < 10; i++) current = spec.resolve(current.$ref);
  return current;
}

function parameters(spec: CareSpec, op: OperationSpec): any[] {
  const raw = rawOperation(spec, op);
  const item = Object.values<any>(spec.document.paths).find((i) => Object.values<any>(i).includes(raw));
  return [...(item?.parameters ?? []), ...(raw.parameters ?? [])].map((p) => deref(spec, p));
}

/** An example value of a schema: its example, else an object of its required properties' examples. */
export function exampleOf(spec: CareSpec, schemaNode: any, depth = 0): unknown {
  const schema = deref(spec, schemaNode);
  if (!schema || depth > 6) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    if (Array.isArray(schema[key])) {
      const parts = schema[key].map((s: any) => exampleOf(spec, s, depth + 1)).filter((v: unknown) => v !== undefined);
      if (key === 'allOf' && parts.every((p: unknown) => p && typeof p === 'object')) return Object.assign({}, ...parts);
      if (parts.length) return parts[0];
    }
  }
  if (schema.properties) {
    const out: Record<string, unknown> = {};
    for (const name of schema.required ?? []) out[name] = exampleOf(spec, schema.properties[name], depth + 1);
    // nothing required (an update): the first property that has an example, so the sample changes something
    if (!Object.keys(out).length) {
      const first = Object.entries<any>(schema.properties).find(([, p]) => !deref(spec, p)?.readOnly && exampleOf(spec, p, depth + 1) !== undefined);
      if (first) out[first[0]] = exampleOf(spec, first[1], depth + 1);
    }
    return out;
  }
  return undefined;
}

function bodyExample(spec: CareSpec, op: OperationSpec): unknown {
  const content = deref(spec, rawOperation(spec, op).requestBody)?.content?.['application/json'];
  if (!content) return undefined;
  if (content.example !== undefined) return content.example;
  const first = Object.values<any>(content.examples ?? {})[0];
  if (first) return deref(spec, first).value;
  return exampleOf(spec, content.schema);
}

interface QueryPart {
  name: string;
  /** The parameter's example as the service reads it: `filter[status][eq]` = `10`. */
  pairs: [string, string][];
  example: unknown;
  style?: string;
}

/** The list parameters' examples (page, sort, filter), as query pairs. */
function queryParts(spec: CareSpec, op: OperationSpec): QueryPart[] {
  const parts: QueryPart[] = [];
  for (const parameter of parameters(spec, op)) {
    if (parameter.in !== 'query' || parameter.example === undefined) continue;
    if (!op.list && !parameter.required) continue;
    const pairs: [string, string][] = [];
    const visit = (value: unknown, key: string) => {
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [inner, innerValue] of Object.entries(value)) visit(innerValue, `${key}[${inner}]`);
      } else pairs.push([key, Array.isArray(value) ? value.join(',') : String(value)]);
    };
    if (parameter.style === 'deepObject') visit(parameter.example, parameter.name);
    else pairs.push([parameter.name, Array.isArray(parameter.example) ? parameter.example.join(',') : String(parameter.example)]);
    parts.push({ name: parameter.name, pairs, example: parameter.example, style: parameter.style });
  }
  return parts;
}

/** The environment variable a sample reads a path parameter from: `caseId` is CASE_ID. */
export function pathVariable(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

function pathExamples(spec: CareSpec, op: OperationSpec): Record<string, string> {
  return Object.fromEntries(parameters(spec, op).filter((p) => p.in === 'path').map((p) => [p.name, String(p.example ?? p.schema?.example ?? '')]));
}

/** The path with each parameter read from its variable, the description's example as the default. */
function shellPath(spec: CareSpec, op: OperationSpec): string {
  const values = pathExamples(spec, op);
  return op.path.replace(/\{([^}]+)\}/g, (_m, name) => `\${${pathVariable(name)}:-${values[name]}}`);
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlSample(spec: CareSpec, op: OperationSpec): string {
  const environment = op.environments.includes('sandbox') ? 'sandbox' : 'production';
  const lines = [
    `# ${SETUP_COMMENT}`,
    ...(op.path.includes('{') ? [`# ${Object.keys(pathExamples(spec, op)).map(pathVariable).join(', ')}: ids of your own data (defaults: the examples of this page)`] : []),
    `TOKEN=$(curl -sS "\${CARE_AUTH_URL:?paste the export line that npm start prints}/oauth/token" -d grant_type=client_credentials \\`,
    `  -d client_id="$CARE_API_KEY_ID" -d client_secret="$CARE_API_KEY_SECRET" -d audience=${environment} \\`,
    `  | sed -nE 's/.*"access_token":"([^"]+)".*/\\1/p')`,
    ': "${TOKEN:?no token: the token endpoint refused CARE_API_KEY_ID and CARE_API_KEY_SECRET}"',
  ];
  const url = `$CARE_BASE_URL${shellPath(spec, op)}`;
  const args: string[] = [];
  const method = op.method.toUpperCase();
  const query = queryParts(spec, op).flatMap((part) => part.pairs);
  if (query.length) args.push('-G');
  else if (method !== 'GET' && method !== 'POST') args.push(`-X ${method}`);
  if (method === 'POST' && query.length) args.push('-X POST');
  args.push(`"${url}"`, '-H "Authorization: Bearer $TOKEN"');
  for (const [key, value] of query) args.push(`--data-urlencode ${shellQuote(`${key}=${value}`)}`);
  const contentTypes = op.requestBody?.contentTypes ?? [];
  if (contentTypes.includes('application/json')) {
    args.push("-H 'Content-Type: application/json'", `-d ${shellQuote(JSON.stringify(bodyExample(spec, op)))}`);
  } else if (contentTypes.includes('multipart/form-data')) {
    lines.push("printf 'Printer log: error 49.4C02\\n' > printer.log   # the file to upload");
    args.push("-F 'file=@printer.log;type=text/plain'");
  }
  // a file: saved under the name the answer gives (-OJ), the headers printed (-D -; curl refuses -i with -J)
  const file = op.responses.some((r) => r.contentTypes.some((t) => !t.includes('json')) && r.status.startsWith('2'));
  if (file) args.push('-OJ');
  lines.push(`curl -s ${file ? '-D -' : '-i'} ${args[0]} \\`, ...args.slice(1).map((arg, i, all) => `  ${arg}${i < all.length - 1 ? ' \\' : ''}`));
  return lines.join('\n');
}

/** A filter parameter's example in the client's typed form: numbers, booleans, arrays, `true` for no value. */
function typedFilter(spec: CareSpec, op: OperationSpec, example: Record<string, any>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, operators] of Object.entries(example)) {
    const type = op.list?.filterFields[field]?.type;
    const value = (raw: string): unknown => (type === 'integer' ? Number(raw) : type === 'boolean' ? /^(true|t|on|yes|y|1)$/i.test(raw) : raw);
    const typed: Record<string, unknown> = {};
    for (const [operator, raw] of Object.entries<any>(typeof operators === 'object' ? operators : { eq: operators })) {
      const arity = spec.operators[operator]?.arity;
      if (arity === 'none') typed[operator] = true;
      else if (arity === 'list' || arity === 'pair') {
        const split = splitList(String(raw));
        typed[operator] = split.ok ? split.values.map(value) : [value(String(raw))];
      } else if (arity === 'field') typed[operator] = String(raw);
      else typed[operator] = value(String(raw));
    }
    out[field] = typed;
  }
  return out;
}

/** Source text put into a literal as it is (an expression). */
class Code {
  constructor(readonly text: string) {}
}

/** A JavaScript literal, objects on one line when short enough (as one would write them). */
function literal(value: unknown, indent = ''): string {
  const flat = (v: unknown): string =>
    v instanceof Code
      ? v.text
      : Array.isArray(v)
      ? `[${v.map(flat).join(', ')}]`
      : v && typeof v === 'object'
        ? Object.keys(v).length === 0 ? '{}' : `{ ${Object.entries(v).map(([k, inner]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${flat(inner)}`).join(', ')} }`
        : typeof v === 'string'
          ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
          : String(v);
  const one = flat(value);
  if (one.length + indent.length <= 100 || !value || typeof value !== 'object' || Array.isArray(value) || value instanceof Code) return one;
  const inner = `${indent}  `;
  const entries = Object.entries(value).map(([k, v]) => `${inner}${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literal(v, inner)},`);
  return `{\n${entries.join('\n')}\n${indent}}`;
}

export function typescriptSample(spec: CareSpec, op: OperationSpec): string {
  const environment = op.environments.includes('sandbox') ? 'sandbox' : 'production';
  const lines = [
    "import { createCareClient } from '@care-api/client';",
    '',
    `// ${SETUP_COMMENT}`,
    'const care = createCareClient({',
    `  environment: '${environment}',`,
    '  baseUrl: process.env.CARE_BASE_URL,',
    '  authUrl: process.env.CARE_AUTH_URL,',
    "  apiKey: { keyId: process.env.CARE_API_KEY_ID ?? '', secret: process.env.CARE_API_KEY_SECRET ?? '' },",
    '});',
    '',
  ];
  const pathParameters = parameters(spec, op).filter((p) => p.in === 'path');
  const examples = pathExamples(spec, op);
  // each path parameter from its variable (an id of your own data), the description's example as the default
  const pathValues: Record<string, string> = Object.fromEntries(pathParameters.map((p) => [p.name, `process.env.${pathVariable(p.name)} ?? '${examples[p.name]}'`]));
  if (op.operationId === 'uploadCaseAttachment' || op.requestBody?.contentTypes.includes('multipart/form-data')) {
    lines.push(
      "const file = new File(['Printer log: error 49.4C02'], 'printer.log', { type: 'text/plain' });",
      `const { data } = await care.uploadAttachment(${pathValues.caseId}, file);`,
      'console.log(data.data);',
    );
    return lines.join('\n');
  }
  if (op.responses.some((r) => r.status.startsWith('2') && r.contentTypes.some((t) => !t.includes('json')))) {
    const [caseId, attachmentId] = pathParameters.map((p) => pathValues[p.name]);
    lines.push(`const { data: bytes, fileName, contentType } = await care.downloadAttachment(${caseId}, ${attachmentId});`, 'console.log(fileName, contentType, bytes.byteLength);');
    return lines.join('\n');
  }
  const init: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  if (pathParameters.length) params.path = Object.fromEntries(Object.entries(pathValues).map(([k, v]) => [k, new Code(v)]));
  const query: Record<string, unknown> = {};
  for (const part of queryParts(spec, op)) {
    if (part.name === 'filter') query.filter = typedFilter(spec, op, part.example as Record<string, any>);
    else if (part.name === 'sort') query.sort = Array.isArray(part.example) ? part.example : String(part.example).split(',');
    else query[part.name] = part.example;
  }
  if (Object.keys(query).length) params.query = query;
  if (Object.keys(params).length) init.params = params;
  const body = bodyExample(spec, op);
  if (body !== undefined) init.body = body;
  const call = `care.${op.method.toUpperCase()}('${op.path}'${Object.keys(init).length ? `, ${literal(init, '')}` : ''})`;
  const noContent = op.responses.some((r) => r.status === '204');
  if (noContent) lines.push(`const { environment } = await ${call};`, "console.log('done in', environment);");
  else lines.push(`const { data, environment } = await ${call};`, 'console.log(environment, data.data);');
  return lines.join('\n');
}

/** Both samples of an operation, in the form Redoc reads (`x-codeSamples`). */
export function codeSamples(spec: CareSpec, op: OperationSpec): CodeSample[] {
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(spec, op) },
    { lang: 'TypeScript', label: 'TypeScript', source: typescriptSample(spec, op) },
  ];
}

/** Adds `x-codeSamples` to every operation under `paths` of the docs copy `document` (read through `spec`). */
export function addCodeSamples(spec: CareSpec, document: any): void {
  for (const op of spec.operations) {
    for (const item of Object.values<any>(document.paths)) {
      const target = item?.[op.method];
      if (target?.operationId === op.operationId) target['x-codeSamples'] = codeSamples(spec, op);
    }
  }
}
