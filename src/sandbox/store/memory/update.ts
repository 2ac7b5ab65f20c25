// The writes applied to the engine's tables (decision D-84): a write to cases is applied after it is committed, by
// reading the row back (writes inside a transaction when the outermost one ends, committed or rolled back; until then
// lists are answered by SQL); a bulk write fills again instead. The state is a value (Updates): the cases touched and
// not yet applied.
import { compareCodePoints } from '../../../grammar/compare.ts';
import type { Fill, Tables } from './fill.ts';
import { changedPermutations, encodeRow, storeRow } from './rows.ts';
import type { Encoded } from './rows.ts';
import type { CaseRowReader, CaseRowSource } from './source.ts';
import { REFILL_AT } from './tuning.ts';
import type { FieldSource, Table } from './table.ts';

export class Updates {
  /** Cases written and not yet applied, as [env, id]. */
  private readonly pending: Array<[string, string]> = [];

  constructor(
    private readonly tables: Tables,
    private readonly source: CaseRowSource,
    private readonly rows: CaseRowReader,
    private readonly fill: Fill,
  ) {}

  /** Whether writes wait to be applied (lists are then answered by SQL). */
  waiting(): boolean {
    return this.pending.length > 0;
  }

  /** A statement wrote the case `id` (insert, update, remove). */
  touched(env: string, id: string): void {
    this.pending.push([env, id]);
    this.settle();
  }

  /** Apply what was touched as the database now has it, once filled and no write is open. */
  settle(): void {
    if (!this.fill.filled || this.source.writing()) return;
    let alive = 0;
    for (const t of this.tables.values()) alive += t.aliveCount;
    // a bulk write (seeding): filling again is cheaper than placing each row in every permutation
    if (this.pending.length > Math.max(REFILL_AT, alive / 20)) {
      this.pending.length = 0;
      return this.fill.start();
    }
    while (this.pending.length > 0) {
      const [env, id] = this.pending.shift()!;
      applyRow(this.tables.of(env), this.tables.fields, this.rows, id, env);
    }
  }
}

/** Apply the database's current row of `id` (none: the case is gone). */
function applyRow(t: Table, fields: readonly FieldSource[], rows: CaseRowReader, id: string, env: string): void {
  if (t.broken) return;
  const row = rows.row(env, id);
  const code = t.id.index!.get(id);
  const slot = code === undefined ? undefined : code - 1;
  if (!row) {
    if (slot !== undefined) removeSlot(t, slot, id);
    return;
  }
  const encoded = encodeRow(t, fields, row);
  if (!encoded) t.broken = true;
  else if (slot !== undefined) rewriteSlot(t, fields, slot, encoded);
  else insertSlot(t, fields, id, encoded);
}

/** A case gone: out of every permutation and scope, its slot no longer alive. */
function removeSlot(t: Table, slot: number, id: string): void {
  for (const p of t.permutations.values()) t.takeOut(p, slot);
  t.unscope(slot, null);
  t.alive[slot] = 0;
  t.aliveCount--;
  t.rescope(slot, null);
  t.id.index!.delete(id);
}

/** A case changed: its slot's new values, moved in the permutations of the fields that changed. */
function rewriteSlot(t: Table, fields: readonly FieldSource[], slot: number, encoded: Encoded): void {
  // out of a permutation while the old value is still there, back in with the new one
  const changed = changedPermutations(t, fields, slot, encoded);
  for (const p of changed) t.takeOut(p, slot);
  // the slot stays where it is in the other permutations: its positions there are found once for the three
  const at = t.positions(slot);
  t.unscope(slot, changed, at);
  storeRow(t, fields, slot, encoded);
  t.rescope(slot, changed, at);
  t.rebound(slot, changed, at);
  for (const p of changed) t.putIn(p, slot);
}

/** A new case: a slot at the end, ranked between its neighbours in id order, put into every permutation. */
function insertSlot(t: Table, fields: readonly FieldSource[], id: string, encoded: Encoded): void {
  const fresh = t.size;
  t.ensureCapacity(fresh + 1);
  storeRow(t, fields, fresh, encoded);
  t.size++;
  t.alive[fresh] = 1;
  t.aliveCount++;
  t.rescope(fresh, null);
  // rank between the neighbours in id order (equal ranks fall back to comparing the ids)
  const byId = t.permutations.get('id')!;
  let lo = 0;
  let hi = byId.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCodePoints(t.id.dict[byId.slots[mid] + 1] as string, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  const before = lo > 0 ? t.idRank[byId.slots[lo - 1]] : undefined;
  const after = lo < byId.length ? t.idRank[byId.slots[lo]] : undefined;
  t.idRank[fresh] = before === undefined ? (after === undefined ? 0 : after - 1) : after === undefined ? before + 1 : before + (after - before) / 2;
  for (const p of t.permutations.values()) t.putIn(p, fresh);
}
