// JSON Pointers (RFC 6901) from path segments, and the Change id built from them.
import type { Change } from './types.ts';

export function toPointer(segments: ReadonlyArray<string | number>): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

export function makeChange(change: Omit<Change, 'id'>): Change {
  const pointer = change.headPointer ?? change.basePointer ?? '';
  return { id: `${change.rule} ${pointer}`, ...change };
}

/** Whether `pointer` is `prefix` or lies below it. */
export function isUnder(pointer: string | undefined, prefix: string): boolean {
  return pointer !== undefined && (pointer === prefix || pointer.startsWith(prefix + '/'));
}

/** The value at `pointer`, following local `$ref`s met on the way (pointers of the diff address the document as
 * its operations see it, references resolved); undefined when nothing is there. */
export function resolveThroughRefs(document: any, pointer: string): unknown {
  const follow = (node: any): any => {
    const seen = new Set<string>();
    while (node && typeof node === 'object' && typeof node.$ref === 'string' && node.$ref.startsWith('#') && !seen.has(node.$ref)) {
      seen.add(node.$ref);
      node = resolveThroughRefs(document, node.$ref.slice(1));
    }
    return node;
  };
  let node: any = document;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    // a keyword beside a `$ref` (its sibling) is found where it is written, before the reference is followed
    if (node === null || typeof node !== 'object' || key === '$ref' || !(key in node)) node = follow(node);
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}
