// The bounds of a column per block of another field's permutation (zone-bounds.ts, D-84) hold every value of their
// block through random writes made as the engine makes them, and tell blocks apart as they are; a page's walk that
// skips blocks (zone-walk.ts) gives the slots the plain walk gives, in both directions, ascending and descending, with
// runs of equal values across block boundaries, and so does a descending walk through the mask run by run.
import { describe, expect, it } from 'vitest';
import { prng } from '../src/sandbox/seed.ts';
import { compareCodePoints } from '../src/grammar/compare.ts';
import { makeColumn } from '../src/sandbox/store/memory/columns.ts';
import type { DictColumn, MemoryColumn, NumberColumn } from '../src/sandbox/store/memory/columns.ts';
import { walk, walkBack } from '../src/sandbox/store/memory/order.ts';
import type { Permutation } from '../src/sandbox/store/memory/order.ts';
import { IN, MIXED, OUT, ZoneBounds } from '../src/sandbox/store/memory/zone-bounds.ts';
import { COUNTED, NONE, SOME, zoneWalk } from '../src/sandbox/store/memory/zone-walk.ts';

const SLOTS = 700;
const WORDS = ['apple', 'banana', 'cherry', 'date', 'elder', 'fig', 'grape', 'Zürich', 'émile'];

/** A number or string column over SLOTS slots with a random value (or null) in each. */
function columnOf(kind: 'number' | 'string', random: () => number): { column: MemoryColumn; set(slot: number): void; value(slot: number): number | string | null } {
  if (kind === 'number') {
    const column = makeColumn('n', 'integer', SLOTS) as NumberColumn;
    const set = (slot: number) => (column.values[slot] = random() < 0.15 ? NaN : Math.floor(random() * 50));
    for (let s = 0; s < SLOTS; s++) set(s);
    return { column, set, value: (s) => (column.values[s] !== column.values[s] ? null : column.values[s]) };
  }
  const column = makeColumn('t', 'string', SLOTS) as DictColumn;
  column.index = null; // one value may get two codes, as in a column of nearly distinct values
  const set = (slot: number) => {
    if (random() < 0.15) column.codes[slot] = 0;
    else {
      column.dict.push(`${WORDS[Math.floor(random() * WORDS.length)]} ${Math.floor(random() * 5)}`);
      column.codes[slot] = column.dict.length - 1;
    }
  };
  for (let s = 0; s < SLOTS; s++) set(s);
  return { column, set, value: (s) => (column.codes[s] === 0 ? null : (column.dict[column.codes[s]] as string)) };
}

const compare = (a: number | string, b: number | string) => (typeof a === 'number' ? a - (b as number) : compareCodePoints(a, b as string));

describe('ZoneBounds', () => {
  for (const kind of ['number', 'string'] as const) {
    for (const block of [1, 5, 64]) {
      it(`holds every value of its blocks through random writes and tells OUT, IN and MIXED (${kind}, blocks of ${block})`, () => {
        const random = prng(block * (kind === 'number' ? 1 : 7));
        const { column, set, value } = columnOf(kind, random);
        // the walked permutation: slots placed mostly in the order of their value (a field that grows with the walked
        // one), else anywhere; writes in place then move values out of their block's range
        const order: number[] = [];
        const placeOf = (slot: number) => {
          const v = value(slot);
          if (v === null || random() < 0.05) return Math.floor(random() * (order.length + 1));
          const after = order.findIndex((s) => value(s) !== null && compare(value(s)!, v) > 0);
          return after === -1 ? order.length : after;
        };
        let next = 0;
        for (; next < 120; next++) order.splice(placeOf(next), 0, next);
        const p: Permutation = { field: 'w', type: 'string', slots: new Uint32Array(SLOTS), length: order.length };
        const sync = () => {
          p.slots.set(order);
          p.length = order.length;
        };
        sync();
        const bounds = new ZoneBounds(p, column, block);
        let checkedKinds = 0;
        const check = () => {
          const blocks = Math.ceil(order.length / block);
          const present = order.map(value).filter((v): v is number | string => v !== null).sort(compare);
          if (present.length < 2) return;
          // two values present as the stretch's ends: their slots stand for them
          const a = present[Math.floor(random() * present.length)];
          const b = present[Math.floor(random() * present.length)];
          const [lo, hi] = compare(a, b) <= 0 ? [a, b] : [b, a];
          const slotOf = (v: number | string) => order.find((s) => value(s) !== null && compare(value(s)!, v) === 0)!;
          const kinds = bounds.kinds(slotOf(lo), slotOf(hi), blocks)!;
          for (let k = 0; k < blocks; k++) {
            const values = order.slice(k * block, (k + 1) * block).map(value);
            const inside = values.filter((v) => v !== null && compare(v, lo) >= 0 && compare(v, hi) <= 0).length;
            const nonNull = values.filter((v) => v !== null).length;
            if (kinds[k] === OUT) expect(inside, `block ${k} OUT`).toBe(0);
            if (kinds[k] === IN) expect(inside, `block ${k} IN`).toBe(nonNull);
            if (values.includes(null)) expect(bounds.mayHoldNull(k), `block ${k} holds a null`).toBe(true);
            // a block of one value is never MIXED: its bounds are that value until a write widens them
            if (kinds[k] !== MIXED) checkedKinds++;
          }
        };
        check();
        for (let step = 0; step < 1200; step++) {
          const r = random();
          if ((r < 0.3 && next < SLOTS) || order.length === 0) {
            const at = placeOf(next);
            order.splice(at, 0, next++);
            sync();
            bounds.inserted(at);
          } else if (r < 0.55) {
            const at = Math.floor(random() * order.length);
            order.splice(at, 1);
            sync();
            bounds.removed(at);
          } else {
            // a value written in place
            const at = Math.floor(random() * order.length);
            set(order[at]);
            bounds.changed(at, order[at]);
          }
          if (step % 20 === 0) check();
        }
        expect(checkedKinds).toBeGreaterThan(0);
      });
    }
  }
});

