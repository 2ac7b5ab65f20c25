// Input coercion of seed section 1 ("Input coercion"), with pydantic v2 (lax mode) semantics and error types.
// Query values arrive as strings; JSON bodies may hold native types or string representations.
import { splitList } from './list-values.ts';

export type CoercionType = 'string' | 'integer' | 'float' | 'boolean' | 'datetime' | 'date' | 'time' | 'timedelta' | 'array';
export type CoercionSource = 'query' | 'body';
export type CoercedValue = string | number | boolean | CoercedValue[];
/**
 * A converted value, or why not. `at` locates a problem inside an array (the index of the bad element), so callers can
 * write pydantic's location `body.watchList.1`.
 */
export type Coerced<T = CoercedValue> = { ok: true; value: T } | { ok: false; problem: string; code: string; at?: number[] };

const fail = (code: string, problem: string): { ok: false; problem: string; code: string } => ({ ok: false, problem, code });
const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

// ---------------------------------------------------------------------------------------------------------------
// numbers

/** Python-style digits: optional sign, digits with single underscores between them (as pydantic's int parser). */
const INTEGER_TEXT = /^[+-]?[0-9]+(?:_[0-9]+)*$/;
const FLOAT_TEXT = /^[+-]?(?:[0-9]+(?:_[0-9]+)*(?:\.(?:[0-9]+(?:_[0-9]+)*)?)?|\.[0-9]+(?:_[0-9]+)*)(?:[eE][+-]?[0-9]+)?$/;

function integerFromNumber(value: number): Coerced<number> {
  if (!Number.isFinite(value)) return fail('finite_number', 'Input should be a finite number');
  if (!Number.isInteger(value)) return fail('int_from_float', 'Input should be a valid integer, got a number with a fractional part');
  if (!Number.isSafeInteger(value)) return fail('int_parsing_size', 'Unable to parse input string as an integer, exceeded maximum size');
  return ok(value === 0 ? 0 : value); // no -0
}

const INT_PARSING = 'Input should be a valid integer, unable to parse string as an integer';
const INT_SIZE = 'Unable to parse input string as an integer, exceeded maximum size';

/**
 * The integer digits of a float text (`1e1`, `1.5e1`, `-2.50e2`), by moving the decimal point in the digits rather than
 * through a double, so `1.00000000000000001e1` is not mistaken for 10; null when a non-zero digit is left after the point.
 */
function integerDigitsOfFloatText(text: string): { sign: string; digits: string } | null {
  const [, sign, whole, fraction = '', exponent = '0'] = /^([+-]?)([0-9_]*)(?:\.([0-9_]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text)!;
  const digits = (whole + fraction).replace(/_/g, '').replace(/^0+/, '');
  if (digits === '') return { sign: '', digits: '0' };
  const point = whole.replace(/_/g, '').length - ((whole + fraction).replace(/_/g, '').length - digits.length) + Number(exponent);
  if (point <= 0) return null;
  if (point >= digits.length) return { sign, digits: point > 20 ? '9'.repeat(21) : digits + '0'.repeat(point - digits.length) };
  return /^0*$/.test(digits.slice(point)) ? { sign, digits: digits.slice(0, point) } : null;
}

function integerFromText(raw: string): Coerced<number> {
  let text = raw.trim();
  // "2.0", "2.", "2.000" hold an integer (pydantic strips a zero fraction); "2.5" does not.
  const dot = text.indexOf('.');
  if (dot >= 0 && /^0*$/.test(text.slice(dot + 1))) text = text.slice(0, dot);
  if (!INTEGER_TEXT.test(text)) {
    // The seed's table: "a string holding an int or float", so a float text without fraction is an integer (D-72).
    if (!FLOAT_TEXT.test(text)) return fail('int_parsing', INT_PARSING);
    const integer = integerDigitsOfFloatText(text);
    if (!integer) return fail('int_parsing', INT_PARSING);
    text = integer.sign + integer.digits;
  }
  const value = Number(text.replace(/_/g, ''));
  if (!Number.isSafeInteger(value)) return fail('int_parsing_size', INT_SIZE);
  return ok(value === 0 ? 0 : value);
}

function coerceInteger(raw: unknown): Coerced<number> {
  if (typeof raw === 'number') return integerFromNumber(raw);
  if (typeof raw === 'string') return integerFromText(raw);
  return fail('int_type', 'Input should be a valid integer');
}

function coerceFloat(raw: unknown): Coerced<number> {
  if (typeof raw === 'number') {
    return Number.isFinite(raw) ? ok(raw) : fail('finite_number', 'Input should be a finite number');
  }
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (!FLOAT_TEXT.test(text)) return fail('float_parsing', 'Input should be a valid number, unable to parse string as a number');
    const value = Number(text.replace(/_/g, ''));
    return Number.isFinite(value) ? ok(value) : fail('finite_number', 'Input should be a finite number');
  }
  return fail('float_type', 'Input should be a valid number');
}

