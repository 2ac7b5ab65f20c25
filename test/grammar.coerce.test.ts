// Every row of the seed's input coercion table (section 1), in query strings and in JSON bodies, with pydantic v2's
// error types for what cannot be converted.
import { describe, expect, it } from 'vitest';
import { coerceValue } from '../src/grammar/index.ts';
import type { CoercionSource, CoercionType } from '../src/grammar/index.ts';

type Row = [input: unknown, expected: { value: unknown } | { code: string }];

function check(type: CoercionType, source: CoercionSource, rows: Row[], itemType?: CoercionType) {
  it.each(rows.map(([input, expected]) => [JSON.stringify(input) ?? String(input), input, expected] as const))(
    `${type} in ${source}: %s`,
    (_, input, expected) => {
      const result = coerceValue(type, input, source, itemType);
      if ('value' in expected) {
        expect(result).toEqual({ ok: true, value: expected.value });
      } else {
        expect(result).toMatchObject({ ok: false, code: expected.code });
        expect((result as { problem: string }).problem).toMatch(/^(Input should|Unable|Datetimes provided)/);
      }
    },
  );
}

const v = (value: unknown) => ({ value });
const e = (code: string) => ({ code });

describe('string: string', () => {
  check('string', 'query', [['printer', v('printer')], ['', v('')], ['10', v('10')], ['😀 ,\\[]', v('😀 ,\\[]')]]);
  check('string', 'body', [['printer', v('printer')], [10, e('string_type')], [true, e('string_type')], [null, e('string_type')], [['a'], e('string_type')]]);
});

describe('integer: number (int or float), or a string holding an int or float', () => {
  const fromText: Row[] = [
    ['10', v(10)], ['-3', v(-3)], ['+7', v(7)], ['0', v(0)], ['-0', v(0)], ['2.0', v(2)], ['2.', v(2)], ['2.000', v(2)],
    [' 42 ', v(42)], ['1_000', v(1000)], ['9007199254740991', v(9007199254740991)],
    ['2.5', e('int_parsing')], ['abc', e('int_parsing')], ['', e('int_parsing')],
    ['0x10', e('int_parsing')], ['1__0', e('int_parsing')], ['_1', e('int_parsing')], ['.0', e('int_parsing')],
    ['9007199254740993', e('int_parsing_size')],
    // a string holding a float with no fractional part is an integer (seed table, D-72), exactly: no rounding
    ['1e1', v(10)], ['1e3', v(1000)], ['1E+3', v(1000)], ['1.5e1', v(15)], ['-2.50e2', v(-250)], ['250e-2', e('int_parsing')],
    ['2500e-2', v(25)], ['0e999999', v(0)], ['.5e1', v(5)], ['1e-1', e('int_parsing')], ['1.00000000000000001e1', e('int_parsing')],
    ['1e16', e('int_parsing_size')], ['1e999999999', e('int_parsing_size')], ['9007199254740991e0', v(9007199254740991)],
  ];
  check('integer', 'query', fromText);
  check('integer', 'body', [
    ...fromText, [10, v(10)], [-3, v(-3)], [2.0, v(2)], [1e3, v(1000)], [2.5, e('int_from_float')], [-0.1, e('int_from_float')],
    [1e300, e('int_parsing_size')], [Infinity, e('finite_number')], [NaN, e('finite_number')],
    [true, e('int_type')], [null, e('int_type')], [[1], e('int_type')], [{}, e('int_type')],
  ]);
});

describe('float: number, or a string holding an int or float', () => {
  const fromText: Row[] = [
    ['1.5', v(1.5)], ['2', v(2)], ['-0.25', v(-0.25)], ['.5', v(0.5)], ['5.', v(5)], ['1e3', v(1000)], ['-1.5E-2', v(-0.015)],
    [' 3.5 ', v(3.5)], ['abc', e('float_parsing')], ['', e('float_parsing')], ['1.2.3', e('float_parsing')],
    ['inf', e('float_parsing')], ['NaN', e('float_parsing')], ['1e999', e('finite_number')],
  ];
  check('float', 'query', fromText);
  check('float', 'body', [...fromText, [1.5, v(1.5)], [2, v(2)], [true, e('float_type')], [null, e('float_type')], [Infinity, e('finite_number')]]);
});

