// The block counts of a scope along a permutation (stretch-counts.ts, D-84) against a plain count of the positions,
// through random writes as the engine makes them: slots taken out and put in anywhere (the later positions shift
// across block boundaries), slots joining and leaving the scope, the permutation outgrowing its blocks.
import { describe, expect, it } from 'vitest';
import type { Permutation } from '../src/sandbox/store/memory/order.ts';
import { compareCodePoints } from '../src/grammar/compare.ts';
import type { MemoryColumn } from '../src/sandbox/store/memory/columns.ts';
import { countStretch, stretchTest } from '../src/sandbox/store/memory/stretch-answer.ts';
import { StretchCounts } from '../src/sandbox/store/memory/stretch-counts.ts';

function prng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return x / 2 ** 32;
  };
}

describe('StretchCounts', () => {
  for (const block of [1, 4, 7, 64]) {
    it(`counts the in-scope slots of any stretch exactly through random writes (blocks of ${block})`, () => {
      const random = prng(block);
      const slotsMax = 600;
      const bits = new Uint8Array(slotsMax);
      const order: number[] = [];
      for (let s = 0; s < 40; s++) {
        order.splice(Math.floor(random() * (order.length + 1)), 0, s);
        bits[s] = random() < 0.5 ? 1 : 0;
      }
      const p: Permutation = { field: 'f', type: 'string', slots: new Uint32Array(slotsMax), length: order.length };
      p.slots.set(order);
      const counts = new StretchCounts(p, () => bits, block);
      let next = order.length;
      const sync = () => {
        p.slots.set(order);
        p.length = order.length;
      };
      const check = () => {
        for (let i = 0; i < 20; i++) {
          const from = Math.floor(random() * (order.length + 1));
          const to = from + Math.floor(random() * (order.length - from + 1));
          const expected = order.slice(from, to).reduce((n, s) => n + bits[s], 0);
          expect(counts.count(from, to), `[${from}, ${to}) of ${order.length}`).toBe(expected);
        }
        expect(counts.count(0, order.length)).toBe(order.reduce((n, s) => n + bits[s], 0));
      };
      check();
      for (let step = 0; step < 1500; step++) {
        const r = random();
        if ((r < 0.35 && next < slotsMax) || order.length === 0) {
          // a new slot put in anywhere (the permutation grows past its first blocks)
          const s = next++;
          bits[s] = random() < 0.5 ? 1 : 0;
          const at = Math.floor(random() * (order.length + 1));
          order.splice(at, 0, s);
          sync();
          counts.inserted(at, bits[s]);
        } else if (r < 0.6) {
          // a slot taken out (its scope bit as it was)
          const at = Math.floor(random() * order.length);
          const [s] = order.splice(at, 1);
          sync();
          counts.removed(at, bits[s]);
        } else if (r < 0.8) {
          // a slot moved: out, its scope perhaps changed, back in elsewhere (an update of the sorted field)
          const at = Math.floor(random() * order.length);
          const [s] = order.splice(at, 1);
          sync();
          counts.removed(at, bits[s]);
          if (random() < 0.5) bits[s] ^= 1;
          const to = Math.floor(random() * (order.length + 1));
          order.splice(to, 0, s);
          sync();
          counts.inserted(to, bits[s]);
        } else {
          // a slot that stays in place joins or leaves the scope
          const at = Math.floor(random() * order.length);
          const s = order[at];
          const delta = bits[s] === 1 ? -1 : 1;
          bits[s] ^= 1;
          counts.changed(at, delta);
        }
        if (step % 25 === 0) check();
      }
      check();
      expect(next).toBeGreaterThan(300);
    });
  }

  it('answers one stretch, or every position but it, from the counts: each slot tested by its place in the order', () => {
    const random = prng(99);
    // 60 slots ordered by a value with many ties and some nulls (first), then by slot, as the engine's permutations
    const values = Float64Array.from({ length: 60 }, () => (random() < 0.15 ? NaN : Math.floor(random() * 12)));
    const rank = (x: number) => (x !== x ? -1 : x);
    const compare = (a: number, b: number) => rank(values[a]) - rank(values[b]) || a - b;
    const slots = Uint32Array.from(values.keys()).sort(compare);
    const p: Permutation = { field: 'f', type: 'integer', slots, length: slots.length };
    const bits = Uint8Array.from(values, () => (random() < 0.6 ? 1 : 0));
    const counts = new StretchCounts(p, () => bits, 8);
    const positionOf = new Map([...slots].map((s, i) => [s, i]));
    const nonNull = [...slots].findIndex((s) => values[s] === values[s]);
    const runOf = (lo: number, hi: number) => [[...slots].findIndex((s) => values[s] >= lo), [...slots].findIndex((s) => values[s] > hi)] as const;
    // stretches of whole runs of values (read by value), of the nulls, and through runs (read by the order)
    const stretches = [[0, nonNull], runOf(3, 7), runOf(0, 0), runOf(11, 11), [runOf(3, 7)[0], runOf(3, 7)[1] - 1], [runOf(3, 7)[0] + 1, runOf(3, 7)[1]], [nonNull, 60], [0, 1], [0, 60], [5, 23], [17, 18], [30, 60], [59, 60], [8, 16]];
    expect(nonNull).toBeGreaterThan(2);
    // the strings of ranks 0-11 in code point order: quotes and a backslash (values `plain` leaves out), a character
    // above the surrogates and one beyond U+FFFF, which `<` on code units puts the other way round
    const strings = ['a', 'a"b', 'ab', 'b', 'b\uFF61', 'b\u{1F600}', 'c', 'c\\', 'd', 'z', '\u00e9', '\uFFFD'];
    expect([...strings].sort(compareCodePoints)).toEqual(strings);
    expect('b\u{1F600}' < 'b\uFF61').toBe(true);
    const codes = Uint32Array.from(values, (x) => (x !== x ? 0 : x + 1));
    const columns: Record<string, MemoryColumn> = {
      number: { kind: 'number', field: 'f', type: 'integer', values },
      // a dictionary column of another type stands for any column tested by the order alone
      byOrder: { kind: 'dict', field: 'f', type: undefined, codes: new Uint32Array(60), dict: [null], index: null, allStrings: true },
      string: { kind: 'dict', field: 'f', type: 'string', codes, dict: [null, ...strings], index: null, allStrings: true },
    };
    const byValue: Record<string, number> = { number: 0, byOrder: 0, string: 0 };
    let checked = 0;
    for (const [kind, column] of Object.entries(columns)) {
      for (const [from, to] of [...stretches, runOf(3, 4), runOf(4, 5), runOf(5, 9), runOf(0, 1)]) {
        for (const negated of [false, true]) {
          const answer = { permutation: p, stretches: [{ from, to: to === -1 ? 60 : to }], negated };
          const end = answer.stretches[0].to;
          const test = stretchTest(p, column, from, end, compare);
          byValue[kind] += +test.byValue;
          const got = countStretch(answer, test, counts, bits);
          const matches = [...values.keys()].filter((s) => bits[s] === 1 && (positionOf.get(s)! >= from && positionOf.get(s)! < end) !== negated);
          expect(got.total, `${kind} [${from}, ${end}) negated ${negated}`).toBe(matches.length);
          expect([...values.keys()].filter((s) => got.keep(s)), `${kind} [${from}, ${end}) negated ${negated}`).toEqual(matches);
          expect(got.within).toEqual(negated ? undefined : { from, to: end });
          checked++;
        }
      }
    }
    // whole runs of values are read by value, numbers and strings alike, except the strings of runOf(5, 9), whose first
    // holds a character beyond U+FFFF; the rest by the order (and the one empty stretch by neither)
    expect(byValue).toEqual({ number: 18, byOrder: 2, string: 16 });
    expect(checked).toBe(3 * (stretches.length + 4) * 2);
  });
});
