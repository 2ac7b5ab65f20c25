// The front shapes what Prism answers for lists and single resources (D-42): Prism repeats one example, with the
// first value of every enum (every case New and Critical). The front turns that example into a fixed collection of
// LIST_SIZE items per list, the same on every run: ids counted up from the example's, every enum value in turn from
// the description's example value (so the first item is the docs' sample),
// nullable fields null on every fourth item, date-times a few hours apart. A list answer is that collection filtered,
// sorted and paged by the grammar (src/grammar), with `meta.page` to match; a single resource whose id is one of the
// collection's answers that item. Only fields whose variants the item's schema accepts are varied.
import { compareBySort, matchesFilters, type ListQuery } from '../grammar/index.ts';
import { deref, validatorFor, type CareSpec, type OperationSpec } from '../spec/index.ts';

/** Items of every list's collection. */
export const LIST_SIZE = 120;
const HOURS_APART = 3;

type Item = Record<string, unknown>;

interface Variation {
  /** Fields that take each value of their enum in turn. */
  enums: Array<{ name: string; values: unknown[] }>;
  /** Fields that are null on every fourth item. */
  nullable: string[];
  /** Date-time fields, moved HOURS_APART per item. */
  dateTimes: string[];
  /** Text fields that take each of the description's `examples` in turn, so a text filter narrows the list. */
  texts: Array<{ name: string; values: unknown[] }>;
}

const ID = /^([A-Za-z_-]*?)(\d+)$/;

function typesOf(schema: any): string[] {
  return Array.isArray(schema?.type) ? schema.type : schema?.type ? [schema.type] : [];
}

function allowsNull(schema: any): boolean {
  return typesOf(schema).includes('null') || (Array.isArray(schema?.oneOf) && schema.oneOf.some((s: any) => s?.type === 'null'));
}

/** The item at position `k` of a collection made from `example` (id counted up from the example's). */
function variant(example: Item, variation: Variation, k: number): Item {
  const item: Item = { ...example };
  const id = typeof example.id === 'string' ? ID.exec(example.id) : null;
  if (id) item.id = id[1] + String(Number(id[2]) + k).padStart(id[2].length, '0');
  variation.enums.forEach(({ name, values }) => (item[name] = values[k % values.length]));
  variation.texts.forEach(({ name, values }) => (item[name] = values[k % values.length]));
  for (const name of variation.dateTimes) {
    const at = Date.parse(String(example[name]));
    if (Number.isFinite(at)) item[name] = new Date(at + k * HOURS_APART * 3_600_000).toISOString();
  }
  if (k % 4 === 3) for (const name of variation.nullable) item[name] = null;
  return item;
}

export interface PageShaper {
  /** A list answer of Prism, shaped: the collection filtered, sorted and paged by `query`. */
  list(operation: OperationSpec, query: ListQuery, params: Record<string, string>, body: any): any;
  /** A single-resource answer of Prism, shaped: the collection's item of the requested id, when it is one of them. */
  single(operation: OperationSpec, params: Record<string, string>, body: any): any;
}

