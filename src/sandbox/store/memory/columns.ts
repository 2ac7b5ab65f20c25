// The columns of the in-memory case lists (decision D-84): one per filterable or sortable field of the cases list
// operation (read from the bundle), over dense slots. Integers and datetimes are numbers (datetimes as epoch ms, as
// the grammar compares them, D-22) with NaN for null; every other field is dictionary-coded (code 0 = null), its
// dictionary holding each distinct value once as the record holds it (strings, arrays of strings).
import { instantOf } from '../../../grammar/compare.ts';
import type { ValueType } from '../../../spec/types.ts';
import { CodeIndex } from './code-index.ts';
import { SuffixOrder } from './suffix-order.ts';
import { TextIndex } from './text-index.ts';
import { WordIndex } from './word-index.ts';

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
  index: CodeIndex | null;
  /** Substring search over the dictionary, made on first use. */
  text?: TextIndex;
  /** Substring search through the values' words, made on first use (word-index.ts). */
  words?: WordIndex;
  /** The dictionary's strings in order read backwards, for `endswith` (made on first use). */
  suffixes?: SuffixOrder;
  /** Every value in the dictionary is a string (null aside). */
  allStrings: boolean;
  /** Each code's string length & 255 (0 for other values), for codes below `upTo` (codeBytes: made at the fill, extended on use). */
  lengths?: { bytes: Uint8Array; upTo: number };
  /** Whether each code's value is a string JSON writes as it is (codeBytes: made at the fill, extended on use). */
  plain?: { bytes: Uint8Array; upTo: number };
}

export type MemoryColumn = NumberColumn | DictColumn;

export const keyOf = (value: unknown): string => (typeof value === 'string' ? value : '\u0001' + JSON.stringify(value));

/** A column for a field of `type`: integers and datetimes as numbers, everything else dictionary-coded. */
export function makeColumn(field: string, type: ValueType | undefined, capacity: number): MemoryColumn {
  if (type === 'integer' || type === 'datetime') return { kind: 'number', field, type, values: new Float64Array(capacity) };
  const dict: unknown[] = [null];
  return { kind: 'dict', field, type, codes: new Uint32Array(capacity), dict, index: new CodeIndex(dict), allStrings: true };
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

/** What a dictionary column keeps one byte of per code (`codeBytes`), and how that byte is measured. */
const MEASURES = {
  /**
   * The low byte of the string's length (0 for other values). Two strings of different lengths differ, so `sameas`
   * between two columns of nearly distinct strings reads these bytes in code order and compares the strings themselves
   * only where they agree.
   */
  lengths: (v: unknown) => (typeof v === 'string' ? v.length & 255 : 0),
  /**
   * 1 for a string that JSON writes as it is between quotes and UTF-8 encodes as JSON.stringify's text would be
   * (no quote, backslash, control character or surrogate), else 0: a page writes those without JSON.stringify.
   */
  plain: (v: unknown) => (typeof v === 'string' && !/["\\\u0000-\u001f\ud800-\udfff]/.test(v) ? 1 : 0),
};

/**
 * One byte per code of a dictionary column (MEASURES), current with the dictionary: codes added since the last call
 * are measured now. A code's value never changes once written (the id column writes each slot's code once, with the
 * same id again on update), so measured bytes stay true.
 */
export function codeBytes(column: DictColumn, measure: keyof typeof MEASURES): Uint8Array {
  const n = column.dict.length;
  let kept = column[measure];
  if (!kept || kept.bytes.length < n) {
    const bytes = new Uint8Array(Math.max(1024, n, (kept?.bytes.length ?? 0) * 2));
    if (kept) bytes.set(kept.bytes.subarray(0, kept.upTo));
    kept = column[measure] = { bytes, upTo: kept?.upTo ?? 0 };
  }
  const { bytes } = kept;
  const { dict } = column;
  const of = MEASURES[measure];
  for (let c = kept.upTo; c < n; c++) bytes[c] = of(dict[c]);
  kept.upTo = n;
  return bytes;
}

/** The text index of a dictionary column, current with its dictionary. */
export function textIndexOf(column: DictColumn): TextIndex {
  column.text ??= new TextIndex(column.dict);
  return column.text;
}

/** The word index of a dictionary column, current with its dictionary. */
export function wordIndexOf(column: DictColumn): WordIndex {
  column.words ??= new WordIndex(column.dict);
  return column.words;
}

/** The backwards order of a dictionary column's strings, current with its dictionary. */
export function suffixOrderOf(column: DictColumn): SuffixOrder {
  column.suffixes ??= new SuffixOrder(column.dict);
  return column.suffixes;
}

/**
 * The instant of a stored datetime (D-39: ISO text with milliseconds, UTC, `YYYY-MM-DDTHH:MM:SS.sssZ`): the grammar's
 * own instant of the date part (cached per day) plus the clock, the sum the grammar's parser makes (coerce.ts
 * datetimeMillis); any other form, or a clock out of range, goes through the grammar's parser whole.
 */
const midnights = new Map<string, number | undefined>();
function storedInstant(text: string): number | undefined {
  if (text.length === 24 && text.charCodeAt(10) === 84 /* T */ && text.charCodeAt(23) === 90 /* Z */ && text.charCodeAt(19) === 46 /* . */) {
    const digits = (from: number, count: number) => {
      let n = 0;
      for (let i = from; i < from + count; i++) {
        const d = text.charCodeAt(i) - 48;
        if (d < 0 || d > 9) return -1;
        n = n * 10 + d;
      }
      return n;
    };
    const hour = digits(11, 2);
    const minute = digits(14, 2);
    const second = digits(17, 2);
    const milli = digits(20, 3);
    if (text[13] === ':' && text[16] === ':' && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && milli >= 0) {
      const day = text.slice(0, 10);
      let midnight = midnights.get(day);
      if (midnight === undefined && !midnights.has(day)) {
        midnight = instantOf(day);
        if (midnights.size > 100_000) midnights.clear();
        midnights.set(day, midnight);
      }
      if (midnight !== undefined) return midnight + hour * 3_600_000 + minute * 60_000 + second * 1000 + milli;
    }
  }
  return instantOf(text);
}

/** The slot holds null in the column (code 0, or NaN). */
export function isNullAt(column: MemoryColumn, slot: number): boolean {
  if (column.kind === 'dict') return column.codes[slot] === 0;
  const x = column.values[slot];
  return x !== x;
}

/** The value of a slot as the record holds it (datetimes as ISO text with ms, D-39). */
export function valueAt(column: MemoryColumn, slot: number): unknown {
  if (column.kind === 'dict') return column.dict[column.codes[slot]];
  const x = column.values[slot];
  if (x !== x) return null;
  return column.type === 'datetime' ? new Date(x).toISOString() : x;
}
