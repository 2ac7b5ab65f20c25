// The column engine's footprint (footprint.ts, bench/sandbox-memory.ts): each structure counted once, in the part
// that owns it, and the engine's parts read from the description.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/sandbox/app.ts';
import { resourceColumns } from '../src/sandbox/store/columns.ts';
import { openCaseMemory } from '../src/sandbox/store/memory/engine.ts';
import { sqliteCaseRows } from '../src/sandbox/store/sqlite-case-rows.ts';
import { Footprint } from '../src/sandbox/store/memory/footprint.ts';
import type { FootprintPart } from '../src/sandbox/store/memory/footprint.ts';
import { spec } from './helpers/sandbox.ts';

const partOf = (parts: FootprintPart[], name: string) => parts.find((p) => p.part === name);

describe('Footprint', () => {
  it('counts a buffer once, in the first part that reaches it, however many views share it', () => {
    const f = new Footprint();
    const buffer = new ArrayBuffer(4096);
    f.add('owner', { a: new Uint8Array(buffer), b: new Uint32Array(buffer, 16, 4) });
    f.add('reader', [new Float64Array(buffer), new Uint8Array(100), buffer]);
    f.add('raw', { buffer: new ArrayBuffer(64) });
    const [owner, reader, raw] = f.parts();
    expect(owner).toMatchObject({ part: 'owner', buffers: 4096 });
    expect(reader).toMatchObject({ part: 'reader', buffers: 100 });
    expect(raw).toMatchObject({ part: 'raw', buffers: 64 });
  });

  it("estimates strings by V8's layout (one-byte or two-byte), each distinct string once", () => {
    const f = new Footprint();
    f.add('one-byte', ['CS0000001', 'CS0000001', 'Zürich']);
    f.add('two-byte', ['𝔘nicode']);
    const [oneByte, twoByte] = f.parts();
    // 'CS0000001': 16 + 9 bytes -> 32; 'Zürich' (Latin-1): 16 + 6 -> 24; the array: 24 + 16 + 3 x 8
    expect(oneByte.heap).toBe(32 + 24 + 64);
    // '𝔘nicode': 8 UTF-16 units, 16 + 16 = 32; its array 24 + 16 + 8
    expect(twoByte.heap).toBe(32 + 48);
  });

  it('walks cycles and shared objects once', () => {
    const f = new Footprint();
    const node: Record<string, unknown> = { bytes: new Uint8Array(64) };
    node.self = node;
    const map = new Map<unknown, unknown>([[node, node]]);
    f.add('first', map);
    f.add('second', node);
    expect(f.parts().map((p) => p.buffers)).toEqual([64, 0]);
  });
});

describe("the engine's footprint", () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'care-footprint-'));
    file = join(dir, 'sandbox.db');
    const sandbox = await createSandbox({ db: file, seedCases: 400, deliver: false });
    await sandbox.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has a permutation per sortable field and a column per filterable field the description declares', () => {
    const db = new Database(file, { readonly: true });
    const memory = openCaseMemory(spec, sqliteCaseRows(db, resourceColumns(spec, 'Case')), { load: 'sync' });
    try {
      const parts = memory.footprint();
      const list = spec.operation('listCases').list!;
      for (const field of list.sortFields) expect(partOf(parts, `permutation ${field}`)?.buffers, field).toBeGreaterThan(0);
      for (const field of Object.keys(list.filterFields)) expect(partOf(parts, `column ${field}`)?.buffers, field).toBeGreaterThan(0);
      // over the same slots, a datetime column (8 bytes a slot) is twice a permutation (4 bytes a slot)
      expect(partOf(parts, 'column createdAt')!.buffers).toBe(2 * partOf(parts, 'permutation createdAt')!.buffers);
      // every id is held once as a string: at least 16 bytes each of the ids the database has
      const ids = db.prepare(`SELECT count(*) FROM cases WHERE env = 'sandbox'`).pluck().get() as number;
      expect(partOf(parts, 'dictionary id')!.heap).toBeGreaterThanOrEqual(16 * ids);
    } finally {
      memory.close();
      db.close();
    }
  });
});
