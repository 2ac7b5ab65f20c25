// The page writer of the column engine (record-json.ts, D-84) against JSON.stringify, byte for byte: every path a
// value takes (null, an integer, an instant, a string of a few-valued column with its cached bytes, a string of a
// many-valued column written plain or through JSON.stringify, an array) on strings of any UTF-16 content.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Column } from '../src/sandbox/store/columns.ts';
import { codeOf, makeColumn } from '../src/sandbox/store/memory/columns.ts';
import type { DictColumn, MemoryColumn, NumberColumn } from '../src/sandbox/store/memory/columns.ts';
import { isoOf, pageWriter } from '../src/sandbox/store/memory/record-json.ts';

const AWKWARD = ['', 'plain', 'nul\u0000byte', 'quote " and \\ back', '\u0001\u001f\t\n\r', 'line\u2028para\u2029', '😀', 'lone \uD83D', '\uDC00 tail', 'e\u0301', '\u007f', 'Zürich'];
const text = fc.oneof(fc.constantFrom(...AWKWARD), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string());
const instant = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 });

interface Row {
  many: string | null;
  few: string | null;
  n: number | null;
  at: number | null;
  /** A second instant, often the same as `at` (as a case's `created` is its `createdAt`, D-03). */
  at2: number | null;
  list: string[] | null;
}

const SQL_COLUMNS: Column[] = [
  { field: 'many', column: 'many', kind: 'text' },
  { field: 'few', column: 'few', kind: 'text' },
  { field: 'n', column: 'n', kind: 'integer' },
  { field: 'at', column: 'at', kind: 'text' },
  { field: 'at2', column: 'at2', kind: 'text' },
  { field: 'list', column: 'list', kind: 'json' },
];

/** The engine's columns of the rows: `many` keeps no lookup (as a column of nearly distinct values), `few` keeps one. */
function columnsOf(rows: Row[]): Map<string, MemoryColumn> {
  const many = makeColumn('many', 'string', rows.length) as DictColumn;
  many.index = null;
  const few = makeColumn('few', 'string', rows.length) as DictColumn;
  const n = makeColumn('n', 'integer', rows.length) as NumberColumn;
  const at = makeColumn('at', 'datetime', rows.length) as NumberColumn;
  const at2 = makeColumn('at2', 'datetime', rows.length) as NumberColumn;
  const list = makeColumn('list', 'stringArray', rows.length) as DictColumn;
  rows.forEach((row, s) => {
    many.codes[s] = codeOf(many, row.many);
    few.codes[s] = codeOf(few, row.few);
    n.values[s] = row.n ?? NaN;
    at.values[s] = row.at ?? NaN;
    at2.values[s] = row.at2 ?? NaN;
    list.codes[s] = codeOf(list, row.list);
  });
  return new Map<string, MemoryColumn>([many, few, n, at, at2, list].map((c) => [c.field, c]));
}

const iso = (x: number | null) => (x === null ? null : isoOf(x));
const recordOf = (row: Row) => ({ many: row.many, few: row.few, n: row.n, at: iso(row.at), at2: iso(row.at2), list: row.list });

describe('pageWriter: the records of a page as UTF-8 bytes', () => {
  it('writes what JSON.stringify writes of the records, byte for byte, in the order of the slots given', () => {
    const row = fc
      .record({
        many: fc.option(text),
        few: fc.option(fc.constantFrom(...AWKWARD)),
        n: fc.option(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
        at: fc.option(instant),
        at2: fc.option(instant),
        twin: fc.boolean(),
        list: fc.option(fc.array(text, { maxLength: 3 })),
      })
      .map(({ twin, ...r }): Row => ({ ...r, at2: twin ? r.at : r.at2 }));
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { maxLength: 60 }), (rows, picks) => {
        const columns = columnsOf(rows);
        const write = pageWriter(SQL_COLUMNS.map((c) => c.field), (field) => columns.get(field))!;
        const slots = picks.map((p) => p % rows.length);
        const expected = Buffer.from(JSON.stringify(slots.map((s) => recordOf(rows[s]))));
        expect(write(slots).toString('latin1')).toBe(expected.toString('latin1'));
      }),
      { numRuns: 300 },
    );
  });

  it('writes negative and unsafe integers as JSON does, and a page larger than its first buffer', () => {
    const rows: Row[] = [-1, -0, 2 ** 53, 1.5, 1e21, 0, 9].map((n, i) => ({ many: 'x'.repeat(20_000 + i), few: 'plain', n, at: 0, at2: 0, list: [] }));
    rows.push({ many: 'ü'.repeat(300_000), few: null, n: 1, at: null, at2: 1, list: null }); // more than twice the buffer at once
    const columns = columnsOf(rows);
    const write = pageWriter(SQL_COLUMNS.map((c) => c.field), (field) => columns.get(field))!;
    const slots = [...rows.keys(), ...rows.keys()];
    expect(write(slots).equals(Buffer.from(JSON.stringify(slots.map((s) => recordOf(rows[s])))))).toBe(true);
    expect(write([]).toString()).toBe('[]');
  });

  it('writes a few-valued column\'s value anew when its code holds another value than the one its bytes were made of', () => {
    const rows: Row[] = [{ many: null, few: 'first', n: null, at: null, at2: null, list: null }];
    const columns = columnsOf(rows);
    const write = pageWriter(SQL_COLUMNS.map((c) => c.field), (field) => columns.get(field))!;
    expect(JSON.parse(write([0]).toString())[0].few).toBe('first');
    (columns.get('few') as DictColumn).dict[1] = 'second';
    expect(JSON.parse(write([0]).toString())[0].few).toBe('second');
  });

  it('writes an instant again on the next page as on the first, though the one before it was the same', () => {
    // the writer copies the text of an instant equal to the one it wrote just before; a new page starts afresh (the
    // second record's long text overwrites where the first page wrote its last instant)
    const rows: Row[] = [
      { many: 'a', few: null, n: null, at: 1_700_000_000_000, at2: 1_700_000_000_001, list: null },
      { many: 'b'.repeat(200), few: null, n: null, at: 1_700_000_000_001, at2: 1_700_000_000_001, list: null },
    ];
    const columns = columnsOf(rows);
    const write = pageWriter(SQL_COLUMNS.map((c) => c.field), (field) => columns.get(field))!;
    for (const slots of [[0], [1], [0, 1], [1, 0]]) expect(write(slots).toString()).toBe(JSON.stringify(slots.map((s) => recordOf(rows[s]))));
  });

  it('is undefined when a field has no column in the engine', () => {
    const columns = columnsOf([{ many: null, few: null, n: null, at: null, at2: null, list: null }]);
    expect(pageWriter([...SQL_COLUMNS, { field: 'other', column: 'other', kind: 'text' }].map((c) => c.field), (field) => columns.get(field))).toBeUndefined();
  });
});
