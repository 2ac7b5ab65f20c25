// The 28 filter operators, read from `components.schemas.FilterOperator['x-care-operators']`.
import type { Arity, OperatorSpec } from './types.ts';

const ARITIES: readonly Arity[] = ['none', 'single', 'field', 'list', 'pair'];

export function readOperators(document: any): Record<string, OperatorSpec> {
  const declared = document?.components?.schemas?.FilterOperator?.['x-care-operators'];
  if (!declared || typeof declared !== 'object') {
    throw new Error('The description has no components.schemas.FilterOperator x-care-operators');
  }
  const operators: Record<string, OperatorSpec> = {};
  for (const [name, raw] of Object.entries<any>(declared)) {
    if (!ARITIES.includes(raw?.arity)) throw new Error(`Operator ${name} has an unknown arity ${raw?.arity}`);
    operators[name] = {
      name,
      arity: raw.arity,
      negationOf: raw.negationOf ?? null,
      summary: String(raw.summary ?? ''),
    };
  }
  return operators;
}
