// The two pattern languages of the filter grammar (decision D-22): `like` wildcards and `match` regular expressions.

/** Longest `match` pattern accepted (decision D-22). */
export const MAX_REGEX_LENGTH = 256;

const regexCache = new Map<string, RegExp>();
const likeCache = new Map<string, RegExp>();

/** Why a `match` pattern is refused, or null when it is a valid ECMAScript expression in Unicode mode. */
export function regexProblem(pattern: string): string | null {
  if ([...pattern].length > MAX_REGEX_LENGTH) return `regular expression longer than ${MAX_REGEX_LENGTH} characters`;
  try {
    new RegExp(pattern, 'u');
    return null;
  } catch (error) {
    return `invalid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, '')}`;
  }
}

/** The compiled `match` pattern: Unicode mode, unanchored, case-sensitive. */
export function compileRegex(pattern: string): RegExp {
  let regex = regexCache.get(pattern);
  if (!regex) {
    regex = new RegExp(pattern, 'u');
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, regex);
  }
  return regex;
}

/** The `like` pattern as an anchored regex: `*` any run (also empty), `?` one code point, all else literal. */
export function compileLike(pattern: string): RegExp {
  let regex = likeCache.get(pattern);
  if (!regex) {
    let source = '';
    for (const char of pattern) {
      if (char === '*') source += '[^]*';
      else if (char === '?') source += '[^]';
      // Only syntax characters may be escaped in Unicode mode (`\-` would be a syntax error); `-` and `/` are literal here.
      else source += char.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
    }
    regex = new RegExp(`^${source}$`, 'u');
    if (likeCache.size > 1000) likeCache.clear();
    likeCache.set(pattern, regex);
  }
  return regex;
}
