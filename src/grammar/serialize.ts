// serializeListQuery / careQuerySerializer: the client side of the grammar. Brackets stay literal (as the seed
// writes them), values are percent-encoded, list separators stay literal commas.
// It runs on every request the client sends (bench/client-overhead.ts), so it is written to allocate little: no
// per-call closures or regexes, keys walked with `for...in` over own properties, one value lists without arrays.
import type { Arity } from '../spec/types.ts';
import type { FilterInput, SortKey } from './types.ts';

/** Arity of each operator, from the description (`spec.operators`); without it, see `fallbackArity`. */
export type OperatorArities = Record<string, { arity: Arity }>;

export interface ListQueryInput {
  page?: { number?: number; size?: number };
  /** `'status,-created'`, `['status', '-created']` or sort keys. */
  sort?: string | ReadonlyArray<string | SortKey>;
  filter?: FilterInput;
}

/** A value as it is written in a query string, before percent-encoding. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`Cannot write ${Object.prototype.toString.call(value)} as a query value`);
}

const encode = encodeURIComponent;
const hasOwn = Object.prototype.hasOwnProperty;

/** A value percent-encoded; safe integers are digits and `-` only, so they skip the encoder's new string. */
function encodeValue(value: unknown): string {
  return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : encode(formatValue(value));
}

// `filter[field]` and `filter[field][operator]` are the same few strings on every request: built once each. Bounded,
// since field names come from callers (an unknown one is sent, and refused by the service).
const MAX_CACHED_FIELDS = 512;
const fieldKeys = new Map<string, { key: string; operators: Map<string, string> }>();

function fieldKey(field: string): { key: string; operators: Map<string, string> } {
  let entry = fieldKeys.get(field);
  if (entry === undefined) {
    entry = { key: `filter[${encode(field)}]`, operators: new Map() };
    if (fieldKeys.size < MAX_CACHED_FIELDS) fieldKeys.set(field, entry);
  }
  return entry;
}

