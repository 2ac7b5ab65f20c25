// The docs' text for each filter operator, made from the description alone: the operator declarations of
// `FilterOperator` (summary, arity, negationOf, read through src/spec), the sentences of FilterOperator's description
// that name the operator (pattern dialects and limits), the value schema the field's *FieldFilter gives the operator
// (its description: case rules, escapes, forms) and the list's own fields (what `sameas` may name). Nothing here
// lists operators or says what one does, so the text cannot drift from the grammar.
import type { CareSpec, ListSpec, OperatorSpec, ValueType } from '../../../src/spec/index.ts';

/** How an operator of each arity is written; `{f}` is the field, `{v}` the value. */
const ARITY_TEXT: Record<OperatorSpec['arity'], { takes: string; form: string }> = {
  none: { takes: 'no value', form: 'filter[{f}][{op}]' },
  single: { takes: 'one value', form: 'filter[{f}][{op}]={v}' },
  field: { takes: 'the name of another field', form: 'filter[{f}][{op}]={v}' },
  list: { takes: 'one or more comma-separated values', form: 'filter[{f}][{op}]={v}' },
  pair: { takes: 'exactly two comma-separated values', form: 'filter[{f}][{op}]={v}' },
};

export function arityText(arity: OperatorSpec['arity']): string {
  return ARITY_TEXT[arity].takes;
}

/** The value schema a field filter schema gives `operator`, resolved; undefined when the field does not take it. */
export function valueSchema(spec: CareSpec, type: ValueType, operator: string): any {
  const filterSchema = fieldFilterSchema(spec, type);
  const property = filterSchema?.properties?.[operator];
  if (!property) return undefined;
  return property.$ref ? spec.resolve(property.$ref) : property;
}

/** The *FieldFilter schema of a value type (the one whose `x-care-value-type` is it). */
export function fieldFilterSchema(spec: CareSpec, type: ValueType): any {
  return Object.values<any>(spec.document.components.schemas).find((schema) => schema?.['x-care-value-type'] === type);
}

export function fieldFilterSchemaName(spec: CareSpec, type: ValueType): string | undefined {
  return Object.entries<any>(spec.document.components.schemas).find(([, schema]) => schema?.['x-care-value-type'] === type)?.[0];
}

