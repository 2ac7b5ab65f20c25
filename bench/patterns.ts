// Figures for `match` and `like` on pathological patterns (decision D-68): time per value as the value grows, which
// stays proportional to its length (RE2 and the wildcard matcher never backtrack). Printed, never asserted.
// Run: npm run bench:patterns
import { performance } from 'node:perf_hooks';
import { compileLike, compileRegex } from '../src/grammar/index.ts';

const cases: Array<[string, { test(value: string): boolean }, (n: number) => string]> = [
  ['match (a+)+$', compileRegex('(a+)+$'), (n) => `${'a'.repeat(n)}!`],
  ['match (a?){100}a{100}', compileRegex('(a?){100}a{100}'), (n) => 'a'.repeat(n)],
  ['match \\pL{300}z', compileRegex('\\pL{300}z'), (n) => 'a'.repeat(n)],
  ['like *a*a*a*a*a*a*b', compileLike('*a*a*a*a*a*a*b'), (n) => 'a'.repeat(n)],
  ['like *a?a?a?*b (255 characters)', compileLike(`${'*a?a?a?'.repeat(36)}*b`.slice(0, 255)), (n) => 'a'.repeat(n)],
];

console.log(`${'pattern'.padEnd(34)} ${[30, 160, 1000, 4000].map((n) => `${n} chars`.padStart(12)).join('')}`);
for (const [label, pattern, value] of cases) {
  const cells = [30, 160, 1000, 4000].map((n) => {
    const text = value(n);
    pattern.test(text); // warm up (RE2 builds its DFA lazily)
    const runs = 20;
    const start = performance.now();
    for (let i = 0; i < runs; i++) pattern.test(text);
    return `${((performance.now() - start) / runs).toFixed(3)} ms`.padStart(12);
  });
  console.log(`${label.padEnd(34)} ${cells.join('')}`);
}
