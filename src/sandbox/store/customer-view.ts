// D-79: partner comments are the partner's side of a case. A customer account's lists leave them out, and the event
// log entries that carry one (`case.comment.created` of a partner comment) with them.
import type { Resource } from './types.ts';

/** A condition on the rows of `resource` that a customer account may see, or null when all may be seen. */
export function customerViewSql(resource: Resource): string | null {
  if (resource === 'comments') return 'coalesce(partner_comment, 0) = 0';
  if (resource === 'events') return `NOT (type = 'case.comment.created' AND coalesce(json_extract(payload, '$.data.partnerComment'), 0) = 1)`;
  return null;
}
