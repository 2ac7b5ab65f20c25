// Substring search over a string column's dictionary (decision D-84): the distinct values joined into large strings,
// each value between two separators, searched with the engine's own `indexOf` (much faster per byte than a test per
// value): `contains x` finds x, `startswith x` finds SEP + x, `endswith x` SEP-terminated x, equality SEP + x + SEP.
// A match cannot cross a separator when the needle holds none, so every hit lies inside one value, found by a binary
// search of the value offsets; values that hold the separator themselves, and the newest values not yet joined, are
// tested one by one with the same JavaScript string tests the grammar uses (includes/startsWith/endsWith).
// `indexOf` reads the whole text (every id joined, for `id`), so each chunk also keeps, per block of its
// text, a filter of the 4-character grams that start there (a Bloom filter of one bit per gram, as ClickHouse's
// ngrambf index): a needle of 4 or more characters is searched only in the blocks that may hold all its grams.
import { TEXT_TESTS } from '../../../grammar/operators.ts';
import type { TextTest as GrammarTextTest } from '../../../grammar/operators.ts';
import { fnv1a } from './hash.ts';
import { GRAM, GRAM_BLOCK as BLOCK, GRAMS_PER_STEP, TEXT_FILL_CHUNK as FILL_CHUNK, TEXT_MAX_CHUNKS as MAX_CHUNKS, TEXT_TAIL_MAX as TAIL_MAX } from './tuning.ts';

/**
 * A character one byte wide in V8's strings and met in no ordinary text: a chunk of Latin-1 values joined with it is
 * a one-byte string, half the memory of one joined with a two-byte separator (the
 * ids' and incidents' chunks; a chunk holding any wider character stays two-byte). Values that hold it are tested
 * one by one, and so is every value for a needle that holds it.
 */
export const SEP = '\u0001';

/** Bits per block's filter (a quarter of a byte per character). */
const FILTER_BITS = BLOCK * 2;
const FILTER_BYTES = FILTER_BITS / 8;

interface Chunk {
  /** Codes of the values, in text order. */
  codes: Uint32Array;
  /** Start of each value in `text`, plus one past the last separator. */
  offsets: Uint32Array;
  text: string;
  /** Per block of BLOCK characters, FILTER_BYTES of bits: set for the hash of each gram that starts in the block. */
  grams: Uint8Array;
}

/**
 * The filter bit of the gram at `at`: FNV-1a (hash.ts), then a lighter mix than `mix32`, which doubled the time the
 * fill spends setting filters.
 */
function gramBit(text: string, at: number): number {
  let h = fnv1a(text, at, at + GRAM);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h & (FILTER_BITS - 1);
}

const noGrams = (text: string) => new Uint8Array(Math.ceil(text.length / BLOCK) * FILTER_BYTES);

/** Set the filter bits of the grams that start in text[from, to). */
function setGrams(grams: Uint8Array, text: string, from: number, to: number): void {
  for (let at = from; at < to && at + GRAM <= text.length; at++) {
    const bit = gramBit(text, at);
    grams[((at / BLOCK) | 0) * FILTER_BYTES + (bit >>> 3)] |= 1 << (bit & 7);
  }
}

/**
 * A character wider than one byte. A joined string holding one is two bytes per character throughout: a few wide
 * values (`☕`) in each chunk would double the chunks of short descriptions and descriptions, so those values are joined in chunks of their own.
 */
const WIDE = /[^\u0000-\u00ff]/;

/** Codes of Latin-1 values, then of wider ones. */
function byWidth(codes: number[], dict: readonly unknown[]): [number[], number[]] {
  const narrow: number[] = [];
  const wide: number[] = [];
  for (const c of codes) (WIDE.test(dict[c] as string) ? wide : narrow).push(c);
  return [narrow, wide];
}

const hasBit = (grams: Uint8Array, block: number, bit: number) => (grams[block * FILTER_BYTES + (bit >>> 3)] & (1 << (bit & 7))) !== 0;

/** The grammar's text tests (operators.ts), and equality of the whole value. */
export type TextTest = GrammarTextTest | 'eq';

export class TextIndex {
  private chunks: Chunk[] = [];
  /** Codes not in a chunk: the newest, and values holding SEP. */
  private loose: number[] = [];
  private indexedUpTo = 1;

  constructor(private readonly dict: unknown[]) {}

  /** Join the whole dictionary in chunks, yielding between them (the fill). */
  *build(): Generator<void, void> {
    // Latin-1 values and wider ones in chunks of their own (`byWidth`)
    const codes: [number[], number[]] = [[], []];
    for (let c = this.indexedUpTo; c < this.dict.length; c++) {
      const v = this.dict[c];
      if (typeof v !== 'string' || v.includes(SEP)) {
        this.loose.push(c);
        continue;
      }
      const same = codes[WIDE.test(v) ? 1 : 0];
      same.push(c);
      if (same.length === FILL_CHUNK) yield* this.joinInSteps(same.splice(0));
    }
    for (const rest of codes) if (rest.length > 0) yield* this.joinInSteps(rest);
    this.indexedUpTo = this.dict.length;
    yield;
  }

  /** A chunk joined, then its filters set a step at a time; searched only once they are whole. */
  private *joinInSteps(codes: number[]): Generator<void, void> {
    const chunk = this.join(codes, false);
    yield;
    for (let from = 0; from < chunk.text.length; from += GRAMS_PER_STEP) {
      setGrams(chunk.grams, chunk.text, from, from + GRAMS_PER_STEP);
      yield;
    }
    this.chunks.push(chunk);
  }

