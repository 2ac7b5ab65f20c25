// The two ways a list answer is made (types.ts ListResult): from records as objects (SQL rows) or from records the
// storage wrote as JSON (the column engine, D-84), whose objects are parsed only if some code asks for them.
import type { JsonText } from '../json-text.ts';
import type { ListResult } from './types.ts';

export function objectsListResult(items: Record<string, any>[], totalCount: number): ListResult {
  return { items, count: items.length, totalCount };
}

export function writtenListResult(json: JsonText, totalCount: number): ListResult {
  let items: Record<string, any>[] | undefined;
  return {
    get items() {
      return (items ??= JSON.parse(json.text) as Record<string, any>[]);
    },
    count: json.count,
    json,
    totalCount,
  };
}
