// Prism's body errors, said as the service says them (D-96), from the request body and the operation's schema:
// Prism reports only the first unknown key of an object ("must NOT have additional properties; found 'k0'") where the
// service names every one (D-35), and every failing branch of a union (`oneOf`) where the service reports the union
// once, at its own location.
import { deref, type CareSpec } from '../spec/index.ts';
import { errorObject, type ErrorEnvelope, type ErrorObject } from './envelope.ts';

/** The properties an object schema declares, through `$ref` and `allOf`. */
function declaredProperties(spec: CareSpec, schema: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const visit = (node: unknown, depth: number) => {
    const s = deref(spec.document, node);
    if (!s || typeof s !== 'object' || depth > 10) return;
    for (const part of s.allOf ?? []) visit(part, depth + 1);
    Object.assign(out, s.properties ?? {});
  };
  visit(schema, 0);
  return out;
}

/** The schema and value at `body.a.b`, or undefined when the path leaves what the schema declares. */
function at(spec: CareSpec, schema: unknown, body: unknown, parts: string[]): { schema: unknown; value: unknown } | undefined {
  let node = schema;
  let value = body;
  for (const part of parts) {
    const properties = declaredProperties(spec, node);
    if (!Object.hasOwn(properties, part) || !value || typeof value !== 'object') return undefined;
    node = properties[part];
    value = (value as Record<string, unknown>)[part];
  }
  return { schema: node, value };
}

/** Whether a schema is a union of two or more forms (`oneOf: [X, null]` is a nullable X, not a union). */
function isUnion(spec: CareSpec, schema: unknown): boolean {
  const s = deref(spec.document, schema);
  const branches: unknown[] = s?.oneOf ?? s?.anyOf ?? [];
  return branches.filter((branch) => deref(spec.document, branch)?.type !== 'null').length > 1;
}

/** The location of the outermost union on the way to `body.a.b`, if any. */
function unionAbove(spec: CareSpec, schema: unknown, parts: string[]): string | undefined {
  let node = schema;
  for (let i = 0; i <= parts.length; i++) {
    if (isUnion(spec, node)) return ['body', ...parts.slice(0, i)].join('.');
    if (i === parts.length) break;
    const properties = declaredProperties(spec, node);
    if (!Object.hasOwn(properties, parts[i])) return undefined;
    node = properties[parts[i]];
  }
  return undefined;
}

/** The errors inside a union replaced by one error at the union, as the service reports it. */
export function oneErrorPerUnion(spec: CareSpec, schema: unknown, errors: ErrorEnvelope): ErrorEnvelope {
  const out: ErrorObject[] = [];
  const unions = new Set<string>();
  for (const error of errors.errors) {
    const where = /^(body(?:\.[^:]*)?): /.exec(error.detail)?.[1];
    const union = where ? unionAbove(spec, schema, where.split('.').slice(1)) : undefined;
    if (!union) {
      out.push(error);
    } else if (!unions.has(union)) {
      unions.add(union);
      out.push(errorObject(Number(error.status), `${union}: Input does not match any of the allowed forms`, 'union_tag_invalid'));
    }
  }
  return { ...errors, errors: out };
}

/** The envelope with each "found 'x'" error of Prism replaced by one error per unknown key of that object. */
export function everyExtraKey(spec: CareSpec, schema: unknown, bodyBytes: Buffer | undefined, errors: ErrorEnvelope): ErrorEnvelope {
  if (!bodyBytes || !errors.errors.some((e) => e.code === 'extra_forbidden')) return errors;
  let body: unknown;
  try {
    body = JSON.parse(bodyBytes.toString('utf8'));
  } catch {
    return errors;
  }
  const out: ErrorObject[] = [];
  for (const error of errors.errors) {
    const found = error.code === 'extra_forbidden' ? /^(body(?:\.[^:]*)?): .*found '([^']*)'/.exec(error.detail) : null;
    if (!found) {
      out.push(error);
      continue;
    }
    const where = found[1];
    const place = at(spec, schema, body, where.split('.').slice(1));
    const declared = place ? declaredProperties(spec, place.schema) : {};
    const keys = place && place.value && typeof place.value === 'object' && !Array.isArray(place.value)
      ? Object.keys(place.value).filter((key) => !Object.hasOwn(declared, key))
      : [found[2]];
    for (const key of keys.length > 0 ? keys : [found[2]]) out.push(errorObject(Number(error.status), `${where}.${key}: Extra inputs are not permitted`, 'extra_forbidden'));
  }
  return { ...errors, errors: out };
}
