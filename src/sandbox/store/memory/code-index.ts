// The lookup of a dictionary's codes by value (decision D-84): string keys in one Int32Array of codes (open
// addressing, linear probing), each key read back from the dictionary itself. A Map holds several times more per entry; this
// holds 4 bytes per place at a load of at most a half. Keys that are not strings of the dictionary (the JSON of arrays, `keyOf`) stay in a Map: they are
// few (watch lists) and would be written again for every probe.
import { fnv1a, mix32 } from './hash.ts';
import { LONGEST_PROBE } from './tuning.ts';

/** The place a key's search starts from, before the table's mask (hash.ts). */
export const hashOf = (key: string): number => mix32(fnv1a(key, 0, key.length));

/** Keys that `keyOf` makes for values other than strings start with this (columns.ts). */
const OTHER = '\u0001';

export class CodeIndex {
  /** Codes by hash place; 0 is an empty place (code 0 is null, never looked up). */
  private places = new Int32Array(16);
  private mask = 15;
  private strings = 0;
  private other = new Map<string, number>();
  /** Every key is in `other` (LONGEST_PROBE). */
  private mapped = false;

  /** `dict[code]` is the string key of every code held in `places`. */
  constructor(private readonly dict: readonly unknown[]) {}

  get size(): number {
    return this.strings + this.other.size;
  }

  /** Whether the keys went into the Map (LONGEST_PROBE). */
  get inMap(): boolean {
    return this.mapped;
  }

  get(key: string): number | undefined {
    if (this.mapped || key.startsWith(OTHER)) return this.other.get(key);
    const at = this.find(key);
    return at < 0 ? undefined : this.places[at];
  }

  /** Map `key` to `code`; `dict[code]` must already be `key` (for a string key). */
  set(key: string, code: number): void {
    if (this.mapped || key.startsWith(OTHER)) {
      this.other.set(key, code);
      return;
    }
    const at = this.find(key);
    if (at >= 0) {
      this.places[at] = code;
      return;
    }
    if ((this.strings + 1) * 2 > this.places.length) this.grow();
    this.place(code, hashOf(key));
  }

  delete(key: string): boolean {
    if (this.mapped || key.startsWith(OTHER)) return this.other.delete(key);
    let hole = this.find(key);
    if (hole < 0) return false;
    // backward shift: a later key of the same run moves into the hole unless its home lies after the hole
    const { places, mask } = this;
    for (let j = (hole + 1) & mask; places[j] !== 0; j = (j + 1) & mask) {
      const home = hashOf(this.dict[places[j]] as string) & mask;
      const stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (stays) continue;
      places[hole] = places[j];
      hole = j;
    }
    places[hole] = 0;
    this.strings--;
    return true;
  }

  /** The place holding `key`, or -1. */
  private find(key: string): number {
    const { places, mask, dict } = this;
    for (let at = hashOf(key) & mask; ; at = (at + 1) & mask) {
      const code = places[at];
      if (code === 0) return -1;
      if (dict[code] === key) return at;
    }
  }

  /** Put a code at the first empty place from its hash's; too far from it, every key moves into the Map. */
  private place(code: number, hash: number): void {
    const { places, mask } = this;
    let at = hash & mask;
    for (let probe = 0; places[at] !== 0; probe++, at = (at + 1) & mask) {
      if (probe === LONGEST_PROBE) {
        this.toMap();
        this.other.set(this.dict[code] as string, code);
        return;
      }
    }
    places[at] = code;
    this.strings++;
  }

  /** Twice the places, the keys placed again as they come (the probes of new keys are still counted by `place`). */
  private grow(): void {
    const old = this.places;
    const places = (this.places = new Int32Array(old.length * 2));
    const mask = (this.mask = places.length - 1);
    for (const code of old) {
      if (code === 0) continue;
      let at = hashOf(this.dict[code] as string) & mask;
      while (places[at] !== 0) at = (at + 1) & mask;
      places[at] = code;
    }
  }

  private toMap(): void {
    for (const code of this.places) if (code !== 0) this.other.set(this.dict[code] as string, code);
    this.places = new Int32Array(0);
    this.mask = -1;
    this.strings = 0;
    this.mapped = true;
  }
}
