// The query serializer openapi-fetch is given: the grammar's own, with the operator arities of the description.
import { careQuerySerializer } from '../grammar/serialize.ts';
import { careOperatorArities } from '../../generated/care-filters.ts';

export function serializeQuery(query: Record<string, unknown> | undefined): string {
  return careQuerySerializer(query, careOperatorArities);
}