describe('boolean: JSON boolean; 1 or 0; the true and false strings of the table, in any ASCII case (D-72)', () => {
  const trueText = ['True', 'true', 't', 'on', 'yes', 'y', '1', 'TRUE', 'Yes', 'YES', 'T', 'oN', 'Y'];
  const falseText = ['False', 'false', 'f', 'off', 'no', 'n', '0', 'FALSE', 'No', 'OFF', 'F', 'N', 'fAlSe'];
  const fromText: Row[] = [
    ...trueText.map((text): Row => [text, v(true)]),
    ...falseText.map((text): Row => [text, v(false)]),
    ['', e('bool_parsing')], ['2', e('bool_parsing')], ['maybe', e('bool_parsing')], [' true', e('bool_parsing')],
    ['ＴＲＵＥ', e('bool_parsing')], ['tru\u0130', e('bool_parsing')], ['yES ', e('bool_parsing')], // ASCII case only, no trimming
  ];
  check('boolean', 'query', fromText);
  check('boolean', 'body', [
    ...fromText, [true, v(true)], [false, v(false)], [1, v(true)], [0, v(false)],
    [2, e('bool_parsing')], [0.5, e('bool_parsing')], [null, e('bool_type')], [[], e('bool_type')],
  ]);
});

describe('datetime: ISO forms with or without zone (UTC), a date alone, Unix time', () => {
  const fromText: Row[] = [
    // YYYY-MM-DD[T]HH:MM[:SS[.ffffff]][Z]
    ['2026-01-02T03:04', v('2026-01-02T03:04:00.000Z')],
    ['2026-01-02T03:04:05', v('2026-01-02T03:04:05.000Z')],
    ['2026-01-02T03:04:05.678901', v('2026-01-02T03:04:05.678Z')],
    ['2026-01-02T03:04:05.6', v('2026-01-02T03:04:05.600Z')],
    ['2026-01-02T03:04:05Z', v('2026-01-02T03:04:05.000Z')],
    ['2026-01-02t03:04z', v('2026-01-02T03:04:00.000Z')],
    ['2026-01-02 03:04:05', v('2026-01-02T03:04:05.000Z')],
    // YYYY-MM-DD[T]HH:MM[:SS[.ffffff]][[±]HH[:]MM]
    ['2026-01-02T03:04:05+02:00', v('2026-01-02T01:04:05.000Z')],
    ['2026-01-02T03:04:05-0230', v('2026-01-02T05:34:05.000Z')],
    ['2026-01-02T03:04+0000', v('2026-01-02T03:04:00.000Z')],
    ['2026-01-01T00:30:00+01:00', v('2025-12-31T23:30:00.000Z')],
    // YYYY-MM-DD
    ['2026-01-02', v('2026-01-02T00:00:00.000Z')],
    ['2024-02-29', v('2024-02-29T00:00:00.000Z')],
    ['0050-06-15T12:00:00Z', v('0050-06-15T12:00:00.000Z')],
    ['0000-01-01', v('0000-01-01T00:00:00.000Z')],
    ['9999-12-31T23:59:59.999999Z', v('9999-12-31T23:59:59.999Z')],
    // Unix time as a numeric string (seconds; above 2e10 read as milliseconds, as pydantic)
    ['1767225600', v('2026-01-01T00:00:00.000Z')],
    ['1767225600.5', v('2026-01-01T00:00:00.500Z')],
    ['-1', v('1969-12-31T23:59:59.000Z')],
    ['1767225600000', v('2026-01-01T00:00:00.000Z')],
    ['2026-13-01', e('datetime_parsing')], ['2026-02-29', e('datetime_parsing')], ['2026-01-32T00:00', e('datetime_parsing')],
    ['2026-01-02T24:00', e('datetime_parsing')], ['2026-01-02T23:60', e('datetime_parsing')], ['2026-01-02T23:59:60', e('datetime_parsing')],
    ['2026-01-02T03:04:05.1234567', e('datetime_parsing')], ['2026-01-02T03:04:05.', e('datetime_parsing')],
    ['2026-01-02T03', e('datetime_parsing')], ['2026-01-02T03:04+2', e('datetime_parsing')], ['2026-01-02T03:04+24:00', e('datetime_parsing')],
    ['2026-1-2', e('datetime_parsing')], ['yesterday', e('datetime_parsing')], ['', e('datetime_parsing')],
    ['2026-01-02T03:04:05+02:00 ', e('datetime_parsing')],
  ];
  check('datetime', 'query', fromText);
  check('datetime', 'body', [
    ...fromText, [1767225600, v('2026-01-01T00:00:00.000Z')], [1767225600.25, v('2026-01-01T00:00:00.250Z')],
    [0, v('1970-01-01T00:00:00.000Z')], [1767225600000, v('2026-01-01T00:00:00.000Z')],
    [true, e('datetime_type')], [null, e('datetime_type')], [Infinity, e('finite_number')], [1e20, e('datetime_parsing')],
  ]);
});

