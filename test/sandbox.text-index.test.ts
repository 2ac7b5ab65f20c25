// The text index of a dictionary column (text-index.ts, D-84) against String.prototype.includes / startsWith /
// endsWith / ===: when never built (a whole dictionary taken in at the first search), and as values arrive after the
// fill in many rounds (chunks joined, then the small ones merged).
import { describe, expect, it } from 'vitest';
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
  index.mark(test, x, ok);
  const expected = dict.map((v) => (typeof v === 'string' && passes[test](v, x) ? 1 : 0));
  expect([...ok].join(''), `${test} ${x}`).toBe(expected.join(''));
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
});
