// Query classes of GET /cases read from the bundle (issue 8): every filterable field x every operator it declares,
// every sortable field ascending and descending, two-key sorts. A class is a shape; each request of a class draws its
// values from real rows, a page in 1..100, a size of 50 or 200 and an account (customer or partner).
import { serializeListQuery } from '../src/grammar/serialize.ts';
import type { CareSpec, ListSpec } from '../src/spec/types.ts';

export interface QueryClass {
  name: string;
  /** `filter` classes by operator, `sort` classes by field; `text` marks contains/like/startswith/endswith. */
  kind: 'filter' | 'sort' | 'sort2';
  operator?: string;
  /** The query string of one request of this class (without page). */
  query(random: () => number, rows: Record<string, any>[]): string;
}

// A seeded PRNG, so two runs draw the same requests: the seed data's own.
export { prng } from '../src/sandbox/seed.ts';

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)];

/** A value of `field` from a random row that has one (rows are a sample of the data). */
function valueOf(random: () => number, rows: Record<string, any>[], field: string): any {
  for (let i = 0; i < 50; i++) {
    const v = pick(random, rows)[field];
    if (v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)) return Array.isArray(v) ? pick(random, v) : v;
  }
  return 'x';
}

/** A word of a text value (at least 3 characters when there is one), for the text operators. */
function wordOf(random: () => number, text: string): string {
  const words = String(text).split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3);
  return words.length > 0 ? pick(random, words) : String(text).slice(0, 3);
}

function operand(spec: ListSpec, field: string, operator: string, random: () => number, rows: Record<string, any>[]): unknown {
  const type = spec.filterFields[field].type;
  const v = valueOf(random, rows, field);
  switch (operator) {
    case 'contains':
    case 'notContains':
      return type === 'stringArray' ? v : wordOf(random, v);
    case 'like':
    case 'notLike':
      return `*${wordOf(random, v)}*`;
    case 'match':
    case 'notMatch': {
      const words = String(v).split(/\s+/).filter(Boolean);
      return `^${words[0]?.replace(/[^\p{L}\p{N}]/gu, '.') ?? ''}.*${(words.at(-1) ?? '').replace(/[^\p{L}\p{N}]/gu, '.')}`;
    }
    case 'startswith':
    case 'notStartswith':
      return String(v).slice(0, 4);
    case 'endswith':
    case 'notEndswith':
      return String(v).slice(-4);
    case 'sameas':
    case 'notSameas': {
      const others = Object.values(spec.filterFields).filter((f) => f.type === type && f.name !== field);
      return others.length > 0 ? pick(random, others).name : field;
    }
    case 'in':
    case 'notIn':
      return [v, valueOf(random, rows, field)];
    case 'between':
    case 'notBetween': {
      const a = v;
      const b = valueOf(random, rows, field);
      return (type === 'integer' ? a <= b : String(a) <= String(b)) ? [a, b] : [b, a];
    }
    default:
      return v;
  }
}

export function queryClasses(spec: CareSpec, operationId = 'listCases'): QueryClass[] {
  const list = spec.operation(operationId).list!;
  const arities = Object.fromEntries(Object.entries(spec.operators).map(([name, o]) => [name, o.arity]));
  const classes: QueryClass[] = [];
  for (const field of Object.values(list.filterFields)) {
    for (const operator of field.operators) {
      const arity = spec.operators[operator].arity;
      classes.push({
        name: `filter[${field.name}][${operator}]`,
        kind: 'filter',
        operator,
        query: (random, rows) => {
          const value = arity === 'none' ? true : operand(list, field.name, operator, random, rows);
          return serializeListQuery({ filter: { [field.name]: { [operator]: value } }, sort: pick(random, ['-createdAt', 'id']) }, arities as any);
        },
      });
    }
  }
  for (const field of list.sortFields) {
    for (const sort of [field, `-${field}`]) classes.push({ name: `sort=${sort}`, kind: 'sort', query: () => serializeListQuery({ sort }) });
  }
  // two-key sorts: each sortable field after a low-cardinality one (status, priority: the common "group then order")
  const leads = list.sortFields.filter((f) => list.filterFields[f]?.type === 'integer');
  for (const lead of leads) {
    classes.push({
      name: `sort=${lead},<field>`,
      kind: 'sort2',
      query: (random) => serializeListQuery({ sort: [`${random() < 0.5 ? '-' : ''}${lead}`, `${random() < 0.5 ? '-' : ''}${pick(random, list.sortFields.filter((f) => f !== lead))}`] }),
    });
  }
  return classes;
}

export const TEXT_OPERATORS = new Set(['contains', 'notContains', 'like', 'notLike', 'startswith', 'notStartswith', 'endswith', 'notEndswith']);

/** page[number] 1..100, page[size] 50 or 200. */
export function pageOf(random: () => number): { number: number; size: number } {
  return { number: 1 + Math.floor(random() * 100), size: random() < 0.5 ? 50 : 200 };
}
