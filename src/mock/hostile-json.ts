// What a parsed JSON body must not hold, judged as the sandbox judges it (D-82, D-87), because Prism accepts it all:
// nesting beyond the description's jsonDepth (x-care-limits, D-100: one problem, at the first place), prototype keys (extra_forbidden) and text whose
// `\uD800`-style escape left half a surrogate pair (string_unicode: such text has no UTF-8 form). One problem per
// place, in the sandbox's words and order. Walked with a stack: no body can exhaust the call stack.
import type { ErrorObject } from './envelope.ts';
import { errorObject } from './envelope.ts';

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const LONE_SURROGATE = /\p{Cs}/u; // in u-mode a surrogate pair is one code point: only a lone half matches
const NOT_UNICODE = 'Input should be a valid string, unable to parse raw data as a unicode string';

export function hostileParts(body: unknown, depthLimit: number): ErrorObject[] {
  const problems: ErrorObject[] = [];
  const stack: Array<{ value: unknown; at: string; depth: number }> = [{ value: body, at: 'body', depth: 0 }];
  let tooDeep = false;
  while (stack.length > 0) {
    const { value, at, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) problems.push(errorObject(400, `${at}: ${NOT_UNICODE}`, 'string_unicode'));
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= depthLimit) {
      if (!tooDeep) problems.push(errorObject(400, `${at}: nested deeper than ${depthLimit} levels`, 'too_deep'));
      tooDeep = true;
      continue;
    }
    const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i];
      const where = `${at}.${key}`;
      if (!Array.isArray(value) && PROTOTYPE_KEYS.has(key)) {
        problems.push(errorObject(400, `${where}: Extra inputs are not permitted`, 'extra_forbidden'));
        continue;
      }
      if (!Array.isArray(value) && LONE_SURROGATE.test(key)) {
        problems.push(errorObject(400, `${where}: ${NOT_UNICODE}`, 'string_unicode'));
        continue;
      }
      stack.push({ value: item, at: where, depth: depth + 1 });
    }
  }
  return problems;
}
