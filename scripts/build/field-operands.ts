// The operand of a field-to-field operator (`sameas`, `notSameas`: arity `field`) names another filterable field of the
// same list and value type (D-44). The shared `*FieldFilter` schemas cannot say which, so the bundle says it per list
// (decision D-105): each field of a list's filter schema keeps its `$ref` to the shared field filter and gets, beside
// it, `properties` that restrict those operands to an `enum` of the list's own fields of that value type. A `$ref`
// with siblings means both (OpenAPI 3.1, JSON Schema 2020-12), so every other operator stays as the shared schema
// says. The names come from the filter schema's own properties; no list is kept by hand.
import { readOperators } from '../../src/spec/operators.ts';

/** Adds the per-list operand enums to every filter schema of a bundled document, in place. */
export function fillFieldOperandEnums(document: any): void {
  // a description without the filter grammar (a tree the diff reads) has no operands to complete
  if (!document?.components?.schemas?.FilterOperator?.['x-care-operators']) return;
  const fieldOperators = Object.values(readOperators(document))
    .filter((operator) => operator.arity === 'field')
    .map((operator) => operator.name);
  const schemas: Record<string, any> = document?.components?.schemas ?? {};
  const resolve = (node: any) => (typeof node?.$ref === 'string' ? schemas[node.$ref.split('/').pop()] : node);
  for (const schema of Object.values(schemas)) {
    const fields = Object.entries<any>(schema?.properties ?? {}).map(([name, property]) => ({ name, property, filter: resolve(property) }));
    // a filter schema: every property is a reference to a *FieldFilter (it carries x-care-value-type)
    if (fields.length === 0 || !fields.every(({ property, filter }) => typeof property?.$ref === 'string' && typeof filter?.['x-care-value-type'] === 'string')) continue;
    const namesOf = (valueType: string) => fields.filter(({ filter }) => filter['x-care-value-type'] === valueType).map(({ name }) => name);
    for (const { name, property, filter } of fields) {
      const operators = fieldOperators.filter((operator) => filter.properties?.[operator]);
      if (operators.length === 0) continue;
      const names = namesOf(filter['x-care-value-type']);
      const example = names.find((other) => other !== name) ?? name;
      const operand = {
        description: `A filterable ${filter['x-care-value-type']} field of this list (decisions D-44, D-105).`,
        enum: names,
        example,
      };
      property.properties = { ...property.properties, ...Object.fromEntries(operators.map((operator) => [operator, operand])) };
    }
  }
}