// ---------------------------------------------------------------------------------------------------------------
// booleans: the strings of the seed's table in any ASCII case, as pydantic compares them (D-72), plus JSON booleans
// and 1/0. No trimming, as pydantic.

const TRUE_TEXT = new Set(['true', 't', 'on', 'yes', 'y', '1']);
const FALSE_TEXT = new Set(['false', 'f', 'off', 'no', 'n', '0']);
/** Lower case of ASCII letters only (toLowerCase would also fold `İ` and fullwidth letters). */
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

function coerceBoolean(raw: unknown): Coerced<boolean> {
  if (typeof raw === 'boolean') return ok(raw);
  if (typeof raw === 'number') {
    if (raw === 1) return ok(true);
    if (raw === 0) return ok(false);
    return fail('bool_parsing', 'Input should be a valid boolean, unable to interpret input');
  }
  if (typeof raw === 'string') {
    const text = raw.length <= 5 ? asciiLower(raw) : '';
    if (TRUE_TEXT.has(text)) return ok(true);
    if (FALSE_TEXT.has(text)) return ok(false);
    return fail('bool_parsing', 'Input should be a valid boolean, unable to interpret input');
  }
  return fail('bool_type', 'Input should be a valid boolean');
}

// ---------------------------------------------------------------------------------------------------------------
// dates and times

const DATE_PART = '([0-9]{4})-([0-9]{2})-([0-9]{2})';
// HH:MM[:SS[.ffffff]] then an optional zone: Z, or ±HH[:]MM.
const TIME_PART = '([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\\.([0-9]+))?)?(?:([Zz])|([+-])([0-9]{2}):?([0-9]{2}))?';
const DATE_RE = new RegExp(`^${DATE_PART}$`);
// Separator T (or t, space or _, as pydantic's parser accepts).
const DATETIME_RE = new RegExp(`^${DATE_PART}[Tt _]${TIME_PART}$`);
const TIME_RE = new RegExp(`^${TIME_PART}$`);
const NUMERIC_TEXT = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysInMonth = (year: number, month: number) =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

interface ClockParts {
  hour: number;
  minute: number;
  second: number;
  micros: number;
  /** Zone offset in minutes east of UTC, or null when none was given. */
  offset: number | null;
  zulu: boolean;
}

/** Read the groups of TIME_PART starting at `at`; a problem string when a value is out of range. */
function readClock(groups: string[], at: number): ClockParts | string {
  const [hh, mm, ss, fraction, zulu, sign, oh, om] = groups.slice(at, at + 8);
  const hour = Number(hh);
  const minute = Number(mm);
  const second = ss === undefined ? 0 : Number(ss);
  if (hour > 23) return 'hour value is outside expected range of 0-23';
  if (minute > 59) return 'minute value is outside expected range of 0-59';
  if (second > 59) return 'second value is outside expected range of 0-59';
  if (fraction !== undefined && fraction.length > 6) return 'second fraction value is more than 6 digits long';
  if (fraction !== undefined && fraction.length === 0) return 'second fraction value is empty';
  const micros = fraction === undefined ? 0 : Number(fraction.padEnd(6, '0'));
  let offset: number | null = null;
  if (sign !== undefined) {
    const offsetHours = Number(oh);
    const offsetMinutes = Number(om);
    if (offsetHours > 23 || offsetMinutes > 59) return 'timezone offset must be less than 24 hours';
    offset = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  } else if (zulu !== undefined) {
    offset = 0;
  }
  return { hour, minute, second, micros, offset, zulu: zulu !== undefined };
}

function checkDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12) return 'month value is outside expected range of 1-12';
  if (day < 1 || day > daysInMonth(year, month)) return 'day value is outside expected range';
  return null;
}

/** Unix time in seconds; as pydantic, a magnitude above 2e10 is read as milliseconds. */
function unixToMillis(seconds: number): number {
  return Math.abs(seconds) > 2e10 ? seconds : seconds * 1000;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (any year, unlike Date.UTC which maps 0-99 to 19xx). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

const MAX_MILLIS = 8.64e15; // the range of a JavaScript Date

/** `YYYY-MM-DDTHH:MM:SS.sssZ` by arithmetic: Date#toISOString costs microseconds on every call here. */
export function isoFromMillis(millis: number): string {
  const days = Math.floor(millis / 86_400_000);
  let rest = millis - days * 86_400_000;
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const milli = rest - second * 1000;
  // civil-from-days (H. Hinnant), the inverse of daysFromCivil
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) return new Date(millis).toISOString(); // extended years: rare, let Date spell them
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}.${pad(milli, 3)}Z`;
}

/**
 * An instant in whole milliseconds (rounded down), and whether the input lay strictly between two milliseconds (a
 * sub-millisecond bound, compared exactly by the grammar: D-71).
 */
type Millis = { ok: true; value: number; subMillisecond?: boolean } | { ok: false; problem: string; code: string };

function inRange(millis: number, what: string, code: string): Millis {
  const whole = Math.trunc(millis);
  if (!(Math.abs(whole) <= MAX_MILLIS)) return fail(code, `Input should be a valid ${what}, value is outside the supported range`);
  return ok(whole === 0 ? 0 : whole);
}

/** Milliseconds and sub-millisecond flag, from a whole number of milliseconds and the microseconds beyond it. */
function withMicros(millis: Millis, micros: number): Millis {
  return millis.ok && micros !== 0 ? { ...millis, subMillisecond: true } : millis;
}

/** A Unix time (seconds, or milliseconds above 2e10) to microsecond precision, rounded down to the millisecond. */
function unixInstant(seconds: number): Millis {
  const millis = unixToMillis(seconds);
  const micros = Math.round(millis * 1000);
  if (!Number.isSafeInteger(micros)) return inRange(Math.floor(millis), 'datetime', 'datetime_parsing');
  const whole = Math.floor(micros / 1000);
  return withMicros(inRange(whole, 'datetime', 'datetime_parsing'), micros - whole * 1000);
}

/** The instant a datetime input stands for, in milliseconds since the epoch (finer digits rounded down, and flagged). */
export function datetimeMillis(raw: unknown): Millis {
  const problem = (reason: string) => fail('datetime_parsing', `Input should be a valid datetime, ${reason}`);
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return fail('finite_number', 'Input should be a finite number');
    return unixInstant(raw);
  }
  if (typeof raw !== 'string') return fail('datetime_type', 'Input should be a valid datetime');
  if (NUMERIC_TEXT.test(raw)) return unixInstant(Number(raw));
  const dateOnly = DATE_RE.exec(raw);
  const groups = dateOnly ?? DATETIME_RE.exec(raw);
  if (!groups) return problem(raw.length < 10 ? 'input is too short' : 'invalid datetime format, expected YYYY-MM-DD[T]HH:MM[:SS[.ffffff]][Z or [±]HH[:]MM]');
  const [year, month, day] = [Number(groups[1]), Number(groups[2]), Number(groups[3])];
  const badDate = checkDate(year, month, day);
  if (badDate) return problem(badDate);
  const midnight = daysFromCivil(year, month, day) * 86_400_000;
  if (dateOnly) return ok(midnight);
  const clock = readClock(groups as unknown as string[], 4);
  if (typeof clock === 'string') return problem(clock);
  const time = clock.hour * 3_600_000 + clock.minute * 60_000 + clock.second * 1000 + Math.floor(clock.micros / 1000);
  return withMicros(inRange(midnight + time - (clock.offset ?? 0) * 60_000, 'datetime', 'datetime_parsing'), clock.micros % 1000);
}

function coerceDatetime(raw: unknown): Coerced<string> {
  const millis = datetimeMillis(raw);
  return millis.ok ? ok(isoFromMillis(millis.value)) : { ok: false, problem: millis.problem, code: millis.code };
}

function coerceDate(raw: unknown): Coerced<string> {
  const problem = (reason: string) => fail('date_parsing', `Input should be a valid date in the format YYYY-MM-DD, ${reason}`);
  const fromMillis = (raw: number): Coerced<string> => {
    const millis = inRange(raw, 'date', 'date_parsing');
    if (!millis.ok) return millis;
    if (millis.value !== raw || millis.value % 86_400_000 !== 0) {
      return fail('date_from_datetime_inexact', 'Datetimes provided to dates should have zero time - e.g. be exact dates');
    }
    const iso = isoFromMillis(millis.value);
    return ok(iso.slice(0, iso.indexOf('T')));
  };
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return fail('finite_number', 'Input should be a finite number');
    return fromMillis(unixToMillis(raw));
  }
  if (typeof raw !== 'string') return fail('date_type', 'Input should be a valid date');
  if (NUMERIC_TEXT.test(raw)) return fromMillis(unixToMillis(Number(raw)));
  const groups = DATE_RE.exec(raw);
  if (!groups) return problem(raw.length < 10 ? 'input is too short' : 'invalid date format');
  const badDate = checkDate(Number(groups[1]), Number(groups[2]), Number(groups[3]));
  return badDate ? problem(badDate) : ok(raw);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

function coerceTime(raw: unknown): Coerced<string> {
  if (typeof raw !== 'string') return fail('time_type', 'Input should be a valid time');
  const groups = TIME_RE.exec(raw);
  if (!groups) return fail('time_parsing', `Input should be in a valid time format, ${raw.length < 5 ? 'input is too short' : 'expected HH:MM[:SS[.ffffff]][Z or [±]HH[:]MM]'}`);
  const clock = readClock(groups as unknown as string[], 1);
  if (typeof clock === 'string') return fail('time_parsing', `Input should be in a valid time format, ${clock}`);
  // Normal form: HH:MM:SS[.ffffff] then Z or ±HH:MM when a zone was given.
  let text = `${pad(clock.hour)}:${pad(clock.minute)}:${pad(clock.second)}`;
  if (clock.micros) text += `.${pad(clock.micros, 6)}`;
  if (clock.zulu) text += 'Z';
  else if (clock.offset !== null) {
    const abs = Math.abs(clock.offset);
    text += `${clock.offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  }
  return ok(text);
}

