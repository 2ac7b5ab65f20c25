// The records of a page as JSON text, written from the engine's columns (D-84): the columns hold every field of a
// case, so a page needs no read of SQLite (at 1M cases those reads went to disk). The text is the record as SQLite
// holds it (the same JSON as `fromSql`'s values, test/sandbox.json-page.test.ts), fields in the table's order.
import type { Column } from '../columns.ts';
import type { MemoryColumn } from './columns.ts';

const DAY_MS = 86_400_000;
/** `YYYY-MM-DD` by day number since the epoch, for the days met (bounded). */
const dayTexts = new Map<number, string>();

const two = (n: number) => (n < 10 ? '0' + n : '' + n);

/** `new Date(x).toISOString()` for an instant in years 0..9999, the date part cached per day (the hot part of it). */
export function isoOf(x: number): string {
  const day = Math.floor(x / DAY_MS);
  let text = dayTexts.get(day);
  if (text === undefined) {
    if (dayTexts.size > 100_000) dayTexts.clear();
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    dayTexts.set(day, text);
  }
  let ms = x - day * DAY_MS;
  const hour = Math.floor(ms / 3_600_000);
  ms -= hour * 3_600_000;
  const minute = Math.floor(ms / 60_000);
  ms -= minute * 60_000;
  const second = Math.floor(ms / 1000);
  ms -= second * 1000;
  return `${text}T${two(hour)}:${two(minute)}:${two(second)}.${ms < 10 ? '00' + ms : ms < 100 ? '0' + ms : ms}Z`;
}

/**
 * Whether a stored datetime's text is the one `isoOf` writes back from its instant: only then can the engine write
 * the record (a text in another form, or out of years 0..9999, is read from SQLite as it is).
 */
export const writesBack = (text: string, x: number): boolean => x >= -62_167_219_200_000 && x < 253_402_300_800_000 && Number.isInteger(x) && isoOf(x) === text;

/** One slot's record as JSON text. */
export type RecordWriter = (slot: number) => string;

/**
 * The writer of a table's records (its SQL columns in order, each read from the engine's column of the same field),
 * or undefined when a field has no column in the engine.
 */
export function recordWriter(sqlColumns: readonly Column[], columnOf: (field: string) => MemoryColumn | undefined): RecordWriter | undefined {
  const parts: Array<(slot: number) => string> = [];
  for (const sql of sqlColumns) {
    const column = columnOf(sql.field);
    if (!column) return undefined;
    const key = JSON.stringify(sql.field) + ':';
    if (column.kind === 'number') {
      const datetime = column.type === 'datetime';
      parts.push((slot) => {
        const x = column.values[slot];
        return key + (x !== x ? 'null' : datetime ? '"' + isoOf(x) + '"' : String(x));
      });
    } else {
      // a dictionary value is the record's own (strings, arrays, booleans as fromSql gives them); code 0 is null.
      // Few-valued columns (a lookup kept, at most 65,536 values) keep each value's text, checked against the value it was made of
      // (the id column rewrites its entries).
      const texts: Array<{ value: unknown; text: string } | undefined> = [];
      parts.push((slot) => {
        const code = column.codes[slot];
        if (code === 0) return key + 'null';
        const value = column.dict[code];
        if (column.index === null || column.dict.length > 65_536) return key + JSON.stringify(value);
        let known = texts[code];
        if (known === undefined || known.value !== value) texts[code] = known = { value, text: key + JSON.stringify(value) };
        return known.text;
      });
    }
  }
  return (slot) => {
    let text = '{' + parts[0](slot);
    for (let i = 1; i < parts.length; i++) text += ',' + parts[i](slot);
    return text + '}';
  };
}
