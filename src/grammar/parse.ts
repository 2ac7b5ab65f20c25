// parseListQuery: read page, sort and filter parameters of a list request (seed section 1) into a typed ListQuery,
// collecting one GrammarError per problem. Other query parameters are not the grammar's business.
import type { FilterFieldSpec, ListSpec, OperatorSpec } from '../spec/types.ts';
import { coerceValue } from './coerce.ts';
import { exactDatetimeClause } from './datetime-bounds.ts';
import { splitList } from './list-values.ts';
import { likeProblem, regexProblem } from './regex.ts';
import type { FilterClause, GrammarError, ListQuery, SortKey } from './types.ts';
import { valueCoercion } from './value-types.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface ParsedListQuery {
  query: ListQuery;
  errors: GrammarError[];
}

/** `filter[a][b]` -> ['a', 'b']; null when the key is not `name` followed by 1..n bracketed segments. */
function bracketSegments(key: string, name: string): string[] | null {
  const rest = key.slice(name.length);
  if (!/^(?:\[[^[\]]*\])+$/.test(rest)) return null;
  return rest.slice(1, -1).split('][');
}

function toParams(query: URLSearchParams | string): URLSearchParams {
  if (typeof query !== 'string') return query;
  return new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
}

function readPage(entries: Array<[string, string]>, errors: GrammarError[]): ListQuery['page'] {
  const page = { number: 1, size: DEFAULT_PAGE_SIZE };
  const bounds = { number: { min: 1, max: Infinity }, size: { min: 1, max: MAX_PAGE_SIZE } } as const;
  for (const [key, raw] of entries) {
    const segments = bracketSegments(key, 'page');
    const member = segments?.length === 1 ? segments[0] : undefined;
    if (member !== 'number' && member !== 'size') {
      const where = member === undefined ? 'query.page' : `query.page.${member}`;
      const problem = member === undefined
        ? `malformed page parameter '${key}': use page[number] and page[size]`
        : `unknown page parameter '${key}': use page[number] and page[size]`;
      errors.push({ location: where, problem, code: 'invalid_page' });
      continue;
    }
    const location = `query.page.${member}`;
    const coerced = coerceValue('integer', raw, 'query');
    if (!coerced.ok) {
      errors.push({ location, problem: coerced.problem, code: coerced.code });
      continue;
    }
    const value = coerced.value as number;
    const { min, max } = bounds[member];
    if (value < min) errors.push({ location, problem: `Input should be greater than or equal to ${min}`, code: 'greater_than_equal' });
    else if (value > max) errors.push({ location, problem: `Input should be less than or equal to ${max}`, code: 'less_than_equal' });
    else page[member] = value; // the last one given wins, as for any scalar query parameter
  }
  return page;
}

function readSort(raw: string | undefined, list: ListSpec, errors: GrammarError[]): SortKey[] {
  if (raw === undefined || raw === '') return [];
  const keys: SortKey[] = [];
  for (const part of raw.split(',')) {
    const descending = part.startsWith('-');
    const field = descending ? part.slice(1) : part;
    if (!list.sortFields.includes(field)) {
      const problem = field === ''
        ? 'empty sort field'
        : `'${field}' is not a sortable field; sortable: ${list.sortFields.join(', ')}`;
      errors.push({ location: 'query.sort', problem, code: 'invalid_sort_field' });
    } else if (keys.some((key) => key.field === field)) {
      errors.push({ location: 'query.sort', problem: `'${field}' is sorted on more than once`, code: 'invalid_sort_field' });
    } else {
      const type = list.filterFields[field]?.type;
      keys.push(type ? { field, descending, type } : { field, descending });
    }
  }
  return keys;
}

