// The targets of issue 8, judged from one run of bench/sandbox.ts: each met or missed, with the figures it was judged
// on, or "not measured" when the run lacked a size or a part (--sizes, --no-mix, --json-server-max, --classes).
// "Nothing lost" is not the bench's to judge: the kill -9, fuzz and SQL = engine = evaluator tests are.
import { TEXT_OPERATORS } from './sandbox-classes.ts';

/** The figures of one size that the targets read (bench/sandbox.ts fills them). */
export interface SizeFigures {
  size: number;
  /** Per class: p50 and p99 of its first requests, ms. */
  classes: Array<{ name: string; operator?: string; p50: number; p99: number }>;
  coldStartMs?: number;
  mixWrites?: { rps: number; p99: number };
  /** Req/s of the sandbox and of json-server on the part of the mix json-server can express, with writes. */
  jsonServer?: { sandbox: number; jsonServer: number };
  rssMb?: number;
}

export interface Verdict {
  target: string;
  /** Undefined: not measured in this run. */
  met?: boolean;
  figures: string;
}

const MATCH = new Set(['match', 'notMatch']);
/** `match` and `notMatch` (regular expressions): the targets give them their own bound. */
export const isMatch = (c: { operator?: string }) => MATCH.has(c.operator ?? '');
/** The issue's text operators (contains, like, startswith, endswith), with their negations: the same search. */
const isText = (c: { operator?: string }) => TEXT_OPERATORS.has(c.operator ?? '');
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;
const worstOf = <T>(items: T[], key: (x: T) => number): T | undefined => items.reduce<T | undefined>((w, x) => (w === undefined || key(x) > key(w) ? x : w), undefined);
const named = (items: Array<{ name: string }>, limit = 8) => items.slice(0, limit).map((c) => c.name).join(', ') + (items.length > limit ? `, and ${items.length - limit} more` : '');

export function judgeTargets(sizes: SizeFigures[]): Verdict[] {
  const at = (size: number) => sizes.find((s) => s.size === size);
  const k100 = at(100_000);
  const m1 = at(1_000_000);
  const out: Verdict[] = [];
  const add = (target: string, ok: boolean | undefined, figures: string) => out.push({ target, met: ok, figures });

  if (k100 && k100.classes.length > 0) {
    const plain = k100.classes.filter((c) => !isMatch(c));
    const slow = plain.filter((c) => !(c.p50 <= 5 && c.p99 <= 25));
    const w50 = worstOf(plain, (c) => c.p50);
    const w99 = worstOf(plain, (c) => c.p99);
    add('100k: every class (except match) p50 ≤ 5 ms, p99 ≤ 25 ms', slow.length === 0, `${plain.length - slow.length} of ${plain.length}; worst p50 ${w50 ? `${ms(w50.p50)} (${w50.name})` : '-'}, worst p99 ${w99 ? `${ms(w99.p99)} (${w99.name})` : '-'}${slow.length ? `; missed: ${named(slow)}` : ''}`);
    const matches = k100.classes.filter(isMatch);
    const wm = worstOf(matches, (c) => c.p50);
    add('100k: match p50 ≤ 25 ms', wm ? wm.p50 <= 25 : undefined, wm ? `worst ${ms(wm.p50)} (${wm.name})` : 'no match class measured');
  } else add('100k: every class p50 ≤ 5 ms, p99 ≤ 25 ms; match p50 ≤ 25 ms', undefined, 'not measured (no 100k classes in this run)');

  const mix = k100?.mixWrites;
  add('100k mix with 5 % writes: ≥ 1,500 req/s, p99 ≤ 25 ms', mix ? mix.rps >= 1500 && mix.p99 <= 25 : undefined, mix ? `${Math.round(mix.rps)} req/s, p99 ${ms(mix.p99)}` : 'not measured');
  const js = k100?.jsonServer;
  add('100k: ≥ 100x json-server on the same mix', js ? js.sandbox / js.jsonServer >= 100 : undefined, js ? `${Math.round(js.sandbox / js.jsonServer)}x (${Math.round(js.sandbox)} against ${js.jsonServer.toFixed(1)} req/s)` : 'not measured');

  // '1M: every class p50 ≤ 3x its 10k p50' is retired (issue 39): a new fast path comes only with the bench class it
  // moves, not to bend a curve
  const text = m1?.classes.filter(isText) ?? [];
  const wt = worstOf(text, (c) => c.p50);
  add('1M: text operators p50 ≤ 20 ms', wt ? wt.p50 <= 20 : undefined, wt ? `worst ${ms(wt.p50)} (${wt.name})` : 'not measured');
  add('1M: cold start on an existing database < 1 s', m1?.coldStartMs !== undefined ? m1.coldStartMs < 1000 : undefined, m1?.coldStartMs !== undefined ? `${Math.round(m1.coldStartMs)} ms` : 'not measured');
  add('1M: RSS < 300 MB (after the mix)', m1?.rssMb !== undefined ? m1.rssMb < 300 : undefined, m1?.rssMb !== undefined ? `${Math.round(m1.rssMb)} MB` : 'not measured');
  return out;
}

/** One line per target: MET, MISSED or "not measured". */
export function formatVerdicts(verdicts: Verdict[]): string[] {
  return verdicts.map((v) => `${(v.met === undefined ? 'not measured' : v.met ? 'MET' : 'MISSED').padEnd(13)} ${v.target}: ${v.figures}`);
}
