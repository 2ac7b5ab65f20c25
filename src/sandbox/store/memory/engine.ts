// In-memory column engine of the case lists (decision D-84). The store stays the store of record; this holds, per
// environment, the filterable and sortable fields of every case (read from the bundle: the cases list operation's
// filter and sort fields) in columns, with one sorted permutation per sortable field, and answers a list with the
// exact totalCount and the ids of its page, and the page's records as JSON text written from its columns (they hold
// every field; else the store reads the records by rowid).
//
// It never disagrees with the database: a write to cases is applied after it is committed, by reading the row back
// (update.ts: writes inside a transaction are applied when the outermost one ends, committed or rolled back; until
// then lists are answered by SQL). It is filled at open (fill.ts): synchronously for a small table, else in slices
// between requests, with SQL answering until it is complete. It reads the cases through its port (source.ts), never
// the database itself. A table's structures are in table.ts; a list is planned and run from one in list.ts. Here the
// pieces are put together: the fill and the updates are values of their own, this module holds no state.
import type { ListQuery } from '../../../grammar/types.ts';
import type { CareSpec, ValueType } from '../../../spec/types.ts';
import type { Scope } from '../types.ts';
import { Fill, Tables } from './fill.ts';
import type { LoadMode } from './fill.ts';
import { Footprint } from './footprint.ts';
import type { FootprintPart } from './footprint.ts';
import { planList, runPlan } from './list.ts';
import type { ListPlan, PlanOutcome } from './plan.ts';
import { pageWriter } from './record-json.ts';
import type { CaseRowSource } from './source.ts';
import { LITTLE_ENDIAN } from './table.ts';
import type { FieldSource, Table } from './table.ts';
import { BLOCK } from './tuning.ts';
import { Updates } from './update.ts';

export interface CaseMemoryOptions {
  /** `auto` (default): synchronously up to SYNC_LOAD_MAX cases, else in the background. */
  load?: LoadMode;
  /** Positions per block of the counts and bounds along a permutation (BLOCK; tests take small ones). */
  block?: number;
  /** The largest dictionary a scope counts per code (scope-counts.ts COUNTED_CODES; tests take small ones). */
  countedCodes?: number;
}

export interface EngineAnswer {
  totalCount: number;
  ids: string[];
  rowids: number[];
  json?: Buffer;
  plan: ListPlan;
  outcome: PlanOutcome;
}

export interface CaseMemory {
  /**
   * The exact count, the page's ids with their rowids, the plan it followed and, when the columns hold every field
   * exactly, its records as the UTF-8 bytes of a JSON array (else they are read by rowid, one lookup each); or why SQL
   * must answer (not filled yet, an open transaction...).
   */
  list(env: string, scope: Scope, query: ListQuery): EngineAnswer | { refused: string };
  /** A statement wrote the case `id` (insert, update, remove). */
  touched(env: string, id: string): void;
  /** The outermost transaction ended (committed or rolled back): apply what it touched as the database now has it. */
  settle(): void;
  /** Filled and current. */
  ready(): boolean;
  /** Resolves when filled. */
  whenReady(): Promise<void>;
  /** What its structures hold, per part (footprint.ts; bench/sandbox-memory.ts prints it). */
  footprint(): FootprintPart[];
  close(): void;
}


/**
 * The fields the engine holds (of the cases list operations, as the bundle declares them, that a record has) and those
 * with a permutation: every sortable field, and every string filter field (its ranges are stretches of it).
 */
function heldFields(spec: CareSpec, recordFields: readonly string[]): { fields: FieldSource[]; sorted: string[] } {
  const types = new Map<string, ValueType | undefined>([['id', 'string']]);
  const sortedFields = new Set<string>(['id']);
  for (const op of spec.operations) {
    if (op.list?.itemSchema !== 'Case') continue;
    for (const f of Object.values(op.list.filterFields)) {
      types.set(f.name, f.type);
      if (f.type === 'string') sortedFields.add(f.name);
    }
    for (const f of op.list.sortFields) {
      sortedFields.add(f);
      if (!types.has(f)) types.set(f, undefined);
    }
  }
  const inRecord = new Set(recordFields);
  const fields: FieldSource[] = [...types].filter(([field]) => inRecord.has(field)).map(([field, type]) => ({ field, type }));
  return { fields, sorted: [...sortedFields].filter((f) => inRecord.has(f)) };
}