// [-][[DD]D,]HH:MM:SS[.ffffff] (days as `1d,`, `1D`, `1 day, `, `2 days, `)
const CLOCK_DURATION = /^([+-])?(?:([0-9]+)\s*(?:[dD]|days?)\s*,?\s*)?([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,6}))?$/;
// [±]P[nY][nM][nW][nD][T[nH][nM][nS]] with Y = 365 days and M = 30 days, as pydantic's parser.
const ISO_DURATION = /^([+-])?P(?:([0-9]+(?:\.[0-9]+)?)Y)?(?:([0-9]+(?:\.[0-9]+)?)M)?(?:([0-9]+(?:\.[0-9]+)?)W)?(?:([0-9]+(?:\.[0-9]+)?)D)?(?:T(?:([0-9]+(?:\.[0-9]+)?)H)?(?:([0-9]+(?:\.[0-9]+)?)M)?(?:([0-9]+(?:\.[0-9]+)?)S)?)?$/i;

/** A timedelta as a number of seconds (microsecond precision). */
function coerceTimedelta(raw: unknown): Coerced<number> {
  const problem = (reason: string) => fail('time_delta_parsing', `Input should be a valid timedelta, ${reason}`);
  const round = (seconds: number) => Math.round(seconds * 1e6) / 1e6 || 0;
  if (typeof raw === 'number') {
    return Number.isFinite(raw) ? ok(raw) : fail('finite_number', 'Input should be a finite number');
  }
  if (typeof raw !== 'string') return fail('time_delta_type', 'Input should be a valid timedelta');
  const text = raw.trim();
  if (NUMERIC_TEXT.test(text)) return ok(Number(text));
  const clock = CLOCK_DURATION.exec(text);
  if (clock) {
    const [, sign, days, hh, mm, ss, fraction] = clock;
    if (Number(mm) > 59) return problem('minute value is outside expected range of 0-59');
    if (Number(ss) > 59) return problem('second value is outside expected range of 0-59');
    const seconds = Number(days ?? 0) * 86400 + Number(hh) * 3600 + Number(mm) * 60 + Number(ss) + Number(`0.${fraction ?? '0'}`);
    return ok(round(sign === '-' ? -seconds : seconds));
  }
  const iso = ISO_DURATION.exec(text);
  if (iso && !/T$/i.test(text) && !/^[+-]?P$/i.test(text)) {
    const [, sign, y, mo, w, d, h, mi, s] = iso;
    const n = (part: string | undefined) => Number(part ?? 0);
    const seconds = n(y) * 365 * 86400 + n(mo) * 30 * 86400 + n(w) * 7 * 86400 + n(d) * 86400 + n(h) * 3600 + n(mi) * 60 + n(s);
    return ok(round(sign === '-' ? -seconds : seconds));
  }
  return problem(text.length === 0 ? 'input is too short' : 'expected [-][[DD]D,]HH:MM:SS[.ffffff] or [±]P[DD]DT[HH]H[MM]M[SS]S');
}

