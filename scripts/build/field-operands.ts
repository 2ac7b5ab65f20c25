// The operand of a field-to-field operator (`sameas`, `notSameas`: arity `field`) names another filterable field of the
// same list and value type (D-44). The shared FilterFieldName schemas cannot say which, so the bundle says it per list
// (decision D-105): each list's filter schema gets an `allOf` member whose properties restrict that operand to an
// `enum` of the list's own fields of the field's value type, with an example the list accepts. The names come from the
// filter schema's own properties; no list is kept by hand.
import { readOperators } from '../../src/spec/operators.ts';

/** Adds the per-list operand enums to every filter schema of a bundled document, in place. */
export function fillFieldOperandEnums(document: any): void {
  const fieldOperators = Object.values(readOperators(document))
    .filter((operator) => operator.arity === 'field')
    .map((operator) => operator.name);
  const schemas: Record<string, any> = document?.components?.schemas ?? {};
  const resolve = (node: any) => (typeof node?.$ref === 'string' ? schemas[node.$ref.split('/').pop()] : node);
  for (const schema of Object.values(schemas)) {
    const fields = Object.entries<any>(schema?.properties ?? {}).map(([name, property]) => [name, resolve(property)] as const);
    // a filter schema: every property is a *FieldFilter (it carries x-care-value-type)
    if (fields.length === 0 || !fields.every(([, field]) => typeof field?.['x-care-value-type'] === 'string')) continue;
    const byType = new Map<string, string[]>();
    for (const [name, field] of fields) byType.set(field['x-care-value-type'], [...(byType.get(field['x-care-value-type']) ?? []), name]);
    const restrictions: Record<string, any> = {};
    for (const [name, field] of fields) {
      const operators = fieldOperators.filter((operator) => field.properties?.[operator]);
      if (operators.length === 0) continue;
      const names = byType.get(field['x-care-value-type'])!;
      const example = names.find((other) => other !== name) ?? name;
      restrictions[name] = { properties: Object.fromEntries(operators.map((operator) => [operator, { enum: names, example }])) };
    }
    if (Object.keys(restrictions).length === 0) continue;
    schema.allOf = [
      ...(schema.allOf ?? []),
      {
        description: `The fields that ${fieldOperators.map((o) => `\`${o}\``).join(' and ')} may name on this list: its own filterable fields of the same value type (decisions D-44, D-105).`,
        properties: restrictions,
      },
    ];
  }
}
