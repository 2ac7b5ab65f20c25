// sortRange (sort-range.ts, D-84): the [from, to) of a full sort, for random, sorted, reversed and tied inputs, every
// kind of range (empty, one element, the ends, the whole), in fewer comparisons than a full sort for a narrow range.
import { describe, expect, it } from 'vitest';
import { sortRange } from '../src/sandbox/store/memory/sort-range.ts';

function prng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return x / 2 ** 32;
  };
}

/** Slots 0..n-1 ordered by a key with ties, then by slot: a strict total order, as the engine's comparators. */
function keyed(keys: number[]): (x: number, y: number) => number {
  return (x, y) => keys[x] - keys[y] || x - y;
}

describe('sortRange', () => {
  const random = prng(7);
  const shapes: Record<string, (n: number) => number[]> = {
    random: (n) => Array.from({ length: n }, () => Math.floor(random() * n)),
    'few values': (n) => Array.from({ length: n }, () => Math.floor(random() * 3)),
    sorted: (n) => Array.from({ length: n }, (_, i) => i),
    reversed: (n) => Array.from({ length: n }, (_, i) => n - i),
    'organ pipe': (n) => Array.from({ length: n }, (_, i) => Math.min(i, n - i)),
    'all equal': (n) => new Array(n).fill(5),
  };
  for (const [shape, make] of Object.entries(shapes)) {
    it(`puts a full sort's [from, to) in place: ${shape}`, () => {
      for (const n of [0, 1, 2, 17, 100, 1000, 5000]) {
        const keys = make(n);
        const compare = keyed(keys);
        const slots = Uint32Array.from(random() < 0.5 ? keys.keys() : [...keys.keys()].reverse());
        const expected = Array.from(slots).sort(compare);
        const ranges = [[0, n], [0, Math.min(n, 1)], [n - 1, n], [Math.floor(n / 2), Math.floor(n / 2) + 50], [0, 0], [3, 3]];
        for (let r = 0; r < 6; r++) {
          const from = Math.floor(random() * n);
          ranges.push([from, Math.min(n, from + 1 + Math.floor(random() * 200))]);
        }
        for (const [from, to] of ranges) {
          if (from < 0 || to > n || from > to) continue;
          const a = Uint32Array.from(slots);
          sortRange(a, from, to, compare);
          expect(Array.from(a.subarray(from, to)), `n ${n} [${from}, ${to})`).toEqual(expected.slice(from, to));
          // the same elements, none lost or repeated
          expect(Array.from(a).sort((x, y) => x - y)).toEqual(Array.from(slots).sort((x, y) => x - y));
        }
      }
    });
  }

  it('compares far less than a full sort for a page deep in many elements', () => {
    const n = 40_000;
    const keys = shapes.random(n);
    let comparisons = 0;
    const compare = keyed(keys);
    const counted = (x: number, y: number) => {
      comparisons++;
      return compare(x, y);
    };
    const a = Uint32Array.from(keys.keys());
    sortRange(a, 20_000, 20_200, counted);
    expect(Array.from(a.subarray(20_000, 20_200))).toEqual(Array.from(keys.keys()).sort(compare).slice(20_000, 20_200));
    // a full sort takes about n log2 n (over 600k); selection about 3n and the page's own sort
    expect(comparisons).toBeLessThan(6 * n);
  });
});
