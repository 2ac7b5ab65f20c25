// One clause answered from stretches of its field's permutation (stretch-answer.ts, D-84) marks and counts exactly
// what a pass over the slots does, on hand-made columns with nulls (which the bundle's datetimes never hold, so the
// engine tests cannot reach them), '' and repeated values, on both sides of the visit; text tests that hold for a few
// values become those values' stretches.
import { describe, expect, it } from 'vitest';
import { matchesFilters } from '../src/grammar/evaluate.ts';
import type { FilterClause } from '../src/grammar/types.ts';
import { codeOf, makeColumn, valueAt } from '../src/sandbox/store/memory/columns.ts';
import type { MemoryColumn } from '../src/sandbox/store/memory/columns.ts';
import { compareOn } from '../src/sandbox/store/memory/order.ts';
import type { Permutation } from '../src/sandbox/store/memory/order.ts';
import { markStretches, stretchAnswer } from '../src/sandbox/store/memory/stretch-answer.ts';
import { prng } from '../src/sandbox/seed.ts';
import { spec } from './helpers/sandbox.ts';

const size = 2_003; // whole words and a tail
const random = prng(1184);
const iso = (k: number) => new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString();

/** A column of `size` values drawn by `draw`, and its permutation (alive slots by value, null first). */
function columnOf(field: string, type: 'integer' | 'datetime' | 'string', draw: () => unknown, alive: Uint8Array) {
  const column = makeColumn(field, type, size + 4);
  const values: unknown[] = [];
  for (let s = 0; s < size; s++) {
    const v = draw();
    values.push(v);
    if (column.kind === 'number') column.values[s] = v === null ? NaN : type === 'integer' ? (v as number) : Date.parse(v as string);
    else column.codes[s] = codeOf(column, v);
  }
  const order = Array.from({ length: size }, (_, s) => s).filter((s) => alive[s] === 1);
  order.sort((a, b) => compareOn(column, type, a, b) || a - b);
  const permutation: Permutation = { field, type, slots: Uint32Array.from(order), length: order.length };
  return { column, permutation, values };
}

describe('a clause as stretches of its permutation (D-84)', () => {
  it('marks and counts like the grammar on every slot, nulls included, the matches or the rest visited', () => {
    const alive = Uint8Array.from({ length: size + 4 }, (_, s) => (s < size && random() < 0.95 ? 1 : 0));
    const bits = Uint8Array.from(alive, (a) => a & (random() < 0.6 ? 1 : 0));
    const scopeCount = bits.reduce((n, b) => n + b, 0);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
    const tables = [
      columnOf('createdAt', 'datetime', () => (random() < 0.1 ? null : iso(Math.floor(random() * 40))), alive),
      columnOf('priority', 'integer', () => (random() < 0.1 ? null : Math.floor(random() * 30)), alive),
      columnOf('incident', 'string', () => (random() < 0.2 ? null : random() < 0.1 ? '' : pick(['INC1', 'INC10', 'INC2', 'Zürich', 'a', 'ab', 'b'])), alive),
    ];
    const sides = { matches: 0, rest: 0, pass: 0 };
    for (const { column, permutation, values } of tables) {
      const columns = new Map<string, MemoryColumn>([[column.field, column]]);
      const ctx = { column: (f: string) => columns.get(f), permutation: () => permutation, operators: spec.operators, size };
      // a few values spread over the order (the first and last among them), each as an operand
      const present = [...new Set(values.filter((v) => v !== null))].sort((a: any, b: any) => (a < b ? -1 : a > b ? 1 : 0));
      const spread = [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1].map((q) => present[Math.round(q * (present.length - 1))]);
      const operands: unknown[][] = [[], ...spread.map((v) => [v]), [present[0], present[1]], [present[2], present[0], present[2]], column.field === 'priority' ? [-1, 99] : ['', '\u{10FFFF}']];
      const field = spec.operation('listCases').list!.filterFields[column.field];
      // text tests (a string column): judged per value, the few values that pass taken as stretches
      const texts: Record<string, unknown[][]> = { contains: [['INC'], ['1'], ['ü'], ['zz']], like: [['*1*'], ['INC?'], ['*'], ['a*']], match: [['^INC1'], ['1$'], ['.']], endswith: [['1'], ['b'], ['h']] };
      for (const operator of field.operators.filter((o) => !/sameas|exists/i.test(o))) {
        const arity = spec.operators[operator].arity;
        const text = Object.keys(texts).find((t) => operator.toLowerCase().endsWith(t.toLowerCase()));
        if (text && column.kind === 'number') continue;
        for (const operand of text ? texts[text] : operands) {
          const values = arity === 'none' ? [] : arity === 'pair' ? operand.slice(0, 2) : arity === 'list' ? operand : operand.slice(0, 1);
          if ((arity === 'pair' && values.length < 2) || (arity !== 'none' && values.length === 0) || (operator.endsWith('tartswith') && column.field !== 'incident')) continue;
          const clause: FilterClause = { field: column.field, operator, type: field.type, values: values as any };
          const answer = stretchAnswer(clause, ctx);
          expect(answer, `${column.field} ${operator} ${values}`).toBeDefined();
          const mask = new Uint8Array(size + 4).fill(7); // bytes past the slots are left alone
          const matched = new Uint32Array(size);
          const marked = markStretches(answer!, bits, scopeCount, mask, size, matched);
          if (!marked) {
            sides.pass++;
            continue;
          }
          sides[marked.matched ? 'matches' : 'rest']++;
          const judged = new Map<unknown, boolean>(); // the grammar once per distinct value
          const holds = (v: unknown) => judged.get(v) ?? judged.set(v, matchesFilters({ [column.field]: v }, [clause], spec.operators)).get(v)!;
          const expected = Array.from({ length: size }, (_, s) => (bits[s] === 1 && holds(valueAt(column, s)) ? 1 : 0));
          const label = `${column.field} ${operator} ${JSON.stringify(values)}`;
          // the first slot marked wrong (-1: none), compared in a loop: 2k-element toEqual per clause is slow
          expect(expected.findIndex((e, s) => mask[s] !== e), label).toBe(-1);
          expect(mask[size], label).toBe(7);
          expect(marked.total, label).toBe(expected.reduce((n: number, b) => n + b, 0));
          if (marked.matched) expect([...marked.matched].sort((a, b) => a - b).join(), label).toBe(expected.flatMap((b, s) => (b ? [s] : [])).join());
          const { from, to } = marked.within ?? { from: 0, to: permutation.length };
          expect(Array.from(permutation.slots.subarray(0, permutation.length)).findIndex((s, i) => (i < from || i >= to) && mask[s] !== 0), `${label}: a match outside its stretch`).toBe(-1);
        }
      }
    }
    expect(sides.matches).toBeGreaterThan(40);
    expect(sides.rest).toBeGreaterThan(40);
    expect(sides.pass).toBeGreaterThan(5);
  });
});