/** Values of one clause, coerced to the field's type; pushes one error per problem and returns null on any. */
function readValues(field: FilterFieldSpec, operator: OperatorSpec, raw: string, list: ListSpec, location: string, errors: GrammarError[]): FilterClause['values'] | null {
  const invalid = (problem: string) => {
    errors.push({ location, problem, code: 'invalid_filter_value' });
    return null;
  };
  // `indexed`: an element of a list names its index, as body locations do (`query.filter.status.in.1`, D-73).
  const coerceAll = (texts: string[], indexed: boolean) => {
    const values: FilterClause['values'] = [];
    let failed = false;
    for (const [index, text] of texts.entries()) {
      const coerced = coerceValue(valueCoercion(field.type), text, 'query');
      if (coerced.ok) values.push(coerced.value as string | number | boolean);
      else {
        failed = true;
        errors.push({ location: indexed ? `${location}.${index}` : location, problem: coerced.problem, code: coerced.code });
      }
    }
    return failed ? null : values;
  };
  switch (operator.arity) {
    case 'none':
      return raw === '' ? [] : invalid(`operator '${operator.name}' takes no value: write filter[${field.name}][${operator.name}]`);
    case 'single': {
      const values = coerceAll([raw], false);
      if (values && (operator.name === 'match' || operator.name === 'notMatch')) {
        const problem = regexProblem(raw);
        if (problem) return invalid(problem);
      }
      if (values && (operator.name === 'like' || operator.name === 'notLike')) {
        const problem = likeProblem(raw);
        if (problem) return invalid(problem);
      }
      return values;
    }
    case 'field': {
      const other = list.filterFields[raw];
      if (!other) return invalid(`operator '${operator.name}' needs the name of a filterable field, got '${raw}'`);
      if (other.type !== field.type) return invalid(`'${raw}' is of type ${other.type}, not ${field.type} like '${field.name}'`);
      return [raw];
    }
    case 'list':
    case 'pair': {
      const split = splitList(raw);
      if (!split.ok) return invalid(split.problem);
      if (operator.arity === 'pair' && split.values.length !== 2) {
        return invalid(`operator '${operator.name}' takes exactly two comma-separated values, got ${split.values.length}`);
      }
      return coerceAll(split.values, true);
    }
  }
}

/**
 * Read `page[number]`, `page[size]`, `sort` and `filter[...]` of a list request against the operation's ListSpec and
 * the operators of the description. Every problem is reported (never only the first); the query holds what was valid.
 */
export function parseListQuery(query: URLSearchParams | string, list: ListSpec, operators: Record<string, OperatorSpec>): ParsedListQuery {
  const params = toParams(query);
  const errors: GrammarError[] = [];
  const entries = [...params.entries()];

  const page = readPage(entries.filter(([key]) => key === 'page' || key.startsWith('page[')), errors);
  const sortValues = entries.filter(([key]) => key === 'sort');
  const sort = readSort(sortValues.at(-1)?.[1], list, errors);

  const filters: FilterClause[] = [];
  const seen = new Set<string>();
  for (const [key, raw] of entries) {
    if (key !== 'filter' && !key.startsWith('filter[')) continue;
    const segments = bracketSegments(key, 'filter');
    if (!segments || segments.length > 2 || segments.some((segment) => segment === '')) {
      errors.push({ location: 'query.filter', problem: `malformed filter parameter '${key}': use filter[field], filter[field][operator]`, code: 'invalid_filter' });
      continue;
    }
    const [fieldName, operatorName = 'eq'] = segments;
    const field = Object.prototype.hasOwnProperty.call(list.filterFields, fieldName) ? list.filterFields[fieldName] : undefined;
    if (!field) {
      const known = Object.keys(list.filterFields).join(', ');
      errors.push({ location: `query.filter.${fieldName}`, problem: `'${fieldName}' is not a filterable field; filterable: ${known}`, code: 'invalid_filter_field' });
      continue;
    }
    const location = `query.filter.${fieldName}.${operatorName}`;
    const operator = Object.prototype.hasOwnProperty.call(operators, operatorName) ? operators[operatorName] : undefined;
    if (!operator) {
      errors.push({ location, problem: `'${operatorName}' is not a filter operator`, code: 'invalid_filter_operator' });
      continue;
    }
    if (!field.operators.includes(operatorName)) {
      errors.push({ location, problem: `operator '${operatorName}' does not apply to '${fieldName}' (${field.type}); it takes: ${field.operators.join(', ')}`, code: 'invalid_filter_operator' });
      continue;
    }
    if (seen.has(`${fieldName}\u0000${operatorName}`)) {
      errors.push({ location, problem: `filter on '${fieldName}' with '${operatorName}' given more than once`, code: 'invalid_filter' });
      continue;
    }
    seen.add(`${fieldName}\u0000${operatorName}`);
    const values = readValues(field, operator, raw, list, location, errors);
    if (!values) continue;
    const clause: FilterClause = { field: fieldName, operator: operatorName, type: field.type, values };
    if (field.type !== 'datetime' || values.length === 0) filters.push(clause);
    else filters.push(exactDatetimeClause(clause, operator.arity === 'single' ? [raw] : (splitList(raw) as { values: string[] }).values));
  }
  return { query: { page, sort, filters }, errors };
}
