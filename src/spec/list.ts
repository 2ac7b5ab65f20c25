// ListSpec of a list operation: filterable fields (from the filter parameter's schema), sortable fields (from the
// sort parameter's enum) and the item schema (from the 200 response's `data.items`). Nothing here is hand-listed.
import { deref, refName } from './refs.ts';
import type { FilterFieldSpec, ListSpec, ValueType } from './types.ts';

const VALUE_TYPES: readonly ValueType[] = ['string', 'integer', 'datetime', 'boolean', 'stringArray'];

interface RawParameter {
  name: string;
  in: string;
  schema?: any;
}

/** Whether these (resolved) parameters make an operation a list: `page`, `sort` and `filter` in the query. */
export function isListParameters(parameters: RawParameter[]): boolean {
  const names = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
  return names.has('page') && names.has('sort') && names.has('filter');
}

/** The operand enums the bundle writes beside a field's `$ref` to its shared field filter (D-105). */
function operandNamesBeside(fieldSchemaOrRef: any): Record<string, string[]> {
  const names: Record<string, string[]> = {};
  for (const [operator, operand] of Object.entries<any>(fieldSchemaOrRef?.$ref ? fieldSchemaOrRef.properties ?? {} : {})) {
    if (Array.isArray(operand?.enum)) names[operator] = operand.enum.map(String);
  }
  return names;
}

function readFilterFields(document: any, filterSchema: any, where: string): Record<string, FilterFieldSpec> {
  const schema = deref(document, filterSchema);
  const fields: Record<string, FilterFieldSpec> = {};
  for (const [name, fieldSchemaOrRef] of Object.entries<any>(schema?.properties ?? {})) {
    const fieldSchema = deref(document, fieldSchemaOrRef);
    const type = fieldSchema?.['x-care-value-type'];
    if (!VALUE_TYPES.includes(type)) {
      throw new Error(`${where}: filter field ${name} has no known x-care-value-type (got ${String(type)})`);
    }
    fields[name] = { name, type, operators: Object.keys(fieldSchema.properties ?? {}), operandNames: operandNamesBeside(fieldSchemaOrRef) };
  }
  return fields;
}

function readSortFields(document: any, sortSchema: any): string[] {
  const schema = deref(document, sortSchema);
  const items = deref(document, schema?.items);
  const names: string[] = [];
  for (const entry of items?.enum ?? []) {
    const name = String(entry).replace(/^-/, '');
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

function readItemSchema(document: any, responses: any, where: string): string {
  const ok = deref(document, responses?.['200']);
  const schema = deref(document, ok?.content?.['application/json']?.schema);
  const items = deref(document, schema?.properties?.data)?.items;
  if (!items || typeof items.$ref !== 'string') {
    throw new Error(`${where}: the 200 response has no data.items $ref`);
  }
  return refName(items.$ref);
}

export function readListSpec(document: any, operationId: string, parameters: RawParameter[], responses: any): ListSpec {
  const query = (name: string) => parameters.find((p) => p.in === 'query' && p.name === name)!;
  return {
    operationId,
    itemSchema: readItemSchema(document, responses, operationId),
    filterFields: readFilterFields(document, query('filter').schema, operationId),
    sortFields: readSortFields(document, query('sort').schema),
  };
}
