// The targets of issue 8 as bench/sandbox.ts judges them (bench/sandbox-targets.ts): the thresholds, the classes each
// one reads, and "not measured" where a run lacks the figures.
import { describe, expect, it } from 'vitest';
import { judgeTargets } from '../bench/sandbox-targets.ts';
import type { SizeFigures, Verdict } from '../bench/sandbox-targets.ts';

const cls = (name: string, operator: string | undefined, p50: number, p99 = p50) => ({ name, operator, p50, p99 });
const verdict = (verdicts: Verdict[], start: string) => verdicts.find((v) => v.target.startsWith(start))!;

const k10: SizeFigures = { size: 10_000, classes: [cls('sort=id', undefined, 0.5), cls('a contains', 'contains', 0.5), cls('a match', 'match', 1)] };
const k100: SizeFigures = {
  size: 100_000,
  classes: [cls('sort=id', undefined, 1, 24.9), cls('a contains', 'contains', 5, 10), cls('a match', 'match', 25, 90)],
  mixWrites: { rps: 1500, p99: 25 },
  jsonServer: { sandbox: 1000, jsonServer: 10 },
};
const m1: SizeFigures = {
  size: 1_000_000,
  classes: [cls('sort=id', undefined, 1.5), cls('a contains', 'notContains', 1.4), cls('a match', 'match', 30)],
  coldStartMs: 999,
  rssMb: 299,
};

describe('issue 8 targets judged from a run', () => {
  it('meets every target on the thresholds themselves', () => {
    const verdicts = judgeTargets([k10, k100, m1]);
    expect(verdicts.filter((v) => v.met !== true)).toEqual([]);
    expect(verdicts).toHaveLength(7);
  });

  it('judges no longer the 1M scaling ratio (retired by issue 39), however far a class grows', () => {
    const verdicts = judgeTargets([k10, { ...m1, classes: [cls('sort=id', undefined, 50)] }, k100]);
    expect(verdicts.map((v) => v.target).filter((t) => t.includes('10k'))).toEqual([]);
  });

  it('misses each target just past its threshold, naming what missed', () => {
    const verdicts = judgeTargets([
      k10,
      { ...k100, classes: [cls('sort=id', undefined, 1, 25.1), cls('a contains', 'contains', 5.1), cls('a match', 'match', 25.1)], mixWrites: { rps: 1499, p99: 20 }, jsonServer: { sandbox: 999, jsonServer: 10 } },
      { ...m1, classes: [cls('sort=id', undefined, 1.51), cls('a contains', 'contains', 20.1)], coldStartMs: 1000, rssMb: 300 },
    ]);
    expect(verdicts.every((v) => v.met === false)).toBe(true);
    expect(verdict(verdicts, '100k: every class').figures).toContain('0 of 2');
    expect(verdict(verdicts, '100k: every class').figures).toContain('missed: sort=id, a contains');
    expect(verdict(verdicts, '1M: text operators').figures).toBe('worst 20.1 ms (a contains)');
    expect(verdict(verdicts, '1M: RSS').figures).toBe('300 MB');
  });

  it('says "not measured" for what the run lacks, rather than met or missed', () => {
    const verdicts = judgeTargets([{ ...k100, mixWrites: undefined, jsonServer: undefined }]);
    expect(verdict(verdicts, '100k: every class').met).toBe(true);
    for (const start of ['100k mix', '100k: ≥ 100x', '1M: text', '1M: cold start', '1M: RSS']) expect(verdict(verdicts, start).met, start).toBeUndefined();
  });
});
