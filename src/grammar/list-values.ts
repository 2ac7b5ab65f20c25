// Comma-separated values of list operators (decision D-23): `,` separates, `\,` is a literal comma, `\\` a backslash.

export type SplitResult = { ok: true; values: string[] } | { ok: false; problem: string };

/** Split a raw list value. An empty string is one empty value; a dangling or unknown escape is a problem. */
export function splitList(raw: string): SplitResult {
  const values: string[] = [];
  let current = '';
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i];
    if (char === ',') {
      values.push(current);
      current = '';
    } else if (char === '\\') {
      const next = raw[i + 1];
      if (next !== ',' && next !== '\\') {
        return { ok: false, problem: next === undefined ? 'a backslash at the end of a list value must be escaped as \\\\' : `unknown escape \\${next} in a list value (only \\, and \\\\ are allowed)` };
      }
      current += next;
      i++;
    } else {
      current += char;
    }
  }
  values.push(current);
  return { ok: true, values };
}

/** Escape one value so that `splitList` gives it back whole. */
export function escapeListValue(value: string): string {
  return value.replace(/[\\,]/g, (char) => `\\${char}`);
}

/** Join values into one list value, escaping commas and backslashes inside them. */
export function joinList(values: readonly string[]): string {
  return values.map(escapeListValue).join(',');
}
