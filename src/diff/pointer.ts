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
