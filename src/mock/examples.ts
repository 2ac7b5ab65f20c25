// Request values built from the description's own examples (as Prism does for responses): used to call every
// operation of a mock with realistic input, and by anyone who needs a valid body without writing one by hand.
import { deref, type CareSpec } from '../spec/index.ts';

/** A value for `schema` made of its examples: the schema's own, else its properties', else the first enum value. */
export function exampleOf(spec: CareSpec, schema: unknown, mode: 'request' | 'response' = 'request', depth = 0): unknown {
  if (depth > 20 || !schema || typeof schema !== 'object') return undefined;
  const node = schema as Record<string, any>;
  // An example next to a $ref (allowed in 3.1) describes this use, so it wins over the target's.
  if (node.example !== undefined) return node.example;
  if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0];
  if (typeof node.$ref === 'string') return exampleOf(spec, spec.resolve(node.$ref), mode, depth + 1);
  if (node.const !== undefined) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  if (node.default !== undefined) return node.default;
  if (Array.isArray(node.allOf)) {
    return Object.assign({}, ...node.allOf.map((part: unknown) => exampleOf(spec, part, mode, depth + 1) ?? {}));
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(node[key])) {
      const options = node[key].filter((option: any) => option?.type !== 'null');
      return exampleOf(spec, options[0] ?? node[key][0], mode, depth + 1);
    }
  }
  const type = Array.isArray(node.type) ? node.type.find((t: string) => t !== 'null') : node.type;
  if (type === 'object' || node.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, property] of Object.entries<any>(node.properties ?? {})) {
      const target = typeof property?.$ref === 'string' ? spec.resolve(property.$ref) : property;
      if (mode === 'request' && (property?.readOnly || target?.readOnly)) continue;
      if (mode === 'response' && (property?.writeOnly || target?.writeOnly)) continue;
      const value = exampleOf(spec, property, mode, depth + 1);
      if (value !== undefined) out[name] = value;
    }
    return out;
  }
  if (type === 'array') {
    const item = exampleOf(spec, node.items, mode, depth + 1);
    return item === undefined ? [] : [item];
  }
  if (type === 'integer' || type === 'number') return node.minimum ?? 1;
  if (type === 'boolean') return true;
  if (type === 'string') return 'example';
  return undefined;
}

/** Path parameter values of an operation, from the parameters' own `example` (else their schema's). */
export function pathExamples(spec: CareSpec, operation: { path: string; method: string }): Record<string, string> {
  const pathItem = deref(spec.document, spec.document.paths?.[operation.path]) ?? {};
  const declared = [...(pathItem.parameters ?? []), ...(pathItem[operation.method]?.parameters ?? [])];
  const out: Record<string, string> = {};
  for (const raw of declared) {
    const parameter = deref(spec.document, raw);
    if (parameter?.in !== 'path') continue;
    out[parameter.name] = String(parameter.example ?? exampleOf(spec, parameter.schema) ?? parameter.name);
  }
  return out;
}