// ---------------------------------------------------------------------------------------------------------------

function coerceString(raw: unknown): Coerced<string> {
  return typeof raw === 'string' ? ok(raw) : fail('string_type', 'Input should be a valid string');
}

function coerceArray(raw: unknown, source: CoercionSource, itemType: CoercionType): Coerced<CoercedValue[]> {
  let items: unknown[];
  if (Array.isArray(raw)) items = raw;
  else if (typeof raw === 'string') {
    if (raw === '') items = [];
    else {
      const split = splitList(raw);
      if (!split.ok) return fail('list_parsing', `Input should be a valid list, ${split.problem}`);
      // D-81: in a body, "a@x, b@y" is how people write a list: whitespace around each element is dropped.
      items = source === 'body' ? split.values.map((v) => v.trim()) : split.values;
    }
  } else return fail('list_type', 'Input should be a valid list');
  const values: CoercedValue[] = [];
  for (const [index, item] of items.entries()) {
    const coerced = coerceValue(itemType, item, source);
    if (!coerced.ok) return { ok: false, problem: coerced.problem, code: coerced.code, at: [index, ...(coerced.at ?? [])] };
    values.push(coerced.value);
  }
  return ok(values);
}

/**
 * Convert `raw` to `type` as the service does (seed section 1): `{ ok: true, value }` or a pydantic-like problem and
 * error code. Datetimes become UTC ISO strings with milliseconds; dates `YYYY-MM-DD`; times `HH:MM:SS[.ffffff][zone]`;
 * timedeltas a number of seconds; arrays an array of `itemType` values (default string).
 */
export function coerceValue(type: CoercionType, raw: unknown, source: CoercionSource, itemType: CoercionType = 'string'): Coerced {
  // The rules are the same for both sources: a query value is a string, read as a string in a body would be.
  switch (type) {
    case 'string': return coerceString(raw);
    case 'integer': return coerceInteger(raw);
    case 'float': return coerceFloat(raw);
    case 'boolean': return coerceBoolean(raw);
    case 'datetime': return coerceDatetime(raw);
    case 'date': return coerceDate(raw);
    case 'time': return coerceTime(raw);
    case 'timedelta': return coerceTimedelta(raw);
    case 'array': return coerceArray(raw, source, itemType);
    default: throw new Error(`Unknown coercion type ${String(type)}`);
  }
}
