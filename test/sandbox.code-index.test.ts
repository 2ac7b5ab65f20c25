// The lookup of a dictionary's codes by value (code-index.ts, D-84) against a Map, through random sets, replacements
// and deletions: runs of keys that wrap around the end of the table, deletions inside runs (the backward shift), growth,
// and keys of values other than strings kept aside.
import { describe, expect, it } from 'vitest';
import { prng } from '../src/sandbox/seed.ts';
import { CodeIndex, hashOf } from '../src/sandbox/store/memory/code-index.ts';

describe('CodeIndex', () => {
  it('agrees with a Map through random sets, replacements and deletions, at every size from empty to 20k keys', () => {
    const random = prng(8);
    const dict: unknown[] = [null];
    const index = new CodeIndex(dict);
    const expected = new Map<string, number>();
    // few distinct keys at first (dense runs, many deletions in them), then many
    const keyOf = (round: number) => (random() < 0.05 ? '\u0001' + JSON.stringify([Math.floor(random() * 50)]) : `CS${Math.floor(random() * (round < 5000 ? 300 : 40_000))}`);
    for (let round = 0; round < 60_000; round++) {
      const key = keyOf(round);
      const action = random();
      if (action < 0.3) {
        expect(index.delete(key)).toBe(expected.delete(key));
      } else if (action < 0.4 && expected.has(key) && !key.startsWith('\u0001')) {
        // the id column's way: the same key again under a new code
        dict.push(key);
        index.set(key, dict.length - 1);
        expected.set(key, dict.length - 1);
      } else if (!expected.has(key)) {
        dict.push(key.startsWith('\u0001') ? JSON.parse(key.slice(1)) : key);
        index.set(key, dict.length - 1);
        expected.set(key, dict.length - 1);
      }
      expect(index.get(key)).toBe(expected.get(key));
      if (round % 1000 === 0) {
        expect(index.size).toBe(expected.size);
        expect([...expected.keys()].filter((k) => index.get(k) !== expected.get(k))).toEqual([]);
        expect(Array.from({ length: 50 }, (_, i) => index.get(`absent ${i}`)).filter((code) => code !== undefined)).toEqual([]);
      }
    }
    expect(index.size).toBe(expected.size);
    for (const [k, code] of expected) expect(index.get(k)).toBe(code);
    expect(index.inMap).toBe(false);
  });

  it('moves into a Map when keys are chosen to collide, and still finds, replaces and deletes every key', () => {
    // keys whose hashes share their low ten bits: one run of places in every table up to 1,024 places
    const colliding: string[] = [];
    for (let i = 0; colliding.length < 400; i++) if ((hashOf(`c${i}`) & 1023) === 0) colliding.push(`c${i}`);
    const dict: unknown[] = [null];
    const index = new CodeIndex(dict);
    for (const key of colliding) {
      dict.push(key);
      index.set(key, dict.length - 1);
    }
    expect(index.inMap).toBe(true);
    expect(index.size).toBe(400);
    expect(colliding.filter((key, i) => index.get(key) !== i + 1)).toEqual([]);
    dict.push(colliding[7]);
    index.set(colliding[7], dict.length - 1);
    expect(index.get(colliding[7])).toBe(dict.length - 1);
    expect(index.delete(colliding[8])).toBe(true);
    expect(index.get(colliding[8])).toBeUndefined();
    expect(index.size).toBe(399);
  });

  it('finds every key of a table filled to its load limit, after deleting every other key', () => {
    const dict: unknown[] = [null, ...Array.from({ length: 4096 }, (_, i) => `k${i}`)];
    const index = new CodeIndex(dict);
    for (let code = 1; code < dict.length; code++) index.set(dict[code] as string, code);
    for (let code = 1; code < dict.length; code += 2) expect(index.delete(dict[code] as string)).toBe(true);
    for (let code = 1; code < dict.length; code++) expect(index.get(dict[code] as string)).toBe(code % 2 === 0 ? code : undefined);
    expect(index.size).toBe(2048);
  });
});