export function createPageShaper(spec: CareSpec): PageShaper {
  const variations = new Map<string, Variation>();

  /** Which fields of the schema can vary: those whose every variant, alone and together, the schema accepts. */
  const variationOf = (schemaName: string, example: Item): Variation => {
    const key = `${schemaName} ${JSON.stringify(example)}`;
    const known = variations.get(key);
    if (known) return known;
    const schema = deref(spec.document, spec.resolve(`#/components/schemas/${schemaName}`)) ?? {};
    const validate = validatorFor(spec, schemaName);
    const required = new Set<string>(schema.required ?? []);
    const variation: Variation = { enums: [], nullable: [], dateTimes: [], texts: [] };
    const accepted = (candidate: Variation) => {
      for (let k = 0; k < 24; k++) if (!validate(variant(example, candidate, k))) return false;
      return true;
    };
    for (const [name, raw] of Object.entries<any>(schema.properties ?? {})) {
      if (name === 'id' || !(name in example)) continue;
      const property = deref(spec.document, raw) ?? {};
      const enumValues: unknown[] = Array.isArray(property.enum) ? property.enum.filter((v: unknown) => v !== null) : [];
      // The first item shows the description's own example (the docs' sample), then every other value in turn.
      const start = Math.max(0, enumValues.indexOf(raw?.example ?? property.example));
      const values = [...enumValues.slice(start), ...enumValues.slice(0, start)];
      // the item's own text first (the docs' sample), then the other examples the description gives
      const texts = Array.isArray(property.examples) ? [example[name], ...property.examples.filter((v: unknown) => typeof v === 'string' && v !== example[name])] : [];
      const one: Variation = { enums: [], nullable: [], dateTimes: [], texts: [] };
      if (values.length > 1) one.enums.push({ name, values });
      else if (typeof example[name] === 'string' && texts.length > 1) one.texts.push({ name, values: texts });
      else if (property.format === 'date-time' && typesOf(property).includes('string')) one.dateTimes.push(name);
      if (allowsNull(property) && required.has(name)) one.nullable.push(name);
      if (one.enums.length + one.dateTimes.length + one.nullable.length + one.texts.length > 0 && accepted(one)) {
        variation.enums.push(...one.enums);
        variation.texts.push(...one.texts);
        variation.dateTimes.push(...one.dateTimes);
        variation.nullable.push(...one.nullable);
      }
    }
    const chosen = accepted(variation) ? variation : { enums: [], nullable: [], dateTimes: [], texts: [] };
    variations.set(key, chosen);
    return chosen;
  };

  /** A path parameter `caseId` names the parent: its value goes into the items' `case` field. */
  const withParents = (item: Item, params: Record<string, string>): Item => {
    for (const [param, value] of Object.entries(params)) {
      const field = param.replace(/Id$/, '');
      if (field !== param && typeof item[field] === 'string') item[field] = value;
    }
    return item;
  };

  const itemSchemaOfSingle = (operation: OperationSpec): string | undefined => {
    const success = operation.responses.find((r) => r.status === '200');
    const schema = deref(spec.document, success?.schema);
    const ref = schema?.properties?.data?.$ref;
    return typeof ref === 'string' ? ref.split('/').pop() : undefined;
  };

  return {
    list(operation, query, params, body) {
      const example = Array.isArray(body?.data) ? body.data[0] : undefined;
      if (!operation.list || !example || typeof example !== 'object') return body;
      const variation = variationOf(operation.list.itemSchema, example);
      const matches: Item[] = [];
      for (let k = 0; k < LIST_SIZE; k++) {
        const item = withParents(variant(example, variation, k), params);
        if (matchesFilters(item, query.filters, spec.operators)) matches.push(item);
      }
      matches.sort((a, b) => compareBySort(a, b, query.sort));
      const { number, size } = query.page;
      const data = matches.slice((number - 1) * size, number * size);
      return { ...body, meta: { ...body.meta, page: { number, size, count: data.length, totalCount: matches.length } }, data };
    },
    single(operation, params, body) {
      const example = body?.data;
      const schemaName = itemSchemaOfSingle(operation);
      if (!schemaName || !example || typeof example !== 'object' || typeof example.id !== 'string') return body;
      const own = ID.exec(example.id);
      const wanted = Object.values(params).at(-1);
      const asked = wanted === undefined ? null : ID.exec(wanted);
      if (!own || !asked || asked[1] !== own[1] || asked[2].length !== own[2].length) return body;
      const k = Number(asked[2]) - Number(own[2]);
      if (k < 0 || k >= LIST_SIZE) return body;
      const { [Object.keys(params).at(-1)!]: _self, ...parents } = params;
      return { ...body, data: withParents(variant(example, variationOf(schemaName, example), k), parents) };
    },
  };
}
