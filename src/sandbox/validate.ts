// Request bodies against the description: coercion by the declared type first (seed table, src/grammar coerceValue,
// decision D-27), then the JSON Schema of the operation (ajv), every problem as one pydantic-like error object.
import type { ErrorObject } from 'ajv';
import { coerceValue } from '../grammar/coerce.ts';
import type { CoercionType } from '../grammar/coerce.ts';
import { deref } from '../spec/refs.ts';
import type { CareSpec } from '../spec/types.ts';
import { ApiError } from './http/envelope.ts';
import type { Problem } from './http/envelope.ts';

/** WHATWG "valid e-mail address" (D-08), at most 254 characters. */
const WHATWG_EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
export const isEmail = (value: string) => value.length <= 254 && WHATWG_EMAIL.test(value);

/** The sandbox's own ajv formats: e-mail as D-08 says. Call once per spec before compiling. */
function prepareAjv(ajv: { addFormat(name: string, format: (v: string) => boolean): unknown }) {
  ajv.addFormat('email', isEmail);
}

// ajv (and the whole document added to it) is loaded with the first body to validate, not at start: a cold start
// that serves reads never pays for it.
let ajvModule: typeof import('../spec/ajv.ts') | undefined;
const prepared = new WeakSet<CareSpec>();
async function validatorsOf(spec: CareSpec): Promise<typeof import('../spec/ajv.ts')> {
  ajvModule ??= await import('../spec/ajv.ts');
  if (!prepared.has(spec)) {
    prepareAjv(ajvModule.ajvFor(spec));
    prepared.add(spec);
  }
  return ajvModule;
}

interface Shape {
  properties: Record<string, any>;
  required: string[];
  closed: boolean;
}

function shapeOf(spec: CareSpec, schema: any): Shape {
  const shape: Shape = { properties: {}, required: [], closed: false };
  const visit = (node: any) => {
    const s = deref(spec.document, node);
    if (!s || typeof s !== 'object') return;
    for (const part of s.allOf ?? []) visit(part);
    Object.assign(shape.properties, s.properties ?? {});
    shape.required.push(...(s.required ?? []));
    if (s.additionalProperties === false) shape.closed = true;
  };
  visit(schema);
  return shape;
}

/** The coercion type of a property schema, or null for objects and unions coerced by nobody (ajv judges them). */
function coercionOf(spec: CareSpec, schema: any): { type: CoercionType; item?: CoercionType; nullable: boolean } | null {
  const s = deref(spec.document, schema);
  if (!s || typeof s !== 'object') return null;
  let types: string[] = s.type ? (Array.isArray(s.type) ? s.type : [s.type]) : [];
  let format = s.format;
  if (types.length === 0 && Array.isArray(s.oneOf)) {
    // `oneOf: [Email, null]`: the non-null branch decides.
    const branches = s.oneOf.map((b: any) => deref(spec.document, b));
    const nonNull = branches.filter((b: any) => b?.type !== 'null');
    if (nonNull.length !== 1 || !nonNull[0].type || Array.isArray(nonNull[0].type)) return null;
    types = [nonNull[0].type, ...(branches.length > 1 ? ['null'] : [])];
    format = nonNull[0].format;
  }
  const nullable = types.includes('null');
  const main = types.filter((t) => t !== 'null');
  if (main.length !== 1) return null;
  switch (main[0]) {
    case 'integer':
      return { type: 'integer', nullable };
    case 'number':
      return { type: 'float', nullable };
    case 'boolean':
      return { type: 'boolean', nullable };
    case 'string':
      return { type: format === 'date-time' ? 'datetime' : format === 'date' ? 'date' : 'string', nullable };
    case 'array': {
      const item = coercionOf(spec, s.items);
      return item && item.type !== 'array' ? { type: 'array', item: item.type, nullable } : null;
    }
    default:
      return null;
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function location(instancePath: string): string {
  return ['body', ...instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))].join('.');
}

