// `endswith` from the dictionary's backwards order (suffix-order.ts, D-84) marks exactly the values `endsWith`
// passes: after the fill's build, for values added since (tested one by one), and after enough were added to be
// merged into the order; on awkward strings (surrogate pairs, lone surrogates, empty, repeats).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SuffixOrder, compareBackwards } from '../src/sandbox/store/memory/suffix-order.ts';

const unit = fc.constantFrom('a', 'b', 'z', '.', ' ', '1', 'é', '\u0000', '\uffff', '😀', '\ud83d', '\ude00');
const text = fc.array(unit, { maxLength: 6 }).map((units) => units.join(''));

/** The codes `endsWith` passes, as the grammar's test decides them. */
const expected = (dict: unknown[], x: string) => dict.flatMap((v, c) => (typeof v === 'string' && v.endsWith(x) ? [c] : []));

function marked(order: SuffixOrder, dict: unknown[], x: string): number[] {
  const ok = new Uint8Array(dict.length);
  order.mark(x, ok);
  return Array.from(ok.keys()).filter((c) => ok[c] === 1);
}

function build(order: SuffixOrder): void {
  for (const _ of order.build());
}

describe('endswith from the backwards order of a dictionary (D-84)', () => {
  it('marks exactly the values that end with the needle, after the build and for values added since', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 60 }), fc.array(text, { maxLength: 30 }), fc.array(text, { minLength: 1, maxLength: 8 }), (before, after, needles) => {
        const dict: unknown[] = [null, ...before];
        const order = new SuffixOrder(dict);
        build(order);
        dict.push(...after);
        // needles: the given ones and the ends of values held
        const xs = [...needles, ...dict.slice(1, 6).map((v) => String(v).slice(-2))];
        for (const x of xs) expect(marked(order, dict, x)).toEqual(expected(dict, x));
        // built again (a refill) with those values waiting in the tail: they join the order
        dict.push(...needles);
        build(order);
        for (const x of xs) expect(marked(order, dict, x)).toEqual(expected(dict, x));
      }),
    );
  });

  it('merges many added values into the order and still marks exactly', () => {
    const dict: unknown[] = [null];
    // some held values order after every added one (ending in z), so the merge also copies the order's tail
    for (let i = 0; i < 500; i++) dict.push(i % 5 === 0 ? `held ${i} zz` : `value ${i % 37} end${i % 11}`);
    const order = new SuffixOrder(dict);
    build(order);
    // more than the tail tested one by one: the next mark merges them
    for (let i = 0; i < 5000; i++) dict.push(i % 3 === 0 ? `new ${i} end${i % 13}` : `😀${i % 7}`);
    for (const x of ['end1', 'end12', '0', '😀3', '\ude00' + '3', 'nothing', 'e', 'end5', 'zz', '0 zz']) expect(marked(order, dict, x)).toEqual(expected(dict, x));
    // and once more after a second merge
    for (let i = 0; i < 3000; i++) dict.push(`later ${i}`);
    for (const x of ['1', 'end10', 'r 29', 'zz', '5 zz']) expect(marked(order, dict, x)).toEqual(expected(dict, x));
  });

  it('orders by code units read backwards, a string before every longer one it ends', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const ra = [...a.split('')].reverse().join('');
        const rb = [...b.split('')].reverse().join('');
        expect(Math.sign(compareBackwards(a, b))).toBe(ra === rb ? 0 : ra < rb ? -1 : 1);
      }),
    );
  });
});
