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
  const overridden = Object.keys(siblings).filter((key) => key in resolved && JSON.stringify(resolved[key]) !== JSON.stringify(siblings[key]));
  if (overridden.some((key) => !isAnnotation(key))) return own;
  return { ...resolved, ...siblings };
}

/** The document with its references-with-siblings written out (a new object; `document` is left as it is). */
export function withRefSiblingsInlined(document: any): any {
  return inlineRefSiblings(document, document);
}
