// Datetime filter values finer than a millisecond (decision D-71). Stored and answered datetimes are whole milliseconds
// (D-39), so a bound strictly between two milliseconds is replaced by the millisecond bound that selects exactly the
// same values; coercion alone rounds it down, which made `lt` miss a value and `eq` find one.
import { datetimeMillis, isoFromMillis } from './coerce.ts';
import type { FilterClause } from './types.ts';

/** The clause with every sub-millisecond bound made exact; `texts` are the values as written, in clause order. */
export function exactDatetimeClause(clause: FilterClause, texts: string[]): FilterClause {
  const finer = texts.map((text) => {
    const millis = datetimeMillis(text);
    return millis.ok && millis.subMillisecond === true;
  });
  if (!finer.includes(true)) return clause;
  // The coerced value is the millisecond below the bound; the one above is one more.
  const above = (i: number) => {
    const below = datetimeMillis(clause.values[i]);
    return finer[i] && below.ok ? isoFromMillis(below.value + 1) : clause.values[i];
  };
  const stored = clause.values.filter((_, i) => !finer[i]); // the values a stored datetime can be equal to
  switch (clause.operator) {
    case 'lt': // v < b  ⇔  v < the millisecond above b
    case 'ge': // v ≥ b  ⇔  v ≥ the millisecond above b
      return { ...clause, values: [above(0)] };
    case 'between':
    case 'notBetween': // low bound up, high bound down (already)
      return { ...clause, values: [above(0), clause.values[1]] };
    case 'eq': // no stored value equals b: `in` an empty list, which selects nothing
      return { ...clause, operator: 'in', values: [] };
    case 'ne':
      return { ...clause, operator: 'notIn', values: [] };
    case 'in':
    case 'notIn':
      return { ...clause, values: stored };
    default: // le, gt: v ≤ b ⇔ v ≤ the millisecond below b, which is the coerced value
      return clause;
  }
}
