// `like` and `match` (decisions D-22, D-68): time bounded whatever the pattern, RE2's dialect, the limits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { compileLike, compileRegex, likeOfRegex, likeProblem, parseListQuery, regexProblem, requiredLiteral } from '../src/grammar/index.ts';
import { loadSpec } from '../src/spec/index.ts';

const spec = loadSpec();
const casesList = spec.operation('listCases').list!;

/** Milliseconds one call takes. */
function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

describe('pathological patterns (issue 13) answer in bounded time', () => {
  // The bound is generous (the machine is shared and loaded); a backtracking engine takes seconds to hours on these.
  const BOUND_MS = 1000;

  it('match (a+)+$ against 29 a then ! (5.6 s with a backtracking engine), and against 4000 a', () => {
    const regex = compileRegex('(a+)+$');
    expect(timed(() => expect(regex.test(`${'a'.repeat(29)}!`)).toBe(false))).toBeLessThan(BOUND_MS);
    expect(timed(() => expect(regex.test(`${'a'.repeat(4000)}!`)).toBe(false))).toBeLessThan(BOUND_MS);
  });

  it('like *a*a*a*a*a*a*b against 60 a (4.1 s with a regex translation), and against 4000 a', () => {
    const like = compileLike('*a*a*a*a*a*a*b');
    expect(timed(() => expect(like.test('a'.repeat(60))).toBe(false))).toBeLessThan(BOUND_MS);
    expect(timed(() => expect(like.test('a'.repeat(4000))).toBe(false))).toBeLessThan(BOUND_MS);
    const longest = compileLike(`${'*a'.repeat(127)}*`); // 255 characters
    expect(timed(() => expect(longest.test('a'.repeat(4000))).toBe(true))).toBeLessThan(BOUND_MS);
  });
});

