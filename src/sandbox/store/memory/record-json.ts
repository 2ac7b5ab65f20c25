// The records of a page as the UTF-8 bytes of a JSON array, written from the engine's columns (D-84): the columns hold
// every field of a case, so a page needs no read of the store (on a large table those reads go to disk). The text is
// the records as the store gives them (the values of the engine's rows, test/sandbox.json-page.test.ts), fields in
// the record's order. Bytes are written straight into one buffer: building each record as a string, joining the strings
// and encoding the join took several times as long (a string joined of pieces is flattened again for the encoder).
// Bytes that repeat are kept and copied whole: a key with the value of a few-valued column after it, a key with
// `null`, and the text of an instant equal to the one written just before it (a case's `created` is its
// `createdAt`, D-03).
import { codeBytes } from './columns.ts';
import type { MemoryColumn } from './columns.ts';

const DAY_MS = 86_400_000;
/** `YYYY-MM-DD` by day number since the epoch, for the days met (bounded). */
const dayTexts = new Map<number, string>();

const two = (n: number) => (n < 10 ? '0' + n : '' + n);

/** `YYYY-MM-DD` of a day number since the epoch (years 0..9999), cached for the days met (bounded). */
function dayText(day: number): string {
  let text = dayTexts.get(day);
  if (text === undefined) {
    if (dayTexts.size > 100_000) dayTexts.clear();
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    dayTexts.set(day, text);
  }
  return text;
}

/** [day number, hour, minute, second, millisecond] of the instant `clock` was last given (one array, reused). */
const parts = new Float64Array(5);

/** Split an instant into day number and time of day (into `parts`). */
function clock(x: number): Float64Array {
  const day = Math.floor(x / DAY_MS);
  let ms = x - day * DAY_MS;
  const hour = Math.floor(ms / 3_600_000);
  ms -= hour * 3_600_000;
  const minute = Math.floor(ms / 60_000);
  ms -= minute * 60_000;
  const second = Math.floor(ms / 1000);
  parts[0] = day;
  parts[1] = hour;
  parts[2] = minute;
  parts[3] = second;
  parts[4] = ms - second * 1000;
  return parts;
}

/** `new Date(x).toISOString()` for an instant in years 0..9999, the date part cached per day (the hot part of it). */
export function isoOf(x: number): string {
  const t = clock(x);
  const ms = t[4];
  return `${dayText(t[0])}T${two(t[1])}:${two(t[2])}:${two(t[3])}.${ms < 10 ? '00' + ms : ms < 100 ? '0' + ms : ms}Z`;
}

/**
 * Whether a stored datetime's text is the one `isoOf` writes back from its instant: only then can the engine write
 * the record (a text in another form, or out of years 0..9999, is read from the store as it is).
 */
export const writesBack = (text: string, x: number): boolean => x >= -62_167_219_200_000 && x < 253_402_300_800_000 && Number.isInteger(x) && isoOf(x) === text;

/** A table's page: the records of the slots given, in that order, as the UTF-8 bytes of a JSON array. */
export type PageWriter = (slots: readonly number[]) => Buffer;

/** A growing byte buffer, shared by all pages (one is written at a time) and copied out at the exact size. */
class Bytes {
  buf = Buffer.allocUnsafeSlow(1 << 16);
  at = 0;
  /** The instant whose 24 bytes of ISO text `writeIso` wrote last, at `isoAt` of this page (growth keeps them there). */
  isoOf = NaN;
  isoAt = 0;

  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  /** Any text, as UTF-8 (lone surrogates as U+FFFD; JSON.stringify escapes them before they come here). */
  text(text: string): void {
    this.room(text.length * 3);
    this.at += this.buf.write(text, this.at);
  }

  /**
   * A string as JSON. `plain`: the string needs no escape (codeBytes) and goes between quotes as it is; else it is
   * written as JSON.stringify writes it (ten times slower than the write of the string alone).
   */
  string(value: string, plain: boolean): void {
    if (!plain) return this.text(JSON.stringify(value));
    this.room(value.length * 3 + 2);
    const { buf } = this;
    buf[this.at] = 34;
    this.at += buf.write(value, this.at + 1) + 2;
    buf[this.at - 1] = 34;
  }

  /** Bytes kept (a key, a value's bytes). */
  copy(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
  }

  /** A non-negative integer below 2^53. */
  digits(x: number): void {
    let n = 1;
    for (let y = Math.floor(x / 10); y >= 1; y = Math.floor(y / 10)) n++;
    this.room(n);
    for (let i = this.at + n - 1, y = x; i >= this.at; i--, y = Math.floor(y / 10)) this.buf[i] = 48 + (y % 10);
    this.at += n;
  }

