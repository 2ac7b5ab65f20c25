// The word index of a string column (word-index.ts, D-84): for every needle it covers, the values it marks are
// exactly those that contain the needle (String.prototype.includes, the grammar's `contains`), for values taken in at
// the fill and written after it; it covers no needle holding a separator, and answers nothing for values that are no
// phrases (a word each, as ids).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WordIndex } from '../src/sandbox/store/memory/word-index.ts';

// letters, ASCII separators, a non-ASCII letter and space, a pair, a lone surrogate, NUL and the text index's own separator
const char = fc.constantFrom('a', 'b', 'c', 'A', ' ', '.', '-', '_', ':', '\t', 'ü', '\u00a0', '😀', '\uD83D', '\u0000', '\uffff', '1');
const text = fc.array(char, { maxLength: 12 }).map((chars) => chars.join(''));

function marked(index: WordIndex, size: number, x: string): number[] {
  const ok = new Uint8Array(size);
  index.mark(x, ok);
  return [...ok.keys()].filter((c) => ok[c] === 1);
}

const containing = (dict: unknown[], x: string) => [...dict.keys()].filter((c) => typeof dict[c] === 'string' && (dict[c] as string).includes(x));

describe('WordIndex', () => {
  it('marks exactly the values that contain a needle it covers, before and after values are added', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 30 }), fc.array(text, { maxLength: 10 }), fc.array(text, { minLength: 1, maxLength: 8 }), (first, later, needles) => {
        const dict: unknown[] = [null, ...first];
        const index = new WordIndex(dict);
        // one index asked before its fill ends (it ends it then), one filled first
        const early = new WordIndex(dict);
        early.build().next();
        for (const x of needles) if (early.covers(x)) expect(marked(early, dict.length, x)).toEqual(containing(dict, x));
        for (const _ of index.build());
        // needles from the values themselves (their pieces), and random ones
        const pieces = [...needles, ...first.flatMap((v) => [v, v.slice(1, 4), v.slice(-3)])];
        for (const x of pieces) if (index.covers(x)) expect(marked(index, dict.length, x)).toEqual(containing(dict, x));
        dict.push(...later, 42);
        for (const x of [...pieces, ...later]) if (index.covers(x)) expect(marked(index, dict.length, x)).toEqual(containing(dict, x));
      }),
      { numRuns: 400 },
    );
  });

  it('covers a needle only when it is non-empty and holds no ASCII white space or punctuation', () => {
    const index = new WordIndex([null, 'a b']);
    for (const _ of index.build());
    for (const x of ['a', 'ab', 'ü', '\u00a0', '😀']) expect(index.covers(x), x).toBe(true);
    for (const x of ['', 'a b', 'a.', '-', '\t', '~', '`', '{', '[', '@', '/', ':']) expect(index.covers(x), JSON.stringify(x)).toBe(false);
  });

  it('answers nothing for values of a word each (ids): it covers no needle, before or after the fill ends', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `CS${String(i).padStart(7, '0')}`);
    const index = new WordIndex([null, ...ids]);
    const steps = index.build();
    expect(index.covers('CS0')).toBe(true);
    for (const _ of steps);
    expect(index.useful).toBe(false);
    expect(index.covers('CS0')).toBe(false);
  });

  it('keeps phrases that each hold a word of their own (a number): the words are still far shorter than the values', () => {
    const dict: unknown[] = [null, ...Array.from({ length: 10_000 }, (_, i) => `VPN drops every 10 minutes (#${i})`)];
    const index = new WordIndex(dict);
    for (const _ of index.build());
    expect(index.useful).toBe(true);
    expect(marked(index, dict.length, '99')).toEqual(containing(dict, '99'));
  });

  it('drops the index when the distinct words hold more than half the characters of the distinct values', () => {
    const usefulFor = (tail: string) => {
      const index = new WordIndex([null, ...Array.from({ length: 10_000 }, (_, i) => `w${String(i).padStart(7, '0')}${tail}`)]);
      for (const _ of index.build());
      return index.useful;
    };
    expect(usefulFor(' common words')).toBe(true); // words 8 of 21 characters per value
    expect(usefulFor(' aa bb')).toBe(false); // words 8 of 14
  });

  it('keeps phrases: many values from few words stay indexed', () => {
    const words = ['printer', 'jammed', 'floor', 'users', 'affected'];
    const dict: unknown[] = [null, ...Array.from({ length: 10_000 }, (_, i) => `${words[i % 5]} ${words[(i * 3) % 5]}: ${i % 40}`)];
    const index = new WordIndex(dict);
    for (const _ of index.build());
    expect(index.useful).toBe(true);
    expect(marked(index, dict.length, 'ffect')).toEqual(containing(dict, 'ffect'));
    expect(marked(index, dict.length, '3')).toEqual(containing(dict, '3'));
  });
});
