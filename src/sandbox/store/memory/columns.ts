// The columns of the in-memory case lists (decision D-84): one per filterable or sortable field of the cases list
// operation (read from the bundle), over dense slots. Integers and datetimes are numbers (datetimes as epoch ms, as
// the grammar compares them, D-22) with NaN for null; every other field is dictionary-coded (code 0 = null), its
// dictionary holding each distinct value once as the record holds it (strings, arrays of strings).
import { instantOf } from '../../../grammar/compare.ts';
import type { ValueType } from '../../../spec/types.ts';
import { TextIndex } from './text-index.ts';

export interface NumberColumn {
  kind: 'number';
  field: string;
  type: ValueType | undefined;
  values: Float64Array;
}

export interface DictColumn {
  kind: 'dict';
  field: string;
  type: ValueType | undefined;
  codes: Uint32Array;
  /** Code -> value; [0] is null. */
  dict: unknown[];
  /**
   * Value key (the string itself, or JSON of other values) -> code; null when the column keeps no lookup (values
   * nearly all distinct: a repeated value then gets a second code, and equality is found by the text index).
   */
  index: Map<string, number> | null;
  /** Substring search over the dictionary, made on first use. */
  text?: TextIndex;
  /** Every value in the dictionary is a string (null aside). */
  allStrings: boolean;
}

export type MemoryColumn = NumberColumn | DictColumn;

export const keyOf = (value: unknown): string => (typeof value === 'string' ? value : '\u0001' + JSON.stringify(value));

/** A column for a field of `type`: integers and datetimes as numbers, everything else dictionary-coded. */
export function makeColumn(field: string, type: ValueType | undefined, capacity: number): MemoryColumn {
  if (type === 'integer' || type === 'datetime') return { kind: 'number', field, type, values: new Float64Array(capacity) };
  return { kind: 'dict', field, type, codes: new Uint32Array(capacity), dict: [null], index: new Map(), allStrings: true };
}

export function growColumn(column: MemoryColumn, capacity: number): void {
  if (column.kind === 'number') {
    const values = new Float64Array(capacity);
    values.set(column.values);
    column.values = values;
  } else {
    const codes = new Uint32Array(capacity);
    codes.set(column.codes);
    column.codes = codes;
  }
}

/**
 * The number a value of an integer/datetime field is held as, NaN for null, or undefined when the value is not of
 * the field's type (the engine then leaves that environment to SQL rather than guess).
 */
export function numberOf(type: ValueType | undefined, value: unknown): number | undefined {
  if (value === null || value === undefined) return NaN;
  if (type === 'integer') return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  return typeof value === 'string' ? storedInstant(value) : undefined;
}

/** The dictionary code of a value, adding it when new. */
export function codeOf(column: DictColumn, value: unknown): number {
  if (value === null || value === undefined) return 0;
  const key = column.index ? keyOf(value) : '';
  let code = column.index?.get(key);
  if (code === undefined) {
    code = column.dict.length;
    column.dict.push(value);
    if (typeof value !== 'string') column.allStrings = false;
    column.index?.set(key, code);
  }
  return code;
}

/** The text index of a dictionary column, current with its dictionary. */
export function textIndexOf(column: DictColumn): TextIndex {
  column.text ??= new TextIndex(column.dict);
  return column.text;
}

/**
 * The instant of a stored datetime (D-39: ISO text with milliseconds, UTC): the canonical form is read by
 * Date.parse and kept only when it prints back to the same text; anything else goes through the grammar's parser.
 */
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
function storedInstant(text: string): number | undefined {
  if (CANONICAL.test(text)) {
    const ms = Date.parse(text);
    if (ms === ms && new Date(ms).toISOString() === text) return ms;
  }
  return instantOf(text);
}

/** The value of a slot as the record holds it (datetimes as ISO text with ms, D-39). */
export function valueAt(column: MemoryColumn, slot: number): unknown {
  if (column.kind === 'dict') return column.dict[column.codes[slot]];
  const x = column.values[slot];
  if (x !== x) return null;
  return column.type === 'datetime' ? new Date(x).toISOString() : x;
}
