// The two pattern languages of the filter grammar (decisions D-22, D-68): `like` wildcards and `match` regular
// expressions. Both run in time bounded by pattern size × value size, whatever the pattern: a filter is evaluated on
// every row of a list, so a backtracking engine would let one request stall the server (issue 13).
import { RE2JS } from 're2js';

/** Longest `match` pattern accepted, in code points (decision D-22). */
export const MAX_REGEX_LENGTH = 256;
/** Longest `like` pattern accepted, in code points (decision D-68). */
export const MAX_LIKE_LENGTH = 256;
/**
 * Largest compiled `match` program accepted, in RE2 instructions (decision D-68). Counted repetitions multiply
 * (`(a?){200}a{200}` is 1002): matching costs up to program size × value length, so this bounds one comparison.
 */
export const MAX_REGEX_PROGRAM = 1000;

/** What `compileRegex` and `compileLike` answer: a predicate on a value, as RegExp's `test`. */
export interface Pattern {
  test(value: string): boolean;
}

const regexCache = new Map<string, Pattern>();
const likeCache = new Map<string, Pattern>();

function remember(cache: Map<string, Pattern>, key: string, pattern: Pattern): Pattern {
  if (cache.size > 1000) cache.clear();
  cache.set(key, pattern);
  return pattern;
}

/** Why a `match` pattern is refused, or null when RE2 accepts it within the limits (decision D-68). */
export function regexProblem(pattern: string): string | null {
  if ([...pattern].length > MAX_REGEX_LENGTH) return `regular expression longer than ${MAX_REGEX_LENGTH} characters`;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    // RE2 refuses backreferences and lookaround, among others: its own message names the construct.
    const message = (error as Error).message.replace(/^error parsing regexp: /, '');
    return `invalid regular expression (RE2 syntax): ${message}`;
  }
  if (compiled.programSize() > MAX_REGEX_PROGRAM) {
    return `regular expression too large: it compiles to ${compiled.programSize()} instructions, at most ${MAX_REGEX_PROGRAM} (counted repetitions multiply)`;
  }
  return null;
}

/**
 * The compiled `match` pattern: RE2 syntax, unanchored, case-sensitive, on code points; linear in the value. A pattern
 * that is a `like` pattern in disguise (`likeOfRegex`) runs as one on values without a line feed: the same answer, at a
 * fraction of RE2's cost per value (a list tests every distinct value).
 */
export function compileRegex(pattern: string): Pattern {
  const cached = regexCache.get(pattern);
  if (cached) return cached;
  const compiled = RE2JS.compile(pattern);
  const like = likeOfRegex(pattern);
  if (like === null) return remember(regexCache, pattern, { test: (value) => compiled.test(value) });
  const wildcards = compileLike(like);
  return remember(regexCache, pattern, { test: (value) => (value.includes('\n') ? compiled.test(value) : wildcards.test(value)) });
}

/**
 * The `like` pattern (D-22) that a `match` pattern equals on values without a line feed, or null: only for patterns
 * of literals, `.` (one code point but a line feed, so `?` there) and `.*` (`*`), optionally anchored by a leading `^`
 * and a trailing `$` (an unanchored side becomes `*`). Any escape, group, class, alternation, repetition other than
 * `.*`, or anchor elsewhere gives null. `*` and `?` are never literals here: in RE2 they are operators.
 */
export function likeOfRegex(pattern: string): string | null {
  if (/[\\()[\]{}|]/.test(pattern)) return null;
  const points = [...pattern];
  const start = points[0] === '^' ? 1 : 0;
  const end = points.length > start && points[points.length - 1] === '$' ? points.length - 1 : points.length;
  let like = start === 1 ? '' : '*';
  for (let i = start; i < end; i++) {
    const point = points[i];
    const next = i + 1 < end ? points[i + 1] : undefined;
    if (point === '.' && next === '*') {
      if (i + 2 < end && ZERO_OR_MORE.has(points[i + 2])) return null; // `.**`, `.*?`, `.*+`: not ours to read
      like += '*';
      i++;
    } else if (REGEX_META.has(point) && point !== '.') return null;
    else if (next !== undefined && ZERO_OR_MORE.has(next)) return null;
    else like += point === '.' ? '?' : point;
  }
  return end === points.length ? like + '*' : like;
}

