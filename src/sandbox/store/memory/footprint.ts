// What the column engine holds, per part (decision D-84, issue 8's memory target): the bytes of its structures, for
// `bench/sandbox-memory.ts`. Typed arrays are counted exactly, each buffer once. Strings, arrays, Maps and objects
// live on V8's heap, whose layout JavaScript cannot read: they are estimated from V8's 64-bit layout without pointer
// compression (Node's): a sequential string of n one-byte characters takes 16 + n bytes rounded up to 8 (two-byte:
// 2n), an array 8 bytes per element plus its headers, a Map about 24 bytes per entry. Each object and distinct string
// is counted once, in the first part that reaches it, so parts that share a structure (a text index reading its
// column's dictionary) do not count it twice: the engine adds the parts in the order that names the owner first.

export interface FootprintPart {
  part: string;
  /** Bytes of typed arrays (exact). */
  buffers: number;
  /** Bytes of strings, arrays, Maps and objects on V8's heap (estimated). */
  heap: number;
}

const FIXED_ARRAY_HEADER = 16;
const JS_OBJECT_HEADER = 24;
const POINTER = 8;
const MAP_ENTRY = 24;

/** V8's size of a sequential string of this text. */
function stringBytes(s: string): number {
  let wide = false;
  for (let i = 0; i < s.length && !wide; i++) wide = s.charCodeAt(i) > 255;
  return (16 + (wide ? 2 : 1) * s.length + 7) & ~7;
}

export class Footprint {
  private readonly seen = new Set<object>();
  private readonly strings = new Set<string>();
  private readonly totals = new Map<string, FootprintPart>();

  /** Count what `root` reaches, not counted before, under `part`. */
  add(part: string, root: unknown): void {
    let entry = this.totals.get(part);
    if (!entry) this.totals.set(part, (entry = { part, buffers: 0, heap: 0 }));
    const stack: unknown[] = [root];
    while (stack.length > 0) {
      const x = stack.pop();
      if (typeof x === 'string') {
        if (!this.strings.has(x)) {
          this.strings.add(x);
          entry.heap += stringBytes(x);
        }
        continue;
      }
      if (x === null || typeof x !== 'object') continue;
      const buffer = ArrayBuffer.isView(x) ? x.buffer : x instanceof ArrayBuffer ? x : undefined;
      if (buffer) {
        if (!this.seen.has(buffer)) {
          this.seen.add(buffer);
          entry.buffers += buffer.byteLength;
        }
        continue;
      }
      if (this.seen.has(x)) continue;
      this.seen.add(x);
      if (Array.isArray(x)) {
        entry.heap += JS_OBJECT_HEADER + FIXED_ARRAY_HEADER + POINTER * x.length;
        for (const v of x) if (v !== null && (typeof v === 'object' || typeof v === 'string')) stack.push(v);
      } else if (x instanceof Map) {
        entry.heap += JS_OBJECT_HEADER + MAP_ENTRY * x.size;
        for (const [k, v] of x) stack.push(k, v);
      } else if (x instanceof Set) {
        entry.heap += JS_OBJECT_HEADER + (MAP_ENTRY - POINTER) * x.size;
        for (const v of x) stack.push(v);
      } else {
        // an object's own fields (a class's, too); functions are not walked
        const values = Object.values(x);
        entry.heap += JS_OBJECT_HEADER + POINTER * values.length;
        stack.push(...values);
      }
    }
  }

  /** The parts in the order they were first added. */
  parts(): FootprintPart[] {
    return [...this.totals.values()];
  }
}