describe('zoneWalk', () => {
  for (const block of [1, 3, 16]) {
    it(`gives the slots of the plain walk, skipping blocks of no matches and counting blocks of counted ones (blocks of ${block})`, () => {
      const random = prng(100 + block);
      let compared = 0;
      for (let round = 0; round < 300; round++) {
        const n = 1 + Math.floor(random() * 200);
        // few distinct values: runs of equal values cross block boundaries
        const column = makeColumn('w', 'integer', n) as NumberColumn;
        for (let s = 0; s < n; s++) column.values[s] = random() < 0.1 ? NaN : Math.floor(random() * (1 + random() * 30));
        const sorted = Array.from({ length: n }, (_, s) => s).sort((x, y) => {
          const [u, v] = [column.values[x], column.values[y]];
          if (u !== u || v !== v) return (u !== u ? 0 : 1) - (v !== v ? 0 : 1) || x - y;
          return u - v || x - y;
        });
        const p: Permutation = { field: 'w', type: 'integer', slots: Uint32Array.from(sorted), length: n };
        // matches lie together along the walk now and then, as a range of a time-correlated field does
        const dense = random() < 0.5;
        const start = Math.floor(random() * n);
        const keepSet = new Uint8Array(n);
        for (let i = 0; i < n; i++) keepSet[sorted[i]] = (dense ? i >= start && i < start + n / 3 : random() < 0.3) ? 1 : 0;
        const keep = (s: number) => keepSet[s] === 1;
        const blocks = Math.ceil(n / block);
        const kinds = new Uint8Array(blocks);
        const truth = (k: number) => sorted.slice(k * block, (k + 1) * block).filter(keep).length;
        for (let k = 0; k < blocks; k++) kinds[k] = random() < 0.3 ? SOME : truth(k) === 0 && random() < 0.7 ? NONE : COUNTED;
        let tested = 0;
        const counting = (s: number) => {
          tested++;
          return keep(s);
        };
        for (const descending of [false, true]) {
          for (const back of [false, true]) {
            const total = sorted.filter(keep).length;
            const skip = Math.floor(random() * (total + 2));
            const stop = skip + 1 + Math.floor(random() * 12);
            const expected: number[] = [];
            let seen = 0;
            (back ? walkBack : walk)(p, column, descending, (s) => {
              if (!keep(s)) return true;
              if (seen++ >= skip) expected.push(s);
              return seen < stop;
            });
            if (back) expected.reverse();
            tested = 0;
            const got = zoneWalk(p, column, descending, back, counting, skip, stop, { block, kinds, matches: truth, cost: 0 });
            expect(got, `n ${n} descending ${descending} back ${back} skip ${skip} stop ${stop}`).toEqual(expected);
            expect(tested).toBeLessThanOrEqual(n);
            compared++;
            if (descending) {
              // matches counted at any positions, walked through the mask: run by run
              const inRange = (from: number, to: number) => sorted.slice(from, to).filter(keep).length;
              const byRuns = zoneWalk(p, column, descending, back, keep, skip, stop, { block, kinds, matches: truth, cost: 0, inRange }, keepSet);
              expect(byRuns, `by runs: n ${n} back ${back} skip ${skip} stop ${stop}`).toEqual(expected);
              compared++;
            }
          }
        }
      }
      expect(compared).toBe(1800);
    });
  }

  it('tests no slot of a block it skips', () => {
    // 40 slots of distinct values in blocks of 10: matches only in the last block, the first three NONE
    const column = makeColumn('w', 'integer', 40) as NumberColumn;
    for (let s = 0; s < 40; s++) column.values[s] = s;
    const p: Permutation = { field: 'w', type: 'integer', slots: Uint32Array.from({ length: 40 }, (_, s) => s), length: 40 };
    const tested: number[] = [];
    const keep = (s: number) => {
      tested.push(s);
      return s >= 30;
    };
    const kinds = Uint8Array.from([NONE, NONE, NONE, SOME]);
    expect(zoneWalk(p, column, false, false, keep, 2, 5, { block: 10, kinds, matches: () => 0, cost: 0 })).toEqual([32, 33, 34]);
    expect(Math.min(...tested)).toBe(30);
    // counted: the first two blocks hold 10 matches each, the page starts in the third
    const counted = Uint8Array.from([COUNTED, COUNTED, SOME, SOME]);
    tested.length = 0;
    expect(zoneWalk(p, column, false, false, (s) => (tested.push(s), true), 21, 23, { block: 10, kinds: counted, matches: () => 10, cost: 0 })).toEqual([21, 22]);
    expect(Math.min(...tested)).toBe(20);
  });
});