/** Why a `like` pattern is refused, or null (decision D-68). */
export function likeProblem(pattern: string): string | null {
  if ([...pattern].length > MAX_LIKE_LENGTH) return `wildcard pattern longer than ${MAX_LIKE_LENGTH} characters`;
  return null;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** One `?` in a `like` pattern: exactly one code point. */
const ANY = null;
type Segment = Array<string | typeof ANY>;

/** Does `segment` match the code points of `text` starting at `at`? */
function segmentAt(text: ArrayLike<string>, at: number, segment: Segment): boolean {
  for (let i = 0; i < segment.length; i++) {
    const want = segment[i];
    if (want !== ANY && text[at + i] !== want) return false;
  }
  return true;
}

/**
 * `like` without backtracking: the pattern is split at `*` into segments of literals and `?`. The first segment must
 * match at the start, the last at the end, and each middle one at its leftmost place after the previous one (taking
 * the leftmost place never loses a match). At most pattern length × value length comparisons.
 */
function wildcardMatcher(pattern: string): Pattern {
  const segments: Segment[] = [[]];
  for (const char of pattern) {
    if (char === '*') segments.push([]);
    else segments[segments.length - 1].push(char === '?' ? ANY : char);
  }
  const first = segments[0];
  const last = segments[segments.length - 1];
  const middle = segments.slice(1, -1).filter((segment) => segment.length > 0);
  /** Each middle segment's literals before its first `?`: on a string, indexOf jumps to the places worth trying. */
  const leads = middle.map((segment) => {
    const any = segment.indexOf(ANY);
    return (any === -1 ? segment : segment.slice(0, any)).join('');
  });
  // the literal runs every match holds: most values lack one, and includes() is far cheaper than the walk below
  const runs = pattern.split(/[*?]/).filter((run) => run.length > 0);
  return {
    test(value: string): boolean {
      for (const run of runs) if (!value.includes(run)) return false;
      // code points: `?` is one, as in D-22; without surrogates, each code unit is one
      const text: ArrayLike<string> = SURROGATE.test(value) ? Array.from(value) : value;
      if (segments.length === 1) return text.length === first.length && segmentAt(text, 0, first);
      const end = text.length - last.length;
      if (end < first.length || !segmentAt(text, 0, first) || !segmentAt(text, end, last)) return false;
      let from = first.length;
      for (let m = 0; m < middle.length; m++) {
        const segment = middle[m];
        const lead = typeof text === 'string' ? leads[m] : '';
        let at = from;
        for (;;) {
          if (lead !== '') at = (text as string).indexOf(lead, at);
          if (at === -1 || at + segment.length > end || segmentAt(text, at, segment)) break;
          at++;
        }
        if (at === -1 || at + segment.length > end) return false;
        from = at + segment.length;
      }
      return true;
    },
  };
}

/**
 * The same matcher on UTF-16 code units, for a pattern without `?` and without surrogates: its literal runs can then
 * only match whole code points of a value, so the code unit positions found by startsWith/indexOf/endsWith are code
 * point positions and the answer is the same, without splitting the value into code points.
 */
function starMatcher(pattern: string): Pattern {
  const segments = pattern.split('*');
  const first = segments[0];
  const last = segments[segments.length - 1];
  const middle = segments.slice(1, -1).filter((segment) => segment.length > 0);
  if (segments.length === 1) return { test: (value) => value === pattern };
  return {
    test(value: string): boolean {
      const end = value.length - last.length;
      if (end < first.length || !value.startsWith(first) || !value.endsWith(last)) return false;
      let from = first.length;
      for (const segment of middle) {
        const at = value.indexOf(segment, from);
        if (at === -1 || at + segment.length > end) return false;
        from = at + segment.length;
      }
      return true;
    },
  };
}

/** The `like` pattern: whole value, `*` any run (also empty), `?` one code point, all else literal, case-sensitive. */
export function compileLike(pattern: string): Pattern {
  const cached = likeCache.get(pattern);
  if (cached) return cached;
  return remember(likeCache, pattern, pattern.includes('?') || SURROGATE.test(pattern) ? wildcardMatcher(pattern) : starMatcher(pattern));
}

/** The characters of a pattern that are not literals once `\ ( ) [ ] { } |` are ruled out. */
const REGEX_META = new Set(['.', '*', '+', '?', '^', '$']);
const ZERO_OR_MORE = new Set(['*', '+', '?']);

/**
 * The longest run of literal text every match of `pattern` holds (at least 2 code points), or null. Only for patterns
 * of literals, `.`, anchors and `* + ?`: any of `\ ( ) [ ] { } |` (escapes, groups and flags, classes, counted
 * repetition, alternation) gives null, as then no run is certain. A run followed by a quantifier loses its last code
 * point (`ab*` only holds `a`). A list evaluates RE2 only on the values holding the run (found by substring search).
 */
export function requiredLiteral(pattern: string): string | null {
  if (/[\\()[\]{}|]/.test(pattern)) return null;
  const points = [...pattern];
  let best: string[] = [];
  let run: string[] = [];
  const end = (next: string | undefined) => {
    const kept = next !== undefined && ZERO_OR_MORE.has(next) ? run.slice(0, -1) : run;
    if (kept.length > best.length) best = kept;
    run = [];
  };
  for (let i = 0; i < points.length; i++) {
    if (REGEX_META.has(points[i])) end(points[i]);
    else run.push(points[i]);
  }
  end(undefined);
  return best.length >= 2 ? best.join('') : null;
}
