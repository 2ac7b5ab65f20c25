// The storage's cache of list answers, a decorator around its list (SQL's or the column engine's, D-84): the same
// list asked again is the same answer object (the HTTP layer keeps its bytes per answer), keyed by the query itself
// (list-key.ts), so no SQL is written for it. One eviction rule, here alone: a write to a table drops that table's
// answers at once (their text may be tens of MB), and a table keeps at most LIMIT answers, the oldest going first.
import type { ListQuery } from '../../grammar/types.ts';
import { listKey } from './list-key.ts';
import type { ListResult, Resource, Scope } from './types.ts';

/** Answers kept per table: a few pages of every list a busy client reads between two writes. */
const LIMIT = 300;

type List = (resource: Resource, env: string, scope: Scope, query: ListQuery) => ListResult;

export interface CachedLists {
  list: List;
  /** The table was written, or a transaction that may have written it rolled back: its answers go. */
  written(resource: Resource): void;
}

/** `list` with its answers cached; `hit` hears each answer served from the cache. */
export function cachedLists(list: List, hit: (resource: Resource, env: string, scope: Scope, query: ListQuery) => void): CachedLists {
  const answers = new Map<Resource, Map<string, ListResult>>();
  return {
    list(resource, env, scope, query) {
      let kept = answers.get(resource);
      if (!kept) answers.set(resource, (kept = new Map()));
      const key = listKey(env, scope, query);
      const cached = kept.get(key);
      if (cached) {
        hit(resource, env, scope, query);
        return cached;
      }
      const result = list(resource, env, scope, query);
      if (kept.size >= LIMIT) kept.delete(kept.keys().next().value!);
      kept.set(key, result);
      return result;
    },
    written: (resource) => answers.get(resource)?.clear(),
  };
}
