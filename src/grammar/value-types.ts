// How a filter field's declared value type reads its values.
import type { ValueType } from '../spec/types.ts';
import type { CoercionType } from './coerce.ts';

/** The coercion type of one filter value for a field of `type` (`contains` on a string array takes one string). */
export function valueCoercion(type: ValueType): CoercionType {
  switch (type) {
    case 'stringArray': return 'string';
    default: return type;
  }
}
