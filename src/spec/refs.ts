// Local JSON Pointer refs (`#/components/schemas/Case`) inside one bundled document.

/** Decode one JSON Pointer segment (RFC 6901): `~1` is `/`, `~0` is `~`, after percent-decoding. */
function decodeSegment(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The value a local `$ref` points at; throws for a ref that is not local or does not exist. */
export function resolvePointer(document: unknown, ref: string): any {
  if (!ref.startsWith('#')) throw new Error(`Only local refs are supported, got ${ref}`);
  const pointer = ref.slice(1);
  if (pointer === '') return document;
  if (!pointer.startsWith('/')) throw new Error(`Invalid JSON Pointer in ref ${ref}`);
  let node: any = document;
  for (const segment of pointer.slice(1).split('/')) {
    const key = decodeSegment(segment);
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, key)) {
      throw new Error(`Unresolvable ref ${ref}`);
    }
    node = node[key];
  }
  return node;
}

/** Follow `$ref` chains until an object without `$ref` (parameters, responses, headers can be refs to refs). */
export function deref(document: unknown, value: any): any {
  const seen = new Set<string>();
  while (value && typeof value === 'object' && typeof value.$ref === 'string') {
    if (seen.has(value.$ref)) throw new Error(`Circular ref ${value.$ref}`);
    seen.add(value.$ref);
    value = resolvePointer(document, value.$ref);
  }
  return value;
}

/** The component name at the end of a ref: `#/components/schemas/Case` -> `Case`. */
export function refName(ref: string): string {
  const segments = ref.split('/');
  return decodeSegment(segments[segments.length - 1]);
}
