// The cache key of a list answered without SQL (the column engine, D-84): the query itself, written canonically. Two
// requests get one key only when they ask the same (environment, scope, filters, sort, page); field and operator names
// are the description's (the grammar refused any other), values carry their type and length, so no text inside a
// value can make two queries one key.
import type { ListQuery } from '../../grammar/types.ts';
import type { Scope } from './types.ts';

export function listKey(env: string, scope: Scope, query: ListQuery): string {
  let key = `${env}\u0000${scope.by}${scope.customerView ? '!' : ''}${scope.viewer === undefined ? '' : `@${scope.viewer.length}:${scope.viewer}`}`;
  for (const value of scope.values) key += `\u0000${value.length}:${value}`;
  key += '\u0001';
  for (const f of query.filters) {
    key += `\u0000${f.field}[${f.operator}]`;
    for (const v of f.values) key += typeof v === 'string' ? `s${v.length}:${v}` : typeof v === 'number' ? `n${v};` : `b${v};`;
  }
  key += '\u0001';
  for (const k of query.sort) key += `${k.descending ? '-' : '+'}${k.field},`;
  return `${key}\u0001${query.page.number}x${query.page.size}`;
}
