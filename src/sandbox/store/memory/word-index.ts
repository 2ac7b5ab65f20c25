// Substring search through the words of a string column's values (decision D-84). A word is a longest run of
// characters that are not ASCII white space or punctuation. A needle without such a character lies, wherever it
// occurs, inside one word, so the values that contain it are the values of the words that contain it. Texts written
// from a few phrases (descriptions) have far fewer words than values: the words are searched (a TextIndex of their
// own), and each word found marks its values from its list. A needle found in nearly every value then costs a pass
// over its words' lists, where the search of the joined values met it once per value.
import { CodeIndex } from './code-index.ts';
import { TextIndex } from './text-index.ts';
import { WORD_FILL_STEP as FILL_STEP, WORD_JUDGED_AFTER as JUDGED_AFTER } from './tuning.ts';

/** ASCII white space and punctuation: what ends a word. */
const SEPARATOR = /[\t\n\v\f\r !-/:-@[-`{-~]/;
const SEPARATORS = new RegExp(SEPARATOR.source, 'g');

/** A Uint32Array that grows by doubling. */
class Growing {
  items = new Uint32Array(1024);
  n = 0;

  push(x: number): void {
    if (this.n === this.items.length) {
      const bigger = new Uint32Array(this.items.length * 2);
      bigger.set(this.items);
      this.items = bigger;
    }
    this.items[this.n++] = x;
  }
}

export class WordIndex {
  /** Word code -> word; [0] is null, as in a column's dictionary (TextIndex reads it so). */
  private words: unknown[] = [null];
  private codeOfWord = new CodeIndex(this.words);
  private search = new TextIndex(this.words);
  /**
   * The values of each word, taken in by the fill, in one array (a typed array per word costs some 100 bytes each, and
   * there are many words): word w's values, ascending, are codes[starts[w] .. starts[w + 1]). While the fill runs, the
   * pairs (word, value) are collected; `later` holds the values taken in after the fill, per word.
   */
  private starts = new Uint32Array(1);
  private codes = new Uint32Array(0);
  private pairs: { words: Growing; values: Growing } | null = { words: new Growing(), values: new Growing() };
  private later = new Map<number, number[]>();
  /** The last value each word was met in while the fill runs (a word repeated in a value is listed once). */
  private lastValue: Int32Array | null = new Int32Array(1024).fill(-1);
  private indexedUpTo = 1;
  /** Characters of the values indexed, and of their distinct words. */
  private valueChars = 0;
  private wordChars = 0;
  /** False once the values proved to be no phrases (words nearly as long as the values): the index then answers nothing. */
  useful = true;

  constructor(private readonly dict: unknown[]) {}

  /** Take in the whole dictionary, yielding between steps (the fill); then lay out the lists and index the words. */
  *build(): Generator<void, void> {
    while (this.useful && this.indexedUpTo < this.dict.length) {
      this.take(Math.min(this.dict.length, this.indexedUpTo + FILL_STEP));
      yield;
    }
    if (!this.useful || !this.pairs) return;
    this.layOut(this.pairs.words, this.pairs.values);
    this.pairs = null;
    this.lastValue = null;
    yield* this.search.build();
  }

  /** Whether `contains x` can be answered here: x is non-empty and holds no separator. */
  covers(x: string): boolean {
    return this.useful && x.length > 0 && !SEPARATOR.test(x);
  }

  /** Set ok[code] = 1 for every value that contains x (x as `covers` allows). */
  mark(x: string, ok: Uint8Array): void {
    if (this.pairs) for (const _ of this.build()); // asked before the fill ended: end it now
    this.take(this.dict.length);
    // the words that hold x, listed by the search rather than found by scanning an answer per word (there are many)
    const found: number[] = [];
    this.search.mark('contains', x, new Uint8Array(this.words.length), found);
    const { starts, codes } = this;
    for (const w of found) {
      if (w + 1 < starts.length) for (let i = starts[w]; i < starts[w + 1]; i++) ok[codes[i]] = 1;
      const added = this.later.get(w);
      if (added) for (const c of added) ok[c] = 1;
    }
  }

  /** Index the values below `upTo` not yet indexed. */
  private take(upTo: number): void {
    for (let c = this.indexedUpTo; c < upTo && this.useful; c++) {
      const value = this.dict[c];
      if (typeof value === 'string') {
        this.valueChars += value.length;
        for (const word of value.split(SEPARATORS)) if (word !== '') this.add(word, c);
      }
      this.indexedUpTo = c + 1;
      if (c >= JUDGED_AFTER && this.wordChars * 2 > this.valueChars) this.drop();
    }
  }

  private add(word: string, value: number): void {
    let w = this.codeOfWord.get(word);
    if (w === undefined) {
      w = this.words.length;
      this.words.push(word);
      this.wordChars += word.length;
      this.codeOfWord.set(word, w);
    }
    if (this.pairs && this.lastValue) {
      if (w >= this.lastValue.length) {
        const bigger = new Int32Array(this.lastValue.length * 2).fill(-1);
        bigger.set(this.lastValue);
        this.lastValue = bigger;
      }
      if (this.lastValue[w] === value) return; // the word again in the same value
      this.lastValue[w] = value;
      this.pairs.words.push(w);
      this.pairs.values.push(value);
      return;
    }
    let list = this.later.get(w);
    if (!list) this.later.set(w, (list = []));
    if (list.at(-1) !== value) list.push(value);
  }

  /** The pairs as one array of values grouped by word (a counting sort: values stay ascending within a word). */
  private layOut(words: Growing, values: Growing): void {
    const starts = new Uint32Array(this.words.length + 1);
    for (let i = 0; i < words.n; i++) starts[words.items[i] + 1]++;
    for (let w = 1; w < starts.length; w++) starts[w] += starts[w - 1];
    const codes = new Uint32Array(words.n);
    const next = starts.slice(0, -1);
    for (let i = 0; i < words.n; i++) codes[next[words.items[i]]++] = values.items[i];
    this.starts = starts;
    this.codes = codes;
  }

  private drop(): void {
    this.useful = false;
    this.words = [null];
    this.codeOfWord = new CodeIndex(this.words);
    this.search = new TextIndex(this.words);
    this.starts = new Uint32Array(1);
    this.codes = new Uint32Array(0);
    this.pairs = null;
    this.lastValue = null;
    this.later.clear();
  }
}
