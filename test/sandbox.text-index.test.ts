// The text index of a dictionary column (text-index.ts, D-84) against String.prototype.includes / startsWith /
// endsWith / ===: when never built (a whole dictionary taken in at the first search), and as values arrive after the
// fill in many rounds (chunks joined, then the small ones merged); the codes it lists as it marks them are those set.
import { describe, expect, it } from 'vitest';
import { prng } from '../src/sandbox/seed.ts';
import { SEP, TextIndex } from '../src/sandbox/store/memory/text-index.ts';
import type { TextTest } from '../src/sandbox/store/memory/text-index.ts';

const passes: Record<TextTest, (v: string, x: string) => boolean> = {
  contains: (v, x) => v.includes(x),
  startswith: (v, x) => v.startsWith(x),
  endswith: (v, x) => v.endsWith(x),
  eq: (v, x) => v === x,
};

function check(index: TextIndex, dict: unknown[], test: TextTest, x: string): void {
  const ok = new Uint8Array(dict.length);
  const hits: number[] = [];
  index.mark(test, x, ok, hits);
  const expected = dict.map((v) => (typeof v === 'string' && passes[test](v, x) ? 1 : 0));
  expect([...ok].join(''), `${test} ${x}`).toBe(expected.join(''));
  // the codes set, each listed once
  expect(hits.sort((a, b) => a - b), `${test} ${x} hits`).toEqual(expected.flatMap((bit, code) => (bit === 1 ? [code] : [])));
}

describe('TextIndex', () => {
  it('answers exactly when never built: a dictionary of 300k values (each holding the separator) taken in at the first search', () => {
    const dict: unknown[] = [null, ...Array.from({ length: 300_000 }, (_, i) => `case ${i} ${SEP}${i % 7}`)];
    const index = new TextIndex(dict);
    for (const test of ['contains', 'startswith', 'endswith', 'eq'] as const) check(index, dict, test, test === 'eq' ? `case 12 ${SEP}5` : '12');
  });

  it('answers exactly as values arrive after the fill in many rounds, the small chunks merged', () => {
    const dict: unknown[] = [null, 'alpha', 'beta'];
    const index = new TextIndex(dict);
    for (const _ of index.build());
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 2100; i++) dict.push(`r${round} v${i}`);
      check(index, dict, 'contains', `${round} v20`);
    }
    check(index, dict, 'startswith', 'r1 ');
    check(index, dict, 'eq', 'beta');
  });
  it('searches only the blocks whose gram filters may hold the needle, and misses no match across a block boundary', () => {
    // 60k values over some 150 blocks of 4,096 characters: ids, texts with repeats, one value longer than a block
    const random = prng(7);
    const words = ['VPN', 'printer', 'Zürich', 'mailbox', '😀', 'e\u0301', 'INC', 'déjà'];
    const dict: unknown[] = [null];
    for (let i = 0; i < 60_000; i++) dict.push(i % 3 === 0 ? `CS${String(1_000_000 + i).slice(1)}` : `${words[i % words.length]} ${Math.floor(random() * 5000)} ${words[(i * 7) % words.length]}`);
    dict.push('x'.repeat(5000) + 'tail');
    const index = new TextIndex(dict);
    for (const _ of index.build());
    const needles = new Set<string>(['x'.repeat(4097), 'x'.repeat(4096) + 'tail', 'xxxxx' /* in both blocks of one value */, 'CS0', 'CS012345', 'nothing here', 'ZZZZ']);
    for (let n = 0; n < 150; n++) {
      const v = dict[1 + Math.floor(random() * (dict.length - 2))] as string;
      const from = Math.floor(random() * v.length);
      needles.add(v.slice(from, from + 3 + Math.floor(random() * 12)));
    }
    for (const x of needles) {
      if (x === '' || /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(x)) continue;
      for (const test of ['contains', 'startswith', 'endswith', 'eq'] as const) check(index, dict, test, x);
    }
  });
  it('finds a needle whose grams run into the next block, and one longer than a block (searched whole)', () => {
    // a value of 30 'a's, then values of 19 (few grams: the first block's filter is nearly empty): value 204 starts at
    // character 4092, four before the first block boundary (4096); then a value of 'y's filling blocks of one gram,
    // ending in 13 grams found nowhere else
    const dict: unknown[] = [null, 'a'.repeat(30)];
    for (let i = 1; i < 400; i++) dict.push(i === 204 ? 'straddles-KJHGQWXZV' : 'a'.repeat(19));
    dict.push('y'.repeat(9000) + 'ZQWVKJHGFDSAPOIU');
    const index = new TextIndex(dict);
    for (const _ of index.build());
    for (const x of ['straddles-KJHGQWXZV', 'es-KJHGQWXZ', 'y'.repeat(8196) + 'ZQWVKJHGFDSAPOIU', 'y'.repeat(4200)]) {
      for (const test of ['contains', 'startswith', 'endswith', 'eq'] as const) check(index, dict, test, x);
    }
    const ok = new Uint8Array(dict.length);
    index.mark('contains', 'es-KJHGQWXZ', ok);
    expect(ok[205]).toBe(1);
  });
});