  take(): Buffer {
    const bytes = Buffer.allocUnsafeSlow(this.at); // not from the shared pool: a cached page pins no slab
    this.buf.copy(bytes, 0, 0, this.at);
    this.at = 0;
    this.isoOf = NaN;
    return bytes;
  }
}

const out = new Bytes();
/** `dayText`'s bytes, by day number (bounded as dayTexts). */
const dayBytes = new Map<number, Buffer>();

/**
 * `isoOf(x)`'s bytes. Only instants of years 0..9999 reach here: a table whose stored datetimes do not all write back
 * as stored (`writesBack`) has its pages written by the store.
 */
function writeIso(x: number): void {
  // a record's createdAt and created are one instant (D-03): the second is copied from the first
  if (x === out.isoOf) {
    out.room(24);
    out.buf.copyWithin(out.at, out.isoAt, out.isoAt + 24);
    out.at += 24;
    return;
  }
  out.isoOf = x;
  out.isoAt = out.at;
  const t = clock(x);
  const day = t[0];
  const hour = t[1];
  const minute = t[2];
  const second = t[3];
  const milli = t[4];
  let date = dayBytes.get(day);
  if (date === undefined) {
    if (dayBytes.size > 100_000) dayBytes.clear();
    dayBytes.set(day, (date = Buffer.from(dayText(day))));
  }
  out.copy(date);
  out.room(14); // THH:MM:SS.sssZ
  const { buf } = out;
  const at = out.at;
  buf[at] = 84; // T
  buf[at + 1] = 48 + Math.floor(hour / 10);
  buf[at + 2] = 48 + (hour % 10);
  buf[at + 3] = 58; // :
  buf[at + 4] = 48 + Math.floor(minute / 10);
  buf[at + 5] = 48 + (minute % 10);
  buf[at + 6] = 58;
  buf[at + 7] = 48 + Math.floor(second / 10);
  buf[at + 8] = 48 + (second % 10);
  buf[at + 9] = 46; // .
  buf[at + 10] = 48 + Math.floor(milli / 100);
  buf[at + 11] = 48 + (Math.floor(milli / 10) % 10);
  buf[at + 12] = 48 + (milli % 10);
  buf[at + 13] = 90; // Z
  out.at = at + 14;
}

/**
 * The page writer of a table (the record's fields in order, each read from the engine's column of the same field), or
 * undefined when a field has no column in the engine.
 */
export function pageWriter(recordFields: readonly string[], columnOf: (field: string) => MemoryColumn | undefined): PageWriter | undefined {
  const parts: Array<(slot: number) => void> = [];
  for (const [i, field] of recordFields.entries()) {
    const column = columnOf(field);
    if (!column) return undefined;
    const key = (i === 0 ? '{' : ',') + JSON.stringify(field) + ':';
    const keyBytes = Buffer.from(key);
    const keyNull = Buffer.from(key + 'null');
    if (column.kind === 'number') {
      const datetime = column.type === 'datetime';
      const keyQuote = Buffer.from(key + '"');
      parts.push((slot) => {
        const x = column.values[slot];
        if (x !== x) out.copy(keyNull);
        else if (datetime) {
          out.copy(keyQuote);
          writeIso(x);
          out.room(1);
          out.buf[out.at++] = 34;
        } else if (Number.isSafeInteger(x) && x >= 0) {
          out.copy(keyBytes);
          out.digits(x);
        } else out.text(key + JSON.stringify(x));
      });
    } else {
      // a dictionary value is the record's own (strings, arrays, booleans as fromSql gives them); code 0 is null.
      // Few-valued columns (a lookup kept, at most 65,536 values) keep each value's bytes after the key's, checked
      // against the value they were made of (the id column rewrites its entries); other strings are written as they come.
      const known: Array<{ value: unknown; bytes: Uint8Array } | undefined> = [];
      parts.push((slot) => {
        const code = column.codes[slot];
        if (code === 0) return out.copy(keyNull);
        const value = column.dict[code];
        if (column.index === null || column.dict.length > 65_536) {
          out.copy(keyBytes);
          if (typeof value !== 'string') return out.text(JSON.stringify(value));
          return out.string(value, codeBytes(column, 'plain')[code] === 1);
        }
        let entry = known[code];
        if (entry === undefined || entry.value !== value) known[code] = entry = { value, bytes: Buffer.from(key + JSON.stringify(value)) };
        out.copy(entry.bytes);
      });
    }
  }
  return (slots) => {
    out.room(1);
    out.buf[out.at++] = 91; // [
    for (let i = 0; i < slots.length; i++) {
      out.room(1);
      if (i > 0) out.buf[out.at++] = 44; // ,
      for (let p = 0; p < parts.length; p++) parts[p](slots[i]);
      out.room(1);
      out.buf[out.at++] = 125; // }
    }
    out.room(1);
    out.buf[out.at++] = 93; // ]
    return out.take();
  };
}