describe('match: RE2 syntax', () => {
  it('refuses what RE2 refuses: backreferences, lookaround, invalid syntax; keeps the construct in the message', () => {
    expect(regexProblem('(a)\\1')).toMatch(/^invalid regular expression \(RE2 syntax\): .*\\1/);
    expect(regexProblem('(?=a)')).toMatch(/^invalid regular expression \(RE2 syntax\): .*\(\?=/);
    expect(regexProblem('(?<=a)b')).toMatch(/^invalid regular expression/);
    expect(regexProblem('(')).toMatch(/^invalid regular expression/);
  });

  it('refuses a pattern whose compiled program is too large, and one longer than 256 code points', () => {
    expect(regexProblem('(a?){200}a{200}')).toMatch(/too large/);
    expect(regexProblem('(a?){100}a{100}')).toBeNull();
    expect(regexProblem('😀'.repeat(256))).toBeNull();
    expect(regexProblem('a'.repeat(257))).toMatch(/longer than 256/);
  });

  it('is unanchored, case-sensitive, on code points', () => {
    expect(compileRegex('rint').test('Printer')).toBe(true);
    expect(compileRegex('^rint').test('Printer')).toBe(false);
    expect(compileRegex('printer').test('Printer')).toBe(false);
    expect(compileRegex('^.$').test('😀')).toBe(true);
    expect(compileRegex('\\p{Greek}').test('αβ')).toBe(true);
  });
});

describe('requiredLiteral: the text every match of a pattern holds (a list runs RE2 only where it is)', () => {
  it('takes the longest literal run, a quantified last code point dropped, and gives up on groups, classes, escapes, alternation', () => {
    expect(requiredLiteral('^Teams.*audio')).toBe('Teams');
    expect(requiredLiteral('^VPN.*drops$')).toBe('drops');
    expect(requiredLiteral('printers*x')).toBe('printer');
    expect(requiredLiteral('ab+c?d')).toBe(null);
    expect(requiredLiteral('café ☕.x')).toBe('café ☕');
    for (const p of ['(Teams).*', 'Tea[m]s', 'Te\\ams', 'Teams|VPN', 'Teams{2}', '(?i)teams']) expect(requiredLiteral(p)).toBe(null);
  });

  it('is held by every value the pattern matches', () => {
    const alphabet = fc.constantFrom('a', 'b', 'é', '😀', ' ', '.', '*', '+', '?', '^', '$');
    let matched = 0;
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 8 }), fc.array(fc.constantFrom('a', 'b', 'é', '😀', ' ', ''), { minLength: 9, maxLength: 9 }), (parts, fill) => {
        const pattern = parts.join('');
        // the pattern's literals with random text around and between them: often a match, not always
        const text = parts.map((p, i) => fill[i] + (/[.*+?^$]/.test(p) ? '' : p)).join('') + fill[8];
        const literal = requiredLiteral(pattern);
        if (literal === null || regexProblem(pattern) !== null) return;
        if (!compileRegex(pattern).test(text)) return;
        matched++;
        expect(text.includes(literal)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(matched).toBeGreaterThan(30); // not vacuous: some draws do match
  });
});

describe('likeOfRegex: a match pattern that is a like pattern runs as one (same answers as RE2)', () => {
  it('reads literals, . and .* between optional anchors; gives up on everything else', () => {
    expect(likeOfRegex('^Reported.*40.')).toBe('Reported*40?*');
    expect(likeOfRegex('VPN')).toBe('*VPN*');
    expect(likeOfRegex('^a.b$')).toBe('a?b');
    expect(likeOfRegex('^$')).toBe('');
    expect(likeOfRegex('')).toBe('**');
    for (const p of ['a+', 'ab?', 'a*', '.+', '.?', '.*?', 'a^b', 'a$b', '[a]', '(a)', 'a|b', 'a{2}', '\\.', '(?i)a']) expect(likeOfRegex(p), p).toBe(null);
  });

  it('agrees with RE2 on any pattern of a, b, 😀, ., *, +, ?, ^, $ and any value of a, b, 😀, line feed, carriage return, lone surrogates', () => {
    const pattern = fc.string({ unit: fc.constantFrom('a', 'b', '😀', '.', '.*', '*', '+', '?', '^', '$'), maxLength: 7 });
    const value = fc.string({ unit: fc.constantFrom('a', 'b', '😀', '\n', '\r', '\uD83D', '\uDE00'), maxLength: 8 });
    let translated = 0;
    fc.assert(fc.property(pattern, value, (p, v) => {
      if (regexProblem(p) !== null) return;
      if (likeOfRegex(p) !== null) translated++;
      expect(compileRegex(p).test(v), `${JSON.stringify(p)} on ${JSON.stringify(v)}`).toBe(RE2JS.compile(p).test(v));
    }), { numRuns: 5000, seed: 8 });
    expect(translated).toBeGreaterThan(500); // not vacuous: many draws take the like path
  });
});

describe('like without backtracking', () => {
  /** The meaning of D-22, spelt as a (backtracking) regex: fine as an oracle on short inputs. */
  const oracle = (pattern: string, value: string) => {
    let source = '';
    for (const char of pattern) source += char === '*' ? '[^]*' : char === '?' ? '[^]' : char.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
    return new RegExp(`^${source}$`, 'u').test(value);
  };

  it('agrees with the regex meaning on any pattern of a, b, 😀, *, ? and any value of a, b, 😀', () => {
    const pattern = fc.string({ unit: fc.constantFrom('a', 'b', '😀', '*', '?'), maxLength: 8 });
    const value = fc.string({ unit: fc.constantFrom('a', 'b', '😀'), maxLength: 10 });
    fc.assert(fc.property(pattern, value, (p, v) => {
      expect(compileLike(p).test(v), `${p} on ${v}`).toBe(oracle(p, v));
    }), { numRuns: 3000 });
  });

  it('agrees on star-only patterns (the code-unit matcher, D-84) with values holding pairs, lone surrogates and NUL', () => {
    const pattern = fc.string({ unit: fc.constantFrom('a', 'b', 'ab', '\u0000', '*'), maxLength: 8 });
    const value = fc.string({ unit: fc.constantFrom('a', 'b', '😀', '\uD83D', '\uDE00', '\u0000'), maxLength: 10 });
    fc.assert(fc.property(pattern, value, (p, v) => {
      expect(compileLike(p).test(v), `${p} on ${v}`).toBe(oracle(p, v));
    }), { numRuns: 3000, seed: 84 });
  });

  it('limits the pattern to 256 code points', () => {
    expect(likeProblem('*'.repeat(256))).toBeNull();
    expect(likeProblem('*'.repeat(257))).toMatch(/longer than 256/);
  });
});

describe('the grammar refuses patterns over the limits with 400 invalid_filter_value', () => {
  const errorsOf = (query: string) => parseListQuery(query, casesList, spec.operators).errors;
  it.each([
    ['like', `${'*'.repeat(257)}`],
    ['notLike', `${'a'.repeat(257)}`],
    ['match', '(a)%5C1'],
    ['notMatch', '(%3F%3Da)'],
  ])('%s', (operator, value) => {
    const query = `filter[shortDescription][${operator}]=${value}`;
    expect(errorsOf(query)).toEqual([expect.objectContaining({ location: `query.filter.shortDescription.${operator}`, code: 'invalid_filter_value' })]);
  });
});