function operatorKey(entry: { key: string; operators: Map<string, string> }, operator: string): string {
  let key = entry.operators.get(operator);
  if (key === undefined) {
    key = `${entry.key}[${encode(operator)}]`;
    if (entry.operators.size < MAX_CACHED_FIELDS) entry.operators.set(operator, key);
  }
  return key;
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** One list value, escaped (D-23: `\,` and `\\`, as `joinList` does) then percent-encoded. */
function encodeListValue(value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  const text = formatValue(value);
  if (text.indexOf(',') === -1 && text.indexOf('\\') === -1) return encode(text);
  return encode(text.replace(/[\\,]/g, '\\$&'));
}

/** `[1, 'a,b']` -> `1,a%5C%2Cb`: each value escaped then encoded; the separating commas stay literal. */
function encodeList(values: readonly unknown[], field: string, operator: string): string {
  if (values.length === 0) throw new TypeError(`filter[${field}][${operator}] needs at least one value`);
  let out = encodeListValue(values[0]);
  for (let i = 1; i < values.length; i++) out += ',' + encodeListValue(values[i]);
  return out;
}

/** The one `filter[field][operator]...` pair of an operator, or null when it is left out. */
function operatorPair(entry: ReturnType<typeof fieldKey>, field: string, operator: string, value: unknown, operators: OperatorArities | undefined): string | null {
  if (value === undefined || value === null) return null;
  const opKey = operatorKey(entry, operator);
  const arity = operators?.[operator]?.arity ?? fallbackArity(operator);
  if (arity === 'none') {
    // `false` means: do not apply this operator.
    if (value === true || value === '') return opKey;
    if (value === false) return null;
    throw new TypeError(`filter[${field}][${operator}] takes no value: give true or false`);
  }
  if (Array.isArray(value)) return `${opKey}=${encodeList(value, field, operator)}`;
  if (arity === 'list' || arity === 'pair') return `${opKey}=${encodeList([value], field, operator)}`;
  return `${opKey}=${encodeValue(value)}`;
}

/** Appends one pair per operator of `filter` to `parts`. */
function pushFilter(parts: string[], filter: FilterInput, operators: OperatorArities | undefined): void {
  for (const field in filter) {
    if (!hasOwn.call(filter, field)) continue;
    const spec = (filter as Record<string, unknown>)[field];
    if (spec === undefined || spec === null) continue;
    const entry = fieldKey(field);
    if (Array.isArray(spec)) parts.push(`${operatorKey(entry, 'in')}=${encodeList(spec, field, 'in')}`);
    else if (!isOperatorObject(spec)) parts.push(`${entry.key}=${encodeValue(spec)}`);
    else {
      for (const operator in spec) {
        if (!hasOwn.call(spec, operator)) continue;
        const pair = operatorPair(entry, field, operator, spec[operator], operators);
        if (pair !== null) parts.push(pair);
      }
    }
  }
}

/**
 * One `filter[...]` pair per operator. `true` on a no-value operator writes `filter[field][op]` (no `=`), `false`
 * leaves it out; `null` and `undefined` leave any operator out. Arrays are written as lists;
 * a top-level array is shorthand for `in`; a top-level scalar for `eq` (`filter[field]=value`).
 */
export function serializeFilter(filter: FilterInput, operators?: OperatorArities): string[] {
  const parts: string[] = [];
  pushFilter(parts, filter, operators);
  return parts;
}

/**
 * Without the description at hand (a browser bundle), only the spelling of a scalar depends on the arity: `true` on a
 * no-value operator is written without `=`, a scalar on a list operator is a one-value list. Arrays are lists
 * whatever the operator. Pass `spec.operators` to use the declared arities instead of this naming convention.
 */
export function fallbackArity(operator: string): Arity {
  switch (operator) {
    case 'empty': case 'notEmpty': case 'null': case 'notNull': case 'exists': case 'notExists':
      return 'none';
    case 'in': case 'notIn':
      return 'list';
    case 'between': case 'notBetween':
      return 'pair';
    case 'sameas': case 'notSameas':
      return 'field';
    default:
      return 'single';
  }
}

/** A sort key percent-encoded, its commas kept literal (they separate keys). */
function encodeSortName(name: string): string {
  return name.indexOf(',') === -1 ? encode(name) : encode(name).replace(/%2C/gi, ',');
}

function serializeSort(sort: ListQueryInput['sort']): string | null {
  if (sort === undefined || sort === null) return null;
  if (typeof sort === 'string') return `sort=${encodeSortName(sort)}`;
  if (!Array.isArray(sort)) throw new TypeError('sort must be a string or an array of sort keys');
  if (sort.length === 0) return null;
  let out = 'sort=';
  for (let i = 0; i < sort.length; i++) {
    const key = sort[i];
    const name = typeof key === 'string' ? key : `${key.descending ? '-' : ''}${key.field}`;
    out += (i === 0 ? '' : ',') + encodeSortName(name);
  }
  return out;
}

function pushPage(parts: string[], page: ListQueryInput['page']): void {
  if (page?.number !== undefined) parts.push(`page[number]=${encodeValue(page.number)}`);
  if (page?.size !== undefined) parts.push(`page[size]=${encodeValue(page.size)}`);
}

/** `{ page, sort, filter }` -> `page[number]=2&page[size]=50&sort=status,-created&filter[status]=10` (no `?`). */
export function serializeListQuery(input: ListQueryInput, operators?: OperatorArities): string {
  const parts: string[] = [];
  pushPage(parts, input.page);
  const sort = serializeSort(input.sort);
  if (sort) parts.push(sort);
  if (input.filter) pushFilter(parts, input.filter, operators);
  return parts.join('&');
}

/**
 * A `querySerializer` for openapi-fetch: `page`, `sort` and `filter` in the grammar above; other parameters as
 * form-style `name=value` (arrays comma-joined, objects as `name[key]=value`); null and undefined left out.
 */
export function careQuerySerializer(params: Record<string, unknown> | undefined | null, operators?: OperatorArities): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const name in params) {
    if (!hasOwn.call(params, name)) continue;
    const value = params[name];
    if (value === undefined || value === null) continue;
    if (name === 'page' && isOperatorObject(value)) {
      pushPage(parts, value as ListQueryInput['page']);
    } else if (name === 'sort') {
      const sort = serializeSort(value as ListQueryInput['sort']);
      if (sort) parts.push(sort);
    } else if (name === 'filter' && isOperatorObject(value)) {
      pushFilter(parts, value, operators);
    } else if (Array.isArray(value)) {
      let list = '';
      for (let i = 0; i < value.length; i++) list += (i === 0 ? '' : ',') + encode(formatValue(value[i]));
      parts.push(`${encode(name)}=${list}`);
    } else if (isOperatorObject(value)) {
      for (const key in value) {
        if (!hasOwn.call(value, key)) continue;
        const inner = value[key];
        if (inner !== undefined && inner !== null) parts.push(`${encode(name)}[${encode(key)}]=${encode(formatValue(inner))}`);
      }
    } else {
      parts.push(`${encode(name)}=${encode(formatValue(value))}`);
    }
  }
  return parts.join('&');
}
