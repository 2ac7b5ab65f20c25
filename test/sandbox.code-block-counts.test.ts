// A scope's counts per code and block of a permutation (code-block-counts.ts, D-84) against a plain count of the
// positions, through random writes as the engine makes them: slots taken out and put in anywhere (later positions
// shift across block boundaries), codes written in place, slots joining and leaving the scope, codes added past the
// first width, and a column that stops being few-valued.
import { describe, expect, it } from 'vitest';
import { prng } from '../src/sandbox/seed.ts';
import { CodeBlockCounts, codeKey, nullKey } from '../src/sandbox/store/memory/code-block-counts.ts';
import { makeColumn } from '../src/sandbox/store/memory/columns.ts';
import type { DictColumn, NumberColumn } from '../src/sandbox/store/memory/columns.ts';
import type { Permutation } from '../src/sandbox/store/memory/order.ts';

const SLOTS = 600;

describe('CodeBlockCounts', () => {
  for (const block of [1, 4, 7, 64]) {
    it(`counts the in-scope slots of each code in each block exactly through random writes (blocks of ${block})`, () => {
      const random = prng(block + 40);
      const column = makeColumn('c', 'string', SLOTS) as DictColumn;
      for (let c = 1; c <= 5; c++) column.dict.push(`v${c}`);
      let codes = 6; // codes in use (0: null); more are added as the test runs
      const bits = new Uint8Array(SLOTS);
      const order: number[] = [];
      const write = (s: number) => {
        column.codes[s] = Math.floor(random() * codes);
        bits[s] = random() < 0.6 ? 1 : 0;
      };
      for (let s = 0; s < 50; s++) {
        write(s);
        order.splice(Math.floor(random() * (order.length + 1)), 0, s);
      }
      const p: Permutation = { field: 'f', type: 'string', slots: new Uint32Array(SLOTS), length: order.length };
      const sync = () => {
        p.slots.set(order);
        p.length = order.length;
      };
      sync();
      const counts = new CodeBlockCounts(p, codeKey(column), column.dict.length, () => bits, block);
      let next = order.length;
      const check = () => {
        const ok = Uint8Array.from({ length: codes }, () => (random() < 0.4 ? 1 : 0));
        for (let k = 0; k * block < order.length; k++) {
          const expected = order.slice(k * block, (k + 1) * block).filter((s) => bits[s] === 1 && ok[column.codes[s]] === 1).length;
          expect(counts.matches(k, ok), `block ${k} of ${order.length}`).toBe(expected);
        }
      };
      check();
      for (let step = 0; step < 1500; step++) {
        const r = random();
        if (step % 100 === 99) {
          // a value added to the dictionary
          column.dict.push(`v${codes}`);
          codes++;
        }
        if ((r < 0.3 && next < SLOTS) || order.length === 0) {
          const s = next++;
          write(s);
          const at = Math.floor(random() * (order.length + 1));
          order.splice(at, 0, s);
          sync();
          counts.inserted(at, s);
        } else if (r < 0.55) {
          // taken out with its values as they were, then written and put back elsewhere (a sorted field changed)
          const at = Math.floor(random() * order.length);
          const s = order[at];
          order.splice(at, 1);
          sync();
          counts.removed(at, s, bits[s]);
          if (random() < 0.5) {
            write(s);
            const back = Math.floor(random() * (order.length + 1));
            order.splice(back, 0, s);
            sync();
            counts.inserted(back, s);
          }
        } else {
          // written in place: it leaves its block's counts with its old code, enters with the new one
          const at = Math.floor(random() * order.length);
          const s = order[at];
          if (bits[s] === 1) counts.changed(at, s, -1);
          write(s);
          if (bits[s] === 1) counts.changed(at, s, 1);
        }
        if (step % 25 === 0) check();
      }
      expect(codes).toBeGreaterThan(6);
      expect(counts.broken).toBe(false);
    });
  }

  it('stops (broken) when a code past the few-valued limit is met', () => {
    const column = makeColumn('c', 'string', 8) as DictColumn;
    column.dict.push('a');
    const bits = Uint8Array.from([1, 1, 1, 1, 0, 0, 0, 0]);
    const p: Permutation = { field: 'f', type: 'string', slots: Uint32Array.from([0, 1, 2, 3, 0, 0, 0, 0]), length: 4 };
    column.codes.fill(1, 0, 4);
    const counts = new CodeBlockCounts(p, codeKey(column), column.dict.length, () => bits, 2);
    expect(counts.matches(1, Uint8Array.from([0, 1]))).toBe(2);
    counts.changed(3, 3, -1);
    column.codes[3] = 5000;
    counts.changed(3, 3, 1);
    expect(counts.broken).toBe(true);
  });

  it('counts nulls and non-nulls per block, in number and dictionary columns', () => {
    const numbers = makeColumn('n', 'datetime', 6) as NumberColumn;
    numbers.values.set([1, NaN, 3, NaN, NaN, 6]);
    const texts = makeColumn('t', 'string', 6) as DictColumn;
    texts.dict.push('a');
    texts.codes.set([1, 0, 0, 1, 0, 1]);
    const bits = Uint8Array.from([1, 1, 1, 1, 0, 1]);
    const p: Permutation = { field: 'f', type: 'string', slots: Uint32Array.from([0, 1, 2, 3, 4, 5]), length: 6 };
    const NULLS = Uint8Array.from([1, 0]);
    const NON_NULLS = Uint8Array.from([0, 1]);
    const ofNumbers = new CodeBlockCounts(p, nullKey(numbers), 2, () => bits, 3);
    const ofTexts = new CodeBlockCounts(p, nullKey(texts), 2, () => bits, 3);
    // blocks [0, 1, 2] and [3, 4, 5]; slot 4 is out of scope
    expect([ofNumbers.matches(0, NULLS), ofNumbers.matches(0, NON_NULLS), ofNumbers.matches(1, NULLS), ofNumbers.matches(1, NON_NULLS)]).toEqual([1, 2, 1, 1]);
    expect([ofTexts.matches(0, NULLS), ofTexts.matches(0, NON_NULLS), ofTexts.matches(1, NULLS), ofTexts.matches(1, NON_NULLS)]).toEqual([2, 1, 0, 2]);
  });
});