  /** Take in the dictionary's values added since the last call. */
  update(): void {
    // (no spread of these arrays into a call: an index never built takes in a whole dictionary here)
    for (let c = this.indexedUpTo; c < this.dict.length; c++) this.loose.push(c);
    this.indexedUpTo = this.dict.length;
    if (this.loose.length < TAIL_MAX && this.chunks.length > 0) return;
    let codes = this.loose.filter((c) => typeof this.dict[c] === 'string' && !(this.dict[c] as string).includes(SEP));
    this.loose = this.loose.filter((c) => typeof this.dict[c] !== 'string' || (this.dict[c] as string).includes(SEP));
    if (codes.length === 0) return;
    if (this.chunks.length >= MAX_CHUNKS) {
      const small = this.chunks.filter((chunk) => chunk.codes.length < FILL_CHUNK);
      this.chunks = this.chunks.filter((chunk) => chunk.codes.length >= FILL_CHUNK);
      codes = small.flatMap((chunk) => Array.from(chunk.codes)).concat(codes);
    }
    for (const same of byWidth(codes, this.dict)) if (same.length > 0) this.chunks.push(this.join(same));
  }

  private join(codes: number[], withGrams = true): Chunk {
    const offsets = new Uint32Array(codes.length + 1);
    const parts: string[] = [SEP];
    let at = 1;
    for (let i = 0; i < codes.length; i++) {
      const value = this.dict[codes[i]] as string;
      offsets[i] = at;
      parts.push(value, SEP);
      at += value.length + 1;
    }
    offsets[codes.length] = at;
    const text = parts.join('');
    const grams = noGrams(text);
    if (withGrams) setGrams(grams, text, 0, text.length);
    return { codes: Uint32Array.from(codes), offsets, text, grams };
  }

  /**
   * Set ok[code] = 1 for every string value that passes the test (x non-empty), and list in `hits`, when given, each
   * code it turns from 0 to 1 (a caller then need not scan `ok`).
   */
  mark(test: TextTest, x: string, ok: Uint8Array, hits?: number[]): void {
    this.update();
    if (x.includes(SEP) || (x === '' && test !== 'eq')) {
      // the separator in the needle: one value at a time
      for (let c = 1; c < this.dict.length; c++) {
        const v = this.dict[c];
        if (typeof v === 'string' && passes(test, v, x)) hit(ok, c, hits);
      }
      return;
    }
    const needle = test === 'contains' ? x : test === 'startswith' ? SEP + x : test === 'endswith' ? x + SEP : SEP + x + SEP;
    const filtered = needle.length >= GRAM && needle.length <= BLOCK;
    // a match starting in block b holds its first gram there and every other gram there or in block b + 1
    const bits = filtered ? Array.from({ length: needle.length - GRAM + 1 }, (_, i) => gramBit(needle, i)) : [];
    for (const chunk of this.chunks) {
      if (!filtered) {
        markHits(chunk, needle, test, ok, hits, 0, chunk.text.length);
        continue;
      }
      const blocks = chunk.grams.length / FILTER_BYTES;
      for (let b = 0; b < blocks; b++) {
        if (!hasBit(chunk.grams, b, bits[0])) continue;
        let may = true;
        for (let i = 1; i < bits.length && may; i++) may = hasBit(chunk.grams, b, bits[i]) || (b + 1 < blocks && hasBit(chunk.grams, b + 1, bits[i]));
        // the matches that start in the block
        if (may) markHits(chunk, needle, test, ok, hits, b * BLOCK, Math.min(chunk.text.length, (b + 1) * BLOCK + needle.length - 1));
      }
    }
    for (const c of this.loose) {
      const v = this.dict[c];
      if (typeof v === 'string' && passes(test, v, x)) hit(ok, c, hits);
    }
  }
}

/** ok[code] = 1, the code listed in `hits` (when given) the first time it is set. */
function hit(ok: Uint8Array, code: number, hits: number[] | undefined): void {
  if (hits && ok[code] === 0) hits.push(code);
  ok[code] = 1;
}

/** ok[code] = 1 for the value holding each match of the needle within text[start, end). */
function markHits(chunk: Chunk, needle: string, test: TextTest, ok: Uint8Array, hits: number[] | undefined, start: number, end: number): void {
  const { offsets, codes } = chunk;
  // a slice of a V8 string is a view, not a copy
  const text = start === 0 && end === chunk.text.length ? chunk.text : chunk.text.slice(start, end);
  let from = 0;
  let after = 0; // hits come in text order: the value holding the next one is at or after this index
  for (;;) {
    const found = text.indexOf(needle, from);
    if (found === -1) break;
    const at = found + start;
    // the value holding the match's first character of the value part: galloping from the last one (a common
    // needle hits value after value), then a binary search within the last step
    const inside = test === 'startswith' || test === 'eq' ? at + 1 : at;
    let lo = after;
    let step = 1;
    while (lo + step < codes.length && offsets[lo + step] <= inside) {
      lo += step;
      step *= 2;
    }
    let hi = Math.min(codes.length, lo + step);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (offsets[mid] <= inside) lo = mid + 1;
      else hi = mid;
    }
    const i = lo - 1;
    after = i + 1;
    hit(ok, codes[i], hits);
    // go on from the separator before the next value (it may start the next match)
    from = offsets[i + 1] - 1 - start;
  }
}

function passes(test: TextTest, v: string, x: string): boolean {
  return test === 'eq' ? v === x : TEXT_TESTS[test](v, x);
}