/** Sentences of FilterOperator's description that name `operator` in backticks (its dialect, its limits). */
export function declaredFinePrint(spec: CareSpec, operator: string): string[] {
  const text: string = spec.document.components.schemas.FilterOperator?.description ?? '';
  const sentences = text.replace(/\s+/g, ' ').split(/(?<=\.)\s+(?=[A-Z`(])/);
  const named = new RegExp('`' + operator.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '`');
  return sentences.filter((sentence) => named.test(sentence)).map((sentence) => sentence.trim());
}

/** The query that shows `operator` on `field`, with the value schema's own example (a field name for arity field). */
export function exampleQuery(spec: CareSpec, list: ListSpec | undefined, field: string, type: ValueType, operator: string): string {
  const op = spec.operators[operator];
  let value = '';
  // a field of the same type, else the field itself (still of its own type)
  if (op.arity === 'field') value = sameasFields(list, field, type)[0] ?? (list ? field : String(valueSchema(spec, type, operator)?.example ?? ''));
  else if (op.arity !== 'none') value = String(valueSchema(spec, type, operator)?.example ?? '');
  return filterQuery(field, operator, value, op.arity);
}

function filterQuery(field: string, operator: string, value: string, arity: OperatorSpec['arity']): string {
  return ARITY_TEXT[arity].form.replace('{f}', field).replace('{op}', operator).replace('{v}', value);
}

/**
 * The examples a list's filter schema gives `field` (its JSON Schema `examples`, each a filter object of operator to
 * value as written in the query), taken from the seeded data so each finds something there (decision D-119).
 */
export function fieldExamples(spec: CareSpec, list: ListSpec, field: string): Record<string, unknown>[] {
  const operation = spec.operations.find((o) => o.operationId === list.operationId);
  const parameter = operation?.parameters.find((p) => p.name === 'filter');
  let schema: any = parameter?.schema;
  if (schema?.$ref) schema = spec.resolve(schema.$ref);
  const examples = schema?.properties?.[field]?.examples;
  return Array.isArray(examples) ? examples.filter((e) => e && typeof e === 'object') : [];
}

/** The declared example of `operator` on `field` of `list`, as a query; undefined when the field declares none. */
export function declaredExampleQuery(spec: CareSpec, list: ListSpec, field: string, operator: string): string | undefined {
  const example = fieldExamples(spec, list, field).find((e) => Object.hasOwn(e, operator));
  if (!example) return undefined;
  return filterQuery(field, operator, String(example[operator] ?? ''), spec.operators[operator].arity);
}

/**
 * The example of `operator` on `list`: the first field (in declaration order, among `fields`) whose examples give the
 * operator, else the first field with the value schema's example.
 */
export function listExampleQuery(spec: CareSpec, list: ListSpec, operator: string, fields: { field: string; type: ValueType }[]): string {
  for (const { field } of fields) {
    const declared = declaredExampleQuery(spec, list, field, operator);
    if (declared) return declared;
  }
  return exampleQuery(spec, list, fields[0].field, fields[0].type, operator);
}

/** Fields of the same list and value type that `sameas` on `field` may name. */
export function sameasFields(list: ListSpec | undefined, field: string, type: ValueType): string[] {
  if (!list) return [];
  return Object.values(list.filterFields).filter((other) => other.name !== field && other.type === type).map((other) => other.name);
}

/** What `operator` does and its fine print, for any field of `type` (the shared *FieldFilter row). */
export function operatorText(spec: CareSpec, operator: string, type: ValueType): string {
  const op = spec.operators[operator];
  const parts: string[] = [`**${markdownText(op.summary)}.** Takes ${arityText(op.arity)}.`];
  const value = valueSchema(spec, type, operator);
  if (value?.description) parts.push(sentence(value.description));
  parts.push(...commonFinePrint(spec, operator));
  parts.push(`Example: \`${exampleQuery(spec, undefined, 'field', type, operator)}\`.`);
  return parts.join(' ');
}

/** The fine print that does not depend on the field: complement, and what FilterOperator says of the operator. */
function commonFinePrint(spec: CareSpec, operator: string): string[] {
  const op = spec.operators[operator];
  const parts: string[] = [];
  if (op.negationOf) {
    const positive = spec.operators[op.negationOf];
    const nulls = positive && positive.arity !== 'none' ? ', those whose value is null included' : '';
    parts.push(`The exact complement of \`${op.negationOf}\`: it selects every item \`${op.negationOf}\` does not${nulls}.`);
  }
  parts.push(...declaredFinePrint(spec, operator).map(sentence));
  return parts;
}

/** Plain text for markdown: `*` and `_` are literal (the `like` summary names its wildcard). */
export function markdownText(text: string): string {
  return text.replace(/([*_])/g, '\\$1');
}

function sentence(text: string): string {
  const trimmed = String(text).replace(/\s+/g, ' ').trim();
  return /[.!?)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

const code = (names: string[]) => names.map((n) => `\`${n}\``).join(', ');

/** Markdown: every operator the list offers, with the fields that take it, an example and the fine print. */
export function listOperatorsMarkdown(spec: CareSpec, list: ListSpec): string {
  const byOperator = new Map<string, { field: string; type: ValueType }[]>();
  for (const field of Object.values(list.filterFields)) {
    for (const operator of field.operators) {
      if (!byOperator.has(operator)) byOperator.set(operator, []);
      byOperator.get(operator)!.push({ field: field.name, type: field.type });
    }
  }
  const ordered = Object.keys(spec.operators).filter((name) => byOperator.has(name));
  const lines = [
    `**Operators of this list** (${ordered.length}), each with the fields that take it. The shorthand \`filter[field]=value\` means \`eq\`; several filters all apply. The *Filtering* guide has worked examples.`,
    '',
    'Values by the field\'s type:',
  ];
  const types = [...new Set(Object.values(list.filterFields).map((f) => f.type))];
  /** The schema of a type's one-value operators, whose description says how a value of the type is read. */
  const single = (type: ValueType) => Object.keys(spec.operators).map((name) => spec.operators[name].arity === 'single' && valueSchema(spec, type, name)).find(Boolean);
  for (const type of types) {
    const schema = single(type);
    if (schema?.description) lines.push(`- ${type}: ${sentence(schema.description)}`);
  }
  lines.push('', 'Operators:', '');
  for (const operator of ordered) {
    const op = spec.operators[operator];
    const fields = byOperator.get(operator)!;
    lines.push(`- **\`${operator}\`**: ${markdownText(op.summary)}. Takes ${arityText(op.arity)}, e.g. \`${listExampleQuery(spec, list, operator, fields)}\`. ${commonFinePrint(spec, operator).join(' ')}`.trimEnd());
    for (const type of [...new Set(fields.map((f) => f.type))]) {
      const of = fields.filter((f) => f.type === type).map((f) => f.field);
      const notes: string[] = [];
      const schema = valueSchema(spec, type, operator);
      if (op.arity !== 'none' && schema && schema.title !== single(type)?.title && schema.description) notes.push(sentence(schema.description));
      if (op.arity === 'field') {
        const names = Object.values(list.filterFields).filter((f) => f.type === type).map((f) => f.name);
        notes.push(names.length > 1 ? `It names another of ${code(names)}.` : 'No other field of this list has this type.');
      }
      lines.push(`  - ${type}: ${code(of)}${notes.length ? `. ${notes.join(' ')}` : ''}`);
    }
  }
  return lines.join('\n');
}
