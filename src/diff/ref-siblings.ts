// A `$ref` with sibling keywords (`$ref: CasePriority` plus its own `description`) means the referenced object with
// those keywords added; api-smart-diff reads it as an `allOf` of the two, so replacing it with the identical inline
// object (or the reverse) looked like a type, enum and allOf change, and hid a real change made in the same edit.
// Here each such reference is written out as that inline object before the comparison, on both sides, so the two
// forms compare equal and what else changed is judged by itself. Only when a sibling would override an assertion of
// the target (a `maxLength` of its own) is the reference left as it is: then it is not a plain rewording.
import { resolvePointer } from '../spec/refs.ts';

/** Keywords a sibling may override without changing what is valid: wording, examples, extensions. */
const ANNOTATIONS = new Set(['description', 'summary', 'title', 'example', 'examples', '$comment', 'externalDocs']);

const isAnnotation = (key: string) => ANNOTATIONS.has(key) || key.startsWith('x-');

/** The object a local `$ref` names, itself written out (a chain of plain references followed to its end). */
function target(document: any, ref: string, stack: string[]): any {
  let node = resolvePointer(document, ref);
  const seen = new Set<string>([ref]);
  while (node && typeof node === 'object' && typeof node.$ref === 'string' && Object.keys(node).length === 1 && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    node = resolvePointer(document, node.$ref);
  }
  return inlineRefSiblings(document, node, stack);
}

/** `value` with every local `$ref` that has siblings replaced by the inline object it stands for. */
export function inlineRefSiblings(document: any, value: any, stack: string[] = []): any {
  if (Array.isArray(value)) return value.map((item) => inlineRefSiblings(document, item, stack));
  if (!value || typeof value !== 'object') return value;
  const own = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, key === '$ref' ? inner : inlineRefSiblings(document, inner, stack)]));
  const ref = own.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#') || Object.keys(own).length === 1 || stack.includes(ref)) return own;
  let resolved: any;
  try {
    resolved = target(document, ref, [...stack, ref]);
  } catch {
    return own; // an unresolvable reference is the library's to report
  }
  if (!resolved || typeof resolved !== 'object' || Array.isArray(resolved) || typeof resolved.$ref === 'string') return own;
  const { $ref: _ref, ...siblings } = own;
  const properties = siblingProperties(document, resolved, siblings.properties, stack);
  if (properties) siblings.properties = properties;
  const overridden = Object.keys(siblings).filter((key) => key in resolved && JSON.stringify(resolved[key]) !== JSON.stringify(siblings[key]) && !(key === 'properties' && properties));
  if (overridden.some((key) => !isAnnotation(key))) return own;
  return { ...resolved, ...siblings };
}

/**
 * Sibling `properties` beside a `$ref` whose target has `properties` too (D-105's per-list operand enums): both apply,
 * so each named property is the target's subschema and the sibling's at once. Written out as one object when the
 * sibling only adds to the target's subschema (a `$ref` given siblings, or an inline object given keywords it lacks or
 * rewords); undefined when any property cannot be combined so, and the reference is then left as it is.
 */
function siblingProperties(document: any, resolved: any, added: unknown, stack: string[]): Record<string, unknown> | undefined {
  if (!added || typeof added !== 'object' || Array.isArray(added) || !resolved.properties || typeof resolved.properties !== 'object') return undefined;
  const combined: Record<string, unknown> = { ...resolved.properties };
  for (const [name, addition] of Object.entries<any>(added)) {
    const own = resolved.properties[name];
    if (own === undefined) combined[name] = addition;
    else if (own && typeof own === 'object' && typeof own.$ref === 'string' && addition && typeof addition === 'object') {
      const inlined = inlineRefSiblings(document, { ...addition, $ref: own.$ref }, stack);
      if (typeof inlined?.$ref === 'string' && Object.keys(inlined).length > 1) return undefined;
      combined[name] = inlined;
    } else if (own && typeof own === 'object' && addition && typeof addition === 'object') {
      if (Object.keys(addition).some((key) => key in own && !isAnnotation(key) && JSON.stringify(own[key]) !== JSON.stringify(addition[key]))) return undefined;
      combined[name] = { ...own, ...addition };
    } else return undefined;
  }
  return combined;
}

/** The document with its references-with-siblings written out (a new object; `document` is left as it is). */
export function withRefSiblingsInlined(document: any): any {
  return inlineRefSiblings(document, document);
}
