// serializeListQuery / careQuerySerializer: the client side of the grammar. Brackets stay literal (as the seed
// writes them), values are percent-encoded, list separators stay literal commas.
import type { Arity } from '../spec/types.ts';
import { joinList } from './list-values.ts';
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
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  throw new TypeError(`Cannot write ${Object.prototype.toString.call(value)} as a query value`);
}

const encode = encodeURIComponent;

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** `[1, 'a,b']` -> `1,a%5C%2Cb`: each value escaped (D-23) then encoded; the separating commas stay literal. */
function encodeList(values: readonly unknown[], where: string): string {
  if (values.length === 0) throw new TypeError(`${where} needs at least one value`);
  return values.map((value) => encode(joinList([formatValue(value)]))).join(',');
}

/**
 * One `filter[...]` pair per operator. `true` on a no-value operator writes `filter[field][op]` (no `=`), `false`
 * leaves it out; `null` and `undefined` leave any operator out. Arrays are written as lists;
 * a top-level array is shorthand for `in`; a top-level scalar for `eq` (`filter[field]=value`).
 */
export function serializeFilter(filter: FilterInput, operators?: OperatorArities): string[] {
  const arityOf = (operator: string) => operators?.[operator]?.arity ?? fallbackArity(operator);
  const parts: string[] = [];
  for (const [field, spec] of Object.entries(filter)) {
    if (spec === undefined || spec === null) continue;
    const key = `filter[${encode(field)}]`;
    if (Array.isArray(spec)) {
      parts.push(`${key}[in]=${encodeList(spec, `filter[${field}][in]`)}`);
      continue;
    }
    if (!isOperatorObject(spec)) {
      parts.push(`${key}=${encode(formatValue(spec))}`);
      continue;
    }
    for (const [operator, value] of Object.entries(spec)) {
      if (value === undefined || value === null) continue;
      const opKey = `${key}[${encode(operator)}]`;
      const arity = arityOf(operator);
      if (arity === 'none') {
        // `false` means: do not apply this operator.
        if (value === true || value === '') parts.push(opKey);
        else if (value !== false) throw new TypeError(`filter[${field}][${operator}] takes no value: give true or false`);
      } else if (Array.isArray(value)) parts.push(`${opKey}=${encodeList(value, `filter[${field}][${operator}]`)}`);
      else if (arity === 'list' || arity === 'pair') parts.push(`${opKey}=${encodeList([value], `filter[${field}][${operator}]`)}`);
      else parts.push(`${opKey}=${encode(formatValue(value))}`);
    }
  }
  return parts;
}

/**
 * Without the description at hand (a browser bundle), only the spelling of a scalar depends on the arity: `true` on a
 * no-value operator is written without `=`, a scalar on a list operator is a one-value list. Arrays are lists
 * whatever the operator. Pass `spec.operators` to use the declared arities instead of this naming convention.
 */
export function fallbackArity(operator: string): Arity {
  if (/^(?:empty|notEmpty|null|notNull|exists|notExists)$/.test(operator)) return 'none';
  if (/^(?:in|notIn)$/.test(operator)) return 'list';
  if (/^(?:between|notBetween)$/.test(operator)) return 'pair';
  if (/^(?:sameas|notSameas)$/.test(operator)) return 'field';
  return 'single';
}

function serializeSort(sort: ListQueryInput['sort']): string | null {
  if (sort === undefined || sort === null) return null;
  const names = typeof sort === 'string'
    ? [sort]
    : sort.map((key) => (typeof key === 'string' ? key : `${key.descending ? '-' : ''}${key.field}`));
  if (names.length === 0) return null;
  return `sort=${names.map((name) => encode(name).replace(/%2C/gi, ',')).join(',')}`;
}

/** `{ page, sort, filter }` -> `page[number]=2&page[size]=50&sort=status,-created&filter[status]=10` (no `?`). */
export function serializeListQuery(input: ListQueryInput, operators?: OperatorArities): string {
  const parts: string[] = [];
  if (input.page?.number !== undefined) parts.push(`page[number]=${encode(formatValue(input.page.number))}`);
  if (input.page?.size !== undefined) parts.push(`page[size]=${encode(formatValue(input.page.size))}`);
  const sort = serializeSort(input.sort);
  if (sort) parts.push(sort);
  if (input.filter) parts.push(...serializeFilter(input.filter, operators));
  return parts.join('&');
}

/**
 * A `querySerializer` for openapi-fetch: `page`, `sort` and `filter` in the grammar above; other parameters as
 * form-style `name=value` (arrays comma-joined, objects as `name[key]=value`); null and undefined left out.
 */
export function careQuerySerializer(params: Record<string, unknown> | undefined | null, operators?: OperatorArities): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (name === 'page' && isOperatorObject(value)) {
      const list = serializeListQuery({ page: value as ListQueryInput['page'] });
      if (list) parts.push(list);
    } else if (name === 'sort') {
      const sort = serializeSort(value as ListQueryInput['sort']);
      if (sort) parts.push(sort);
    } else if (name === 'filter' && isOperatorObject(value)) {
      parts.push(...serializeFilter(value, operators));
    } else if (Array.isArray(value)) {
      parts.push(`${encode(name)}=${value.map((item) => encode(formatValue(item))).join(',')}`);
    } else if (isOperatorObject(value)) {
      for (const [key, inner] of Object.entries(value)) {
        if (inner !== undefined && inner !== null) parts.push(`${encode(name)}[${encode(key)}]=${encode(formatValue(inner))}`);
      }
    } else {
      parts.push(`${encode(name)}=${encode(formatValue(value))}`);
    }
  }
  return parts.join('&');
}
