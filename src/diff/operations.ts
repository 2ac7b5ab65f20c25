// Both sides' operations (paths and webhooks), keyed `GET /cases` / `webhook case.updated`, with the JSON pointer
// of each: what our own rules walk.
import { deref } from '../spec/refs.ts';
import { toPointer } from './pointer.ts';

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface SideOperation {
  key: string;
  kind: 'path' | 'webhook';
  /** Path (`/cases`) or webhook name. */
  name: string;
  method: string;
  pointer: string;
  pathItem: any;
  operation: any;
}

export function sideOperations(document: any): Map<string, SideOperation> {
  const found = new Map<string, SideOperation>();
  for (const kind of ['path', 'webhook'] as const) {
    const root = kind === 'path' ? 'paths' : 'webhooks';
    for (const [name, itemOrRef] of Object.entries<any>(document?.[root] ?? {})) {
      const pathItem = deref(document, itemOrRef) ?? {};
      for (const method of METHODS) {
        const operation = pathItem[method];
        if (!operation) continue;
        const key = kind === 'path' ? `${method.toUpperCase()} ${name}` : `webhook ${name}`;
        found.set(key, { key, kind, name, method, pointer: toPointer([root, name, method]), pathItem, operation });
      }
    }
  }
  return found;
}

/** Pairs of operations present on both sides. */
export function* common(base: Map<string, SideOperation>, head: Map<string, SideOperation>): Generator<[SideOperation, SideOperation]> {
  for (const [key, before] of base) {
    const after = head.get(key);
    if (after) yield [before, after];
  }
}

/** Resolved parameters (path level, then operation level) with their pointers. */
export function parametersOf(document: any, side: SideOperation): Array<{ parameter: any; pointer: string }> {
  const listed: Array<{ parameter: any; pointer: string }> = [];
  (side.pathItem.parameters ?? []).forEach((raw: any, index: number) => {
    listed.push({ parameter: deref(document, raw), pointer: `${side.pointer.replace(/\/[^/]+$/, '')}/parameters/${index}` });
  });
  (side.operation.parameters ?? []).forEach((raw: any, index: number) => {
    listed.push({ parameter: deref(document, raw), pointer: `${side.pointer}/parameters/${index}` });
  });
  return listed;
}
