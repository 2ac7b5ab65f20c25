// The operand of a field-to-field operator (`sameas`, `notSameas`: arity `field`) names another filterable field of the
// same list and value type (D-44). The shared FilterFieldName schemas cannot say which, so the bundle says it per list
// (decision D-105): in each list's filter schema, a field whose filter takes such an operator gets its own copy of the
// shared *FieldFilter schema (same `x-care-value-type`, same operators) whose operand is an `enum` of the list's own
// fields of that value type, with an example the list accepts. The names come from the filter schema's own properties;
// no list is kept by hand.
import { readOperators } from '../../src/spec/operators.ts';

/** Writes the per-list operand enums into every filter schema of a bundled document, in place. */
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
    for (const [name, field] of fields) {
      const operators = fieldOperators.filter((operator) => field.properties?.[operator]);
      if (operators.length === 0) continue;
      const names = byType.get(field['x-care-value-type'])!;
      const example = names.find((other) => other !== name) ?? name;
      const copy = structuredClone(field);
      delete copy.title;
      for (const operator of operators) {
        const shared = resolve(field.properties[operator]);
        // the shared operand schema stays (its type, pattern and length); the enum narrows it to this list's names
        copy.properties[operator] = {
          allOf: [field.properties[operator]],
          enum: names,
          description: `${String(shared?.description ?? '').trim()}\n\nOn this list: ${names.map((n) => `\`${n}\``).join(', ')} (decision D-105).`.trim(),
          example,
        };
      }
      for (const operator of operators) if (copy.example && operator in copy.example) copy.example[operator] = example;
      schema.properties[name] = copy;
    }
  }
}
