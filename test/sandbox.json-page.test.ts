// Pages of cases from the column engine are sent as JSON text (D-84), written from the engine's columns, or by SQLite
// (recordJsonSql) where a stored datetime is not in the form the columns write back: either way that text must be the
// records the storage holds, field for field, awkward strings included, in page order.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseListQuery } from '../src/grammar/parse.ts';
import { fromSql, recordJsonSql, resourceColumns, toSql } from '../src/sandbox/store/columns.ts';
import { openCaseMemory } from '../src/sandbox/store/memory/engine.ts';
import type { EngineAnswer } from '../src/sandbox/store/memory/engine.ts';
import { sqliteCaseRows } from '../src/sandbox/store/sqlite-case-rows.ts';
import { isoOf, writesBack } from '../src/sandbox/store/memory/record-json.ts';
import { utf8 } from '../src/sandbox/utf8.ts';
import type { Column } from '../src/sandbox/store/columns.ts';
import { openSqliteStorage } from '../src/sandbox/store/sqlite.ts';
import type { Storage } from '../src/sandbox/store/types.ts';
import { spec } from './helpers/sandbox.ts';

const list = spec.operation('listCases').list!;
// NUL, quotes, backslash, control characters, line separators, a pair, a lone surrogate, a combining mark, DEL
const AWKWARD = ['', 'nul\u0000byte', 'quote " and \\ back', '\u0001\u001f\t\n\r', 'line\u2028para\u2029', '😀', 'lone \uD83D', 'e\u0301', '\u007f', 'Zürich'];
const dir = mkdtempSync(join(tmpdir(), 'care-json-page-'));
const file = join(dir, 'cases.db');
let engine: Storage;
let sql: Storage;

beforeAll(() => {
  const writer = openSqliteStorage(spec, { file, caseLists: 'sql' });
  for (let i = 0; i < 120; i++) {
    const text = AWKWARD[i % AWKWARD.length];
    const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
    writer.insert('cases', 'sandbox', {
      id: `CS${String(1000 + i).padStart(7, '0')}`,
      contract: i % 3 === 0 ? null : 'CT0000101',
      shortDescription: `${text} ${i}`,
      description: i % 4 === 0 ? null : text,
      status: [1, 3, 6][i % 3],
      priority: 1 + (i % 4),
      contact: i % 5 === 0 ? null : 'ana@customer.example',
      watchList: i % 2 === 0 ? [] : ['ana@customer.example', text],
      incident: i % 2 === 0 ? null : text,
      createdAt: at,
      created: at,
      updatedAt: at,
    }, { customerOrg: 'ORG1' });
  }
  // another environment whose datetimes include texts of another form than the columns write back
  for (let i = 0; i < 30; i++) {
    const at = i % 7 === 0 ? '2026-01-01T00:00:00Z' : new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    writer.insert('cases', 'production', { id: `CS${String(2000 + i).padStart(7, '0')}`, contract: 'CT0000101', shortDescription: AWKWARD[i % AWKWARD.length], description: null, status: 1, priority: 2, contact: null, watchList: [], incident: null, createdAt: at, created: at, updatedAt: at }, { customerOrg: 'ORG1' });
  }
  writer.close();
  engine = openSqliteStorage(spec, { file, caseLists: 'memory-only', caseMemoryLoad: 'sync' });
  sql = openSqliteStorage(spec, { file, caseLists: 'sql' });
});

afterAll(() => {
  engine?.close();
  sql?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a page of cases as JSON text (D-84)', () => {
  const scope = { by: 'customerOrg' as const, values: ['ORG1'] };

  it.each(['page[size]=200', 'sort=-priority,id&page[size]=50&page[number]=2', 'filter[description][null]&sort=shortDescription'])('%s: the text is the stored records, in the SQL path\'s order', (q) => {
    const query = parseListQuery(q, list, spec.operators).query;
    const fromEngine = engine.list('cases', 'sandbox', scope, query);
    expect(fromEngine.json, 'the engine path writes JSON text').toBeDefined();
    const sent = JSON.parse(fromEngine.json!.text) as Record<string, any>[];
    const expected = sql.list('cases', 'sandbox', scope, query);
    expect(sent.length).toBeGreaterThan(0);
    expect(fromEngine.json!.count).toBe(sent.length);
    expect(fromEngine.totalCount).toBe(expected.totalCount);
    expect(sent).toEqual(expected.items);
    // byte for byte what JSON.stringify writes of those records: the same escapes, the same UTF-8
    expect(fromEngine.json!.bytes().equals(Buffer.from(JSON.stringify(expected.items)))).toBe(true);
    // field order as well: the same keys in the same order as the record read by id
    for (const record of sent) expect(Object.keys(record)).toEqual(Object.keys(engine.get('cases', 'sandbox', record.id)!.record));
  });

  it.each(['sandbox', 'production'] as const)('in environment %s, the text is the stored records (written from the columns, or by SQLite)', (env) => {
    const query = parseListQuery('sort=-createdAt&page[size]=200', list, spec.operators).query;
    const json = engine.list('cases', env, scope, query).json!;
    const sent = JSON.parse(json.text);
    expect(sent.length).toBeGreaterThan(20);
    const expected = sql.list('cases', env, scope, query).items;
    expect(sent).toEqual(expected);
    expect(json.bytes().equals(Buffer.from(JSON.stringify(expected)))).toBe(true);
  });

  it('the columns write the records where every datetime writes back as stored, and leave them to SQLite where one does not', () => {
    const db = new Database(file, { readonly: true });
    try {
      const memory = openCaseMemory(spec, sqliteCaseRows(db, resourceColumns(spec, 'Case')), { load: 'sync' });
      const query = parseListQuery('page[size]=5', list, spec.operators).query;
      expect((memory.list('sandbox', scope, query) as EngineAnswer).json).toBeDefined();
      const other = memory.list('production', scope, query) as EngineAnswer;
      expect(other.json).toBeUndefined();
      expect(other.rowids).toHaveLength(5);
      memory.close();
    } finally {
      db.close();
    }
  });

  it('a page served again from the page cache is the same text, and its records parse on demand', () => {
    const query = parseListQuery('page[size]=10', list, spec.operators).query;
    const first = engine.list('cases', 'sandbox', scope, query);
    const again = engine.list('cases', 'sandbox', scope, query);
    expect(again.json).toBe(first.json);
    expect(again.items).toEqual(JSON.parse(first.json!.text));
  });
});