describe('date: YYYY-MM-DD, or Unix time', () => {
  const fromText: Row[] = [
    ['2026-01-02', v('2026-01-02')], ['2024-02-29', v('2024-02-29')], ['1767225600', v('2026-01-01')],
    ['1767225601', e('date_from_datetime_inexact')], ['2026-02-29', e('date_parsing')], ['2026-00-10', e('date_parsing')],
    ['2026-01-02T00:00', e('date_parsing')], ['02/01/2026', e('date_parsing')], ['', e('date_parsing')],
  ];
  check('date', 'query', fromText);
  check('date', 'body', [...fromText, [1767225600, v('2026-01-01')], [1767225600.5, e('date_from_datetime_inexact')], [false, e('date_type')]]);
});

describe('time: HH:MM[:SS[.ffffff]] with an optional Z or [±]HH[:]MM zone', () => {
  const fromText: Row[] = [
    ['03:04', v('03:04:00')], ['03:04:05', v('03:04:05')], ['03:04:05.5', v('03:04:05.500000')], ['23:59:59.999999', v('23:59:59.999999')],
    ['03:04Z', v('03:04:00Z')], ['03:04:05+01:00', v('03:04:05+01:00')], ['03:04-0130', v('03:04:00-01:30')],
    ['24:00', e('time_parsing')], ['03:60', e('time_parsing')], ['03', e('time_parsing')], ['3:04', e('time_parsing')],
    ['03:04:05.1234567', e('time_parsing')], ['noon', e('time_parsing')],
  ];
  check('time', 'query', fromText);
  check('time', 'body', [...fromText, [3600, e('time_type')], [null, e('time_type')]]);
});

describe('timedelta: seconds; [-][[DD]D,]HH:MM:SS[.ffffff]; [±]P[DD]DT[HH]H[MM]M[SS]S', () => {
  const fromText: Row[] = [
    ['90', v(90)], ['-1.5', v(-1.5)],
    ['01:02:03', v(3723)], ['-01:02:03', v(-3723)], ['01:02:03.000004', v(3723.000004)],
    ['1d,01:02:03', v(90123)], ['1D01:02:03.5', v(90123.5)], ['2 days, 00:00:01', v(172801)], ['1 day, 00:00:00', v(86400)],
    ['P1DT2H3M4S', v(93784)], ['PT0.5S', v(0.5)], ['-P1D', v(-86400)], ['+PT1M', v(60)], ['P2W', v(1209600)], ['PT36H', v(129600)],
    ['', e('time_delta_parsing')], ['P', e('time_delta_parsing')], ['PT', e('time_delta_parsing')], ['P1DT', e('time_delta_parsing')],
    ['01:60:00', e('time_delta_parsing')], ['1 week', e('time_delta_parsing')], ['01:02', e('time_delta_parsing')],
  ];
  check('timedelta', 'query', fromText);
  check('timedelta', 'body', [...fromText, [90, v(90)], [0.25, v(0.25)], [true, e('time_delta_type')], [null, e('time_delta_type')], [Infinity, e('finite_number')]]);
});

describe('array: JSON array, or a comma-separated string', () => {
  const fromText: Row[] = [
    ['a,b', v(['a', 'b'])], ['a', v(['a'])], ['', v([])], ['a,,b', v(['a', '', 'b'])], ['a\\,b,c\\\\', v(['a,b', 'c\\'])],
    ['a\\', e('list_parsing')], ['a\\x', e('list_parsing')],
  ];
  check('array', 'query', fromText);
  check('array', 'body', [...fromText, [['a', 'b'], v(['a', 'b'])], [[], v([])], ['x', v(['x'])], [5, e('list_type')], [{ a: 1 }, e('list_type')], [[1], e('string_type')]]);
  check('array', 'query', [['1,2', v([1, 2])], ['1,2.0', v([1, 2])], ['1,x', e('int_parsing')]], 'integer');
  check('array', 'body', [[[1, '2'], v([1, 2])], [[true], e('int_type')]], 'integer');
  it('locates a bad element by its index, as pydantic does (body.watchList.1)', () => {
    expect(coerceValue('array', ['a', 5], 'body')).toMatchObject({ ok: false, code: 'string_type', at: [1] });
    expect(coerceValue('array', '1,2,x', 'query', 'integer')).toMatchObject({ ok: false, code: 'int_parsing', at: [2] });
  });
});

it('refuses an unknown type loudly (a programming error, not input)', () => {
  expect(() => coerceValue('money' as CoercionType, '1', 'query')).toThrow(/money/);
});
