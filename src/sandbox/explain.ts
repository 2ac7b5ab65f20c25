// `care-sandbox --explain-lists`: one line per list of cases saying who answered it and how (the page cache, the
// column engine and its plan, or SQL and why), so the next engineer can see why a request went the way it did.
import type { ListQuery } from '../grammar/types.ts';
import { describePlan } from './store/list-plan.ts';
import type { ListAnswer, Scope } from './store/types.ts';

/** The query as a log shows it (values as they were parsed, not re-escaped for a URL). */
function queryText(query: ListQuery): string {
  const parts = query.filters.map((f) => `filter[${f.field}][${f.operator}]${f.values.length > 0 ? '=' + f.values.map(String).join(',') : ''}`);
  if (query.sort.length > 0) parts.push(`sort=${query.sort.map((k) => (k.descending ? '-' : '') + k.field).join(',')}`);
  parts.push(`page[number]=${query.page.number}`, `page[size]=${query.page.size}`);
  return parts.join('&');
}

export function explainLine(answer: ListAnswer, request: { env: string; scope: Scope; query: ListQuery }): string {
  const how = answer.by === 'engine' ? `engine: ${describePlan(answer.plan, answer.outcome)}` : answer.by === 'sql' ? `SQL: ${answer.why}` : 'page cache (the same list since the last write)';
  return `[plan] ${request.env} cases ${request.scope.by}=${request.scope.values.join(',')} ?${queryText(request.query)} → ${how}`;
}
