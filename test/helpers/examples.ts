// Requests made of the description's own examples (path, query and header parameters; a JSON body from the media
// type's example or composed from its properties' examples, as Schemathesis and Prism compose one; a small file for
// an upload). Used by test/description-examples.test.ts and by the links walk of test/sandbox.fuzz.test.ts.
import { deref } from '../../src/spec/index.ts';
import type { CareSpec, Environment } from '../../src/spec/types.ts';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** The example of a schema (its own, else composed from its properties', as tools compose a body). */
export function exampleOf(spec: CareSpec, raw: any, depth = 0): unknown {
  if (!raw || typeof raw !== 'object' || depth > 8) return undefined;
  if ('example' in raw) return raw.example;
  const schema = deref(spec.document, raw);
  if (!schema || typeof schema !== 'object') return undefined;
  if ('example' in schema) return schema.example;
  if (schema.properties) {
    const body: Record<string, unknown> = {};
    for (const [name, property] of Object.entries<any>(schema.properties)) {
      const value = exampleOf(spec, property, depth + 1);
      if (value !== undefined) body[name] = value;
    }
    return body;
  }
  return undefined;
}

export interface ExampleRequest {
  env: Environment;
  operationId: string;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

/** `filter[status][eq]=10` from `{ status: { eq: '10' } }` (deepObject, explode). */
export function deepObject(name: string, value: unknown): string[] {
  if (value === null || typeof value !== 'object') return [`${encodeURIComponent(name)}=${encodeURIComponent(String(value ?? ''))}`];
  return Object.entries(value).flatMap(([key, inner]) => deepObject(`${name}[${key}]`, inner));
}

export function queryPart(parameter: any, value: unknown): string[] {
  if (parameter.style === 'deepObject') return deepObject(parameter.name, value);
  if (Array.isArray(value)) return [`${encodeURIComponent(parameter.name)}=${value.map((v) => encodeURIComponent(String(v))).join(',')}`];
  return [`${encodeURIComponent(parameter.name)}=${encodeURIComponent(String(value))}`];
}

/** Each operation of the environment's bundle as its examples make it. */
export function exampleRequests(spec: CareSpec, env: Environment): ExampleRequest[] {
  const requests: ExampleRequest[] = [];
  for (const [path, rawItem] of Object.entries<any>(spec.document.paths)) {
    const item = deref(spec.document, rawItem);
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p: any) => deref(spec.document, p));
      let url = path;
      const query: string[] = [];
      const headers: Record<string, string> = {};
      for (const parameter of parameters) {
        const value = parameter.example ?? exampleOf(spec, parameter.schema);
        if (value === undefined) continue;
        if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
        else if (parameter.in === 'query') query.push(...queryPart(parameter, value));
        else if (parameter.in === 'header') headers[parameter.name] = String(value);
      }
      let body: string | FormData | undefined;
      const content = deref(spec.document, operation.requestBody)?.content ?? {};
      if (content['application/json']) {
        const media = content['application/json'];
        const value = media.example ?? Object.values<any>(media.examples ?? {})[0]?.value ?? exampleOf(spec, media.schema);
        body = JSON.stringify(value);
        headers['content-type'] = 'application/json';
      } else if (content['multipart/form-data']) {
        const form = new FormData();
        form.append('file', new Blob([Buffer.from('printer log\n')], { type: 'text/plain' }), 'printer.log');
        body = form;
      }
      requests.push({ env, operationId: operation.operationId, method: method.toUpperCase(), path: url, query: query.join('&'), headers, body });
    }
  }
  return requests;
}

/**
 * The demo account an example request is sent as: the partner (the case examples span its contracts), except the
 * operations on one API key or one subscription, whose examples name the demo customer's seeded spare key and
 * subscription (D-119).
 */
export function exampleAccount(operationId: string): 'customer' | 'partner' {
  return /^(get|update|revoke)ApiKey$|^(get|update|delete)Webhook$/.test(operationId) ? 'customer' : 'partner';
}