function describe(error: ErrorObject, data: unknown): Problem & { at: string } {
  const at = location(error.instancePath);
  const p = error.params as any;
  const make = (detail: string, code: string, where = at) => ({ at: where, detail: `${where}: ${detail}`, code });
  switch (error.keyword) {
    case 'required':
      return make('Field required', 'missing', `${at}.${p.missingProperty}`);
    case 'additionalProperties':
      return make('Extra inputs are not permitted', 'extra_forbidden', `${at}.${p.additionalProperty}`);
    case 'type': {
      const wanted = String(p.type).split(',')[0];
      const words: Record<string, [string, string]> = {
        string: ['Input should be a valid string', 'string_type'],
        integer: ['Input should be a valid integer', 'int_type'],
        number: ['Input should be a valid number', 'float_type'],
        boolean: ['Input should be a valid boolean', 'bool_type'],
        array: ['Input should be a valid list', 'list_type'],
        object: ['Input should be a valid dictionary', 'dict_type'],
        null: ['Input should be None', 'none_required'],
      };
      const [detail, code] = words[wanted] ?? [`Input should be of type ${wanted}`, 'type_error'];
      return make(detail, code);
    }
    case 'minLength':
      return make(`String should have at least ${plural(p.limit, 'character')}`, 'string_too_short');
    case 'maxLength':
      return make(`String should have at most ${plural(p.limit, 'character')}`, 'string_too_long');
    case 'minItems':
      return make(`List should have at least ${plural(p.limit, 'item')} after validation, not ${Array.isArray(valueAt(data, error.instancePath)) ? valueAt(data, error.instancePath).length : 0}`, 'too_short');
    case 'maxItems':
      return make(`List should have at most ${plural(p.limit, 'item')} after validation, not ${Array.isArray(valueAt(data, error.instancePath)) ? valueAt(data, error.instancePath).length : 0}`, 'too_long');
    case 'minProperties':
      return make(`Input should have at least ${plural(p.limit, 'field')}`, 'too_short');
    case 'enum': {
      const values = (p.allowedValues as unknown[]).map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
      const text = values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}` : values[0];
      return make(`Input should be ${text}`, 'enum');
    }
    case 'const':
      return make(`Input should be ${typeof p.allowedValue === 'string' ? `'${p.allowedValue}'` : String(p.allowedValue)}`, 'literal_error');
    case 'pattern':
      return make(`String should match pattern '${p.pattern}'`, 'string_pattern_mismatch');
    case 'format':
      if (p.format === 'email') return make('value is not a valid email address', 'value_error');
      if (p.format === 'uri') return make('Input should be a valid URL', 'url_parsing');
      if (p.format === 'date-time') return make('Input should be a valid datetime', 'datetime_parsing');
      return make(`Input should be a valid ${p.format}`, 'value_error');
    case 'minimum':
      return make(`Input should be greater than or equal to ${p.limit}`, 'greater_than_equal');
    case 'maximum':
      return make(`Input should be less than or equal to ${p.limit}`, 'less_than_equal');
    case 'oneOf':
    case 'anyOf':
      return make('Input does not match any of the allowed forms', 'union_tag_invalid');
    default:
      return make(error.message ?? 'Invalid value', 'value_error');
  }
}

function valueAt(data: unknown, pointer: string): any {
  let node: any = data;
  for (const segment of pointer.split('/').slice(1)) node = node?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node;
}

/**
 * The body coerced and validated against `schema`, or an ApiError 400 listing every problem. Unknown fields are
 * refused (D-35), read-only ones too (they are not in the update schemas, D-36).
 */
export async function validateBody(spec: CareSpec, schema: unknown, body: unknown): Promise<Record<string, any>> {
  const { validatorFor } = await validatorsOf(spec);
  if (body === undefined) throw new ApiError(400, { detail: 'body: Field required', code: 'missing' });
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(400, { detail: 'body: Input should be a valid dictionary or object to extract fields from', code: 'model_attributes_type' });
  }
  const shape = shapeOf(spec, schema);
  const problems: Array<Problem & { at: string }> = [];
  const coerced: Record<string, any> = {};
  for (const [field, raw] of Object.entries(body)) {
    const at = `body.${field}`;
    const declared = Object.hasOwn(shape.properties, field) ? shape.properties[field] : undefined;
    if (field === '__proto__' || field === 'constructor' || field === 'prototype') {
      // never assigned: `coerced[field] = …` with `__proto__` would replace the object's prototype (D-87)
      problems.push({ at, detail: `${at}: Extra inputs are not permitted`, code: 'extra_forbidden' });
      continue;
    }
    if (!declared) {
      if (shape.closed) problems.push({ at, detail: `${at}: Extra inputs are not permitted`, code: 'extra_forbidden' });
      coerced[field] = raw; // kept for the schema check, so "at least one field" does not fire on a body of unknown fields
      continue;
    }
    const how = coercionOf(spec, declared);
    // A value coerced to another form (a datetime) is bounded as sent: the schema's maxLength holds for the text (D-101).
    const longest = deref(spec.document, declared)?.maxLength;
    if (how && how.type !== 'string' && typeof raw === 'string' && typeof longest === 'number' && [...raw].length > longest) {
      problems.push({ at, detail: `${at}: String should have at most ${longest} characters`, code: 'string_too_long' });
      coerced[field] = raw;
      continue;
    }
    if (!how || (raw === null && how.nullable)) {
      coerced[field] = raw;
      continue;
    }
    const result = coerceValue(how.type, raw, 'body', how.item);
    coerced[field] = result.ok ? result.value : raw; // a refused value stays for the schema check, its error already told
    if (!result.ok) {
      // an array item's problem carries its index path: the location becomes `body.field.i`.
      const path: Array<string | number> = (result as { at?: Array<string | number> }).at ?? [];
      const where = [at, ...path].join('.');
      problems.push({ at: where, detail: `${where}: ${result.problem}`, code: result.code });
    }
  }
  for (const field of shape.required) {
    if (!Object.hasOwn(body, field)) problems.push({ at: `body.${field}`, detail: `body.${field}: Field required`, code: 'missing' });
  }
  const validate = validatorFor(spec, schema as object);
  if (!validate(coerced)) {
    const seen = new Set(problems.map((p) => p.at));
    // `oneOf: [X, null]` fields: a non-null value is judged by X alone, so its own error speaks (not the union's).
    const nullableUnions = new Set<string>();
    for (const [field, declared] of Object.entries(shape.properties)) {
      const branches = deref(spec.document, declared)?.oneOf;
      if (Array.isArray(branches) && branches.length === 2 && branches.some((b: any) => deref(spec.document, b)?.type === 'null')) nullableUnions.add(`body.${field}`);
    }
    const unions = new Set<string>();
    for (const error of validate.errors ?? []) {
      const at = location(error.instancePath);
      if ((error.keyword === 'oneOf' || error.keyword === 'anyOf') && !nullableUnions.has(at)) unions.add(at);
    }
    for (const error of validate.errors ?? []) {
      const at = location(error.instancePath);
      if (nullableUnions.has(at) && (error.keyword === 'oneOf' || (error.keyword === 'type' && (error.params as any).type === 'null'))) continue;
      const problem = describe(error, coerced);
      // Inside a union only the union's own error speaks; its branches' complaints would contradict each other.
      const insideUnion = [...unions].some((u) => problem.at.startsWith(u + '.') || (problem.at === u && error.keyword !== 'oneOf' && error.keyword !== 'anyOf'));
      if (insideUnion || seen.has(problem.at)) continue;
      seen.add(problem.at);
      problems.push(problem);
    }
  }
  if (problems.length > 0) throw new ApiError(400, problems.map(({ detail, code }) => ({ detail, code })));
  return coerced;
}
