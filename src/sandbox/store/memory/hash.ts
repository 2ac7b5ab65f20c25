// The string hash of the engine's own tables: 32-bit FNV-1a over UTF-16 code units (the code index's places and the
// text index's gram filters), mixed by murmur3's finalizer where keys differing in one character must spread apart
// (the code index; the gram filters mix more lightly, for the fill's speed).

/** FNV-1a of text[from, to), not yet mixed. */
export function fnv1a(text: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** murmur3's 32-bit finalizer, as an unsigned number. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
