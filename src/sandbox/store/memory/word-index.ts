// Substring search through the words of a string column's values (decision D-84). A word is a longest run of
// characters that are not ASCII white space or punctuation. A needle without such a character lies, wherever it
// occurs, inside one word, so the values that contain it are the values of the words that contain it. Texts written
// from a few phrases (descriptions) have far fewer words than values: the words are searched (a TextIndex of their
// own), and each word found marks its values from its list. A needle found in nearly every value then costs a pass
// over its words' lists, where the search of the joined values met it once per value (about 2.5 ms for 51k values).
import { TextIndex } from './text-index.ts';

/** ASCII white space and punctuation: what ends a word. */
const SEPARATOR = /[\t\n\v\f\r !-/:-@[-`{-~]/;
const SEPARATORS = new RegExp(SEPARATOR.source, 'g');
/** Values taken in per step of the fill. */
const FILL_STEP = 65_536;
/** Past this many values, an index with more than one word per two values is dropped: the values are not phrases. */
const JUDGED_AFTER = 4096;

/** The codes of one word's values, ascending, each once. */
interface Postings {
  codes: Uint32Array;
  n: number;
}

export class WordIndex {
  /** Word code -> word; [0] is null, as in a column's dictionary (TextIndex reads it so). */
  private readonly words: unknown[] = [null];
  private readonly codeOfWord = new Map<string, number>();
  private readonly postings: Postings[] = [{ codes: new Uint32Array(0), n: 0 }];
  private search = new TextIndex(this.words);
  private indexedUpTo = 1;
  /** False once the values proved to be no phrases (too many words): the index then answers nothing. */
  useful = true;

  constructor(private readonly dict: unknown[]) {}

  /** Take in the whole dictionary, yielding between steps (the fill). */
  *build(): Generator<void, void> {
    while (this.useful && this.indexedUpTo < this.dict.length) {
      this.take(Math.min(this.dict.length, this.indexedUpTo + FILL_STEP));
      yield;
    }
    // the lists at their length: doubling left up to half of each unused (a write after the fill grows one again)
    for (const list of this.postings) if (list.codes.length > list.n + 16) list.codes = list.codes.slice(0, list.n);
  }

  /** Whether `contains x` can be answered here: x is non-empty and holds no separator. */
  covers(x: string): boolean {
    return this.useful && x.length > 0 && !SEPARATOR.test(x);
  }

  /** Set ok[code] = 1 for every value that contains x (x as `covers` allows). */
  mark(x: string, ok: Uint8Array): void {
    this.take(this.dict.length);
    const found = new Uint8Array(this.words.length);
    this.search.mark('contains', x, found);
    for (let w = 1; w < found.length; w++) {
      if (found[w] === 0) continue;
      const { codes, n } = this.postings[w];
      for (let i = 0; i < n; i++) ok[codes[i]] = 1;
    }
  }

  /** Index the values below `upTo` not yet indexed. */
  private take(upTo: number): void {
    for (let c = this.indexedUpTo; c < upTo && this.useful; c++) {
      const value = this.dict[c];
      if (typeof value === 'string') for (const word of value.split(SEPARATORS)) if (word !== '') this.add(word, c);
      this.indexedUpTo = c + 1;
      if (c >= JUDGED_AFTER && this.words.length > c / 2) this.drop();
    }
  }

  private add(word: string, code: number): void {
    let w = this.codeOfWord.get(word);
    if (w === undefined) {
      w = this.words.length;
      this.words.push(word);
      this.codeOfWord.set(word, w);
      this.postings.push({ codes: new Uint32Array(4), n: 0 });
    }
    const list = this.postings[w];
    if (list.n > 0 && list.codes[list.n - 1] === code) return; // the word again in the same value
    if (list.n === list.codes.length) {
      const bigger = new Uint32Array(list.codes.length * 2);
      bigger.set(list.codes);
      list.codes = bigger;
    }
    list.codes[list.n++] = code;
  }

  private drop(): void {
    this.useful = false;
    this.words.length = 1;
    this.codeOfWord.clear();
    this.postings.length = 1;
    this.search = new TextIndex(this.words);
  }
}
