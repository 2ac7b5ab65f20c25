// A case's row as the engine's columns hold it (decision D-84): its values encoded (numbers, dictionary codes, the
// id's text), written into a slot, and which permutations a new row of a held case moves in. Read by the fill
// (fill.ts) and by the writes applied after it (update.ts).
import type { Permutation } from './order.ts';
import { codeOf, numberOf } from './columns.ts';
import { writesBack } from './record-json.ts';
import type { CaseRow } from './source.ts';
import type { FieldSource, Table } from './table.ts';

/** A row's values as the columns hold them: the fields' in order, then the customer's code and the rowid. */
export type Encoded = Array<number | string>;

/**
 * A row's values as the columns hold them (numbers; dictionary codes, adding new values; the id's text), or
 * undefined when one cannot be held exactly.
 */
export function encodeRow(t: Table, fields: readonly FieldSource[], row: CaseRow): Encoded | undefined {
  const out: Array<number | string> = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    const column = t.columns.get(f.field)!;
    const value = row[i + 1];
    if (column === t.id) {
      if (typeof value !== 'string') return undefined;
      out.push(value);
    } else if (column.kind === 'number') {
      const x = numberOf(f.type, value);
      if (x === undefined) return undefined;
      if (f.type === 'datetime' && typeof value === 'string' && !writesBack(value, x)) t.recordsExact = false;
      out.push(x);
    } else out.push(codeOf(column, value));
  }
  out.push(codeOf(t.customer, row[fields.length + 1]));
  out.push(Number(row[fields.length + 2]));
  return out;
}

export function storeRow(t: Table, fields: readonly FieldSource[], slot: number, encoded: Encoded): void {
  for (let i = 0; i < fields.length; i++) {
    const column = t.columns.get(fields[i].field)!;
    if (column === t.id) {
      const code = slot + 1; // ids are unique: slot + 1 is the id's own code
      t.id.dict[code] = encoded[i];
      t.id.index!.set(encoded[i] as string, code);
      t.id.codes[slot] = code;
    } else if (column.kind === 'number') column.values[slot] = encoded[i] as number;
    else column.codes[slot] = encoded[i] as number;
  }
  t.customer.codes[slot] = encoded[fields.length] as number;
  t.rowid[slot] = encoded[fields.length + 1] as number;
}

/** The permutations whose field's value differs between the slot and `encoded`. */
export function changedPermutations(t: Table, fields: readonly FieldSource[], slot: number, encoded: Encoded): Permutation[] {
  const out: Permutation[] = [];
  for (let i = 0; i < fields.length; i++) {
    const p = t.permutations.get(fields[i].field);
    if (!p) continue;
    const column = t.columns.get(fields[i].field)!;
    const now = column.kind === 'number' ? column.values[slot] : column === t.id ? t.id.dict[slot + 1] : column.codes[slot];
    const next = encoded[i];
    if (!(now === next || (now !== now && next !== next))) out.push(p);
  }
  return out;
}