describe('recordJsonSql', () => {
  it('writes null, true, false, integers, text and JSON columns as fromSql reads them', () => {
    const db = new Database(':memory:');
    const columns: Column[] = [
      { field: 'flag', column: 'flag', kind: 'boolean' },
      { field: 'n', column: 'n', kind: 'integer' },
      { field: "it's", column: 'quoted', kind: 'text' },
      { field: 'list', column: 'list', kind: 'json' },
    ];
    db.exec('CREATE TABLE t (flag INTEGER, n INTEGER, quoted TEXT, list TEXT)');
    const rows = [
      [true, 9007199254740991, 'nul\u0000 "x"', ['a\u0000', { k: null }]],
      [false, -1, '', []],
      [null, null, null, null],
    ];
    const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?)');
    for (const row of rows) insert.run(...row.map((v, i) => toSql(columns[i].kind, v)));
    const written = db.prepare(`SELECT ${recordJsonSql(columns)} FROM t ORDER BY rowid`).pluck(true).all() as string[];
    const read = db.prepare('SELECT flag, n, quoted, list FROM t ORDER BY rowid').raw(true).all() as unknown[][];
    expect(written.map((text) => JSON.parse(text))).toEqual(read.map((row) => Object.fromEntries(columns.map((c, i) => [c.field, fromSql(c.kind, row[i])]))));
    expect(JSON.parse(written[0])).toEqual({ flag: true, n: 9007199254740991, "it's": 'nul\u0000 "x"', list: ['a\u0000', { k: null }] });
    db.close();
  });
});

describe('utf8: the bytes of a response body', () => {
  it('are Buffer.from\'s bytes, small and large, awkward strings and lone surrogates included, and of their exact length', () => {
    for (const text of [...AWKWARD, AWKWARD.join('|').repeat(200), 'a'.repeat(5000) + '\uDC00', '😀'.repeat(3000), 'x'.repeat(4095), 'ü'.repeat(4096)]) {
      const bytes = utf8(text);
      expect(bytes.equals(Buffer.from(text)), JSON.stringify(text.slice(0, 40))).toBe(true);
      // a large body has a buffer of its own, no larger than its bytes (a cached page keeps no slack)
      if (text.length >= 4096) expect(bytes.buffer.byteLength).toBe(bytes.length);
    }
    // the scratch buffer is reused: an earlier, longer body does not leak into a later, shorter one
    const long = utf8('é'.repeat(10_000));
    const short = utf8('z'.repeat(5000));
    expect(short.toString()).toBe('z'.repeat(5000));
    expect(long.toString()).toBe('é'.repeat(10_000));
  });
});

describe('datetimes written back from their instants', () => {
  it('isoOf is toISOString over years 0..9999, and a text writes back only when it is that form', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        const text = new Date(ms).toISOString();
        expect(isoOf(ms)).toBe(text);
        expect(writesBack(text, ms)).toBe(true);
      }),
      { numRuns: 5000, seed: 84 },
    );
    const noon = Date.UTC(2026, 0, 1, 12);
    for (const text of ['2026-01-01T12:00:00Z', '2026-01-01T12:00:00.000+00:00', '2026-01-01T13:00:00.000+01:00', '2026-01-01 12:00:00.000Z']) expect(writesBack(text, noon), text).toBe(false);
    expect(writesBack('+010000-01-01T00:00:00.000Z', Date.UTC(10000, 0, 1))).toBe(false);
  });
});
