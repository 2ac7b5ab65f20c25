// What a parsed JSON body must not hold, judged once for both servers (the sandbox and the mock front, whose Prism
// accepts it all): nesting beyond x-care-limits' jsonDepth (D-87, D-100), prototype keys and lone surrogates (D-82).

/** One problem of a body, in the service's words: each server puts it in its own error object. */
export interface HostileProblem {
  detail: string;
  code: string;
}

/** Keys that name an object's prototype machinery: never a field of ours, refused wherever they stand (D-87). */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const LONE_SURROGATE = /\p{Cs}/u; // in u-mode a surrogate pair is one code point: only a lone half matches

/**
 * What a parsed body must not hold, one problem per place: nesting beyond `depthLimit` (one problem, the first
 * place), prototype keys (extra_forbidden, D-35, D-87), and text whose JSON `\uD800`-style escape left half a
 * surrogate pair (D-82: such text has no UTF-8 form, storing it would turn it into U+FFFD). Walked with a stack, not
 * recursion: no body can exhaust the call stack.
 */
export function hostileParts(body: unknown, depthLimit: number): HostileProblem[] {
  const problems: HostileProblem[] = [];
  const stack: Array<{ value: unknown; at: string; depth: number }> = [{ value: body, at: 'body', depth: 0 }];
  let tooDeep = false;
  while (stack.length > 0) {
    const { value, at, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) problems.push({ detail: `${at}: Input should be a valid string, unable to parse raw data as a unicode string`, code: 'string_unicode' });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= depthLimit) {
      if (!tooDeep) problems.push({ detail: `${at}: nested deeper than ${depthLimit} levels`, code: 'too_deep' });
      tooDeep = true;
      continue;
    }
    const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i];
      const where = `${at}.${key}`;
      if (!Array.isArray(value) && PROTOTYPE_KEYS.has(key)) {
        problems.push({ detail: `${where}: Extra inputs are not permitted`, code: 'extra_forbidden' });
        continue;
      }
      if (!Array.isArray(value) && LONE_SURROGATE.test(key)) {
        problems.push({ detail: `${where}: Input should be a valid string, unable to parse raw data as a unicode string`, code: 'string_unicode' });
        continue;
      }
      stack.push({ value: item, at: where, depth: depth + 1 });
    }
  }
  return problems;
}