export function openCaseMemory(spec: CareSpec, source: CaseRowSource, options: CaseMemoryOptions = {}): CaseMemory {
  const recordFields = source.recordFields;
  const { fields, sorted } = heldFields(spec, recordFields);
  // rows: [env, ...fields' values, customer organisation, rowid] (source.ts)
  const rows = source.reader(fields.map((f) => f.field));
  const operators = spec.operators;

  const tables = new Tables(fields, sorted, options.block ?? BLOCK, options.countedCodes);
  // the fill and the writes applied after it, each a state of its own; a fill's end applies the writes made meanwhile
  const fill: Fill = new Fill(tables, source, rows, options.load ?? 'auto', () => updates.settle());
  const updates = new Updates(tables, source, rows, fill);
  fill.start();

  return {
    list(env, scope, query) {
      if (!LITTLE_ENDIAN) return { refused: 'a big-endian machine (the passes read masks as little-endian words)' };
      if (!fill.filled) return { refused: 'still filling' };
      if (updates.waiting() || source.writing()) return { refused: 'inside a transaction' };
      const t = tables.of(env);
      if (t.broken) return { refused: 'a case it cannot hold exactly (an id out of code point order, a value of another type)' };
      const scopeColumn = scope.by === 'customerOrg' ? t.customer : scope.by === 'contract' ? t.columns.get('contract') : undefined;
      if (!scopeColumn || scopeColumn.kind !== 'dict' || !scopeColumn.index) return { refused: `a scope by ${scope.by}` };
      for (const f of query.filters) if (!t.columns.has(f.field)) return { refused: `a filter on ${f.field}, which it does not hold` };
      for (const k of query.sort) if (!t.columns.has(k.field)) return { refused: `a sort by ${k.field}, which it does not hold` };
      const planned = planList(t, scopeColumn, scope, query, operators);
      const { slots, outcome } = runPlan(t, planned);
      const { plan } = planned;
      if (t.writer === undefined) t.writer = pageWriter(recordFields, (field) => t.columns.get(field)) ?? null;
      const json = t.recordsExact && t.writer ? t.writer(slots) : undefined;
      return { totalCount: plan.totalCount, ids: slots.map((s) => t.id.dict[t.id.codes[s]] as string), rowids: slots.map((s) => t.rowid[s]), json, plan, outcome };
    },
    touched: (env, id) => updates.touched(env, id),
    settle: () => updates.settle(),
    ready: () => fill.filled && !updates.waiting(),
    whenReady: () => fill.whenReady(),
    footprint: () => footprintOf(tables.values()),
    close: () => fill.close(),
  };
}

/** What the tables' structures hold, per part. */
function footprintOf(tables: Iterable<Table>): FootprintPart[] {
  // owners first: a column's dictionary before the text indexes that read it, the columns before the scopes,
  // bounds and counts that hold them as keys
  const f = new Footprint();
  for (const t of tables) {
    f.add('per slot: alive, id rank, rowid', [t.alive, t.idRank, t.rowid]);
    f.add('per slot: the mask and matches of a list', [t.mask, t.matched]);
    const columns = [...t.columns.values(), t.customer];
    for (const c of columns) f.add(`column ${c.field}`, c.kind === 'number' ? c.values : c.codes);
    for (const p of t.permutations.values()) f.add(`permutation ${p.field}`, p.slots);
    for (const c of columns) {
      if (c.kind !== 'dict') continue;
      f.add(`dictionary ${c.field}`, c.dict);
      f.add(`dictionary lookup ${c.field}`, c.index);
      f.add(`text index ${c.field}`, c.text);
      f.add(`word index ${c.field}`, c.words);
      f.add(`backwards order ${c.field}`, c.suffixes);
      f.add(`bytes per code ${c.field}`, [c.lengths, c.plain]);
    }
    f.add('scope masks and their counts', [...t.scopes.values()]);
    f.add('sameas pairs of the table', t.sames);
    f.add('zone bounds', t.zoneBounds);
    f.add('page writer', t.writer);
  }
  return f.parts();
}
