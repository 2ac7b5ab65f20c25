// Run the registered checks area by area, turn each into a result, and summarise.
import type { CareSpec } from '../spec/types.ts';
import { AREAS, CheckFailure, Skip, type Check, type Need } from './check.ts';
import { ALL_CHECKS } from './checks/index.ts';
import { Context } from './context.ts';
import { excerpt, toCurl } from './http.ts';
import { redactText } from './redact.ts';
import { Receiver } from './receiver.ts';
import { statefulCheck } from './stateful.ts';
import type { AreaSummary, CheckResult, RunOptions, RunReport } from './types.ts';

/** Why a check cannot run in this run, or undefined when it can. */
function unmetNeed(ctx: Context, need: Need): string | undefined {
  switch (need) {
    case 'writes':
      if (ctx.options.stateless) return 'stateless target: the suite does not write to a mock';
      return ctx.canWrite ? undefined : 'production is read-only unless --allow-writes';
    case 'state':
      return ctx.options.stateless ? 'stateless target (--stateless): a mock keeps no data and applies no semantics' : undefined;
    case 'sandbox':
      return ctx.environment === 'sandbox' ? undefined : 'sandbox only: production has no trigger endpoints';
    case 'partner':
      return ctx.partner ? undefined : 'no partner account in the configuration';
    case 'webhooks':
      return ctx.options.publicUrl || ctx.environment === 'sandbox' ? undefined : 'no public URL for the webhook receiver (--public-url)';
  }
}

function toResult(check: Check, key: string | undefined, started: number, requests: number, outcome: { note?: string; error?: unknown }): CheckResult {
  const base = {
    id: key === undefined ? check.id : `${check.id}[${key}]`,
    area: check.area,
    title: key === undefined ? check.title : `${check.title} (${key})`,
    statements: check.statements,
    durationMs: Date.now() - started,
    requests,
  };
  const { error } = outcome;
  if (error === undefined) return { ...base, status: 'passed', note: outcome.note };
  if (error instanceof Skip) return { ...base, status: 'skipped', reason: error.reason };
  if (error instanceof CheckFailure) {
    const x = error.exchange;
    return {
      ...base,
      status: 'failed',
      failure: { why: redactText(error.why), curl: x ? toCurl(x) : undefined, status: x?.status, excerpt: x ? excerpt(x) : undefined },
    };
  }
  // An exception of the suite or the network: still a failure of the check, never a crash of the run.
  return { ...base, status: 'failed', failure: { why: redactText(`error: ${(error as Error)?.message ?? String(error)}`) } };
}

async function runOne(ctx: Context, check: Check, key?: string): Promise<CheckResult> {
  const started = Date.now();
  const before = ctx.counter.total;
  for (const need of check.needs ?? []) {
    const reason = unmetNeed(ctx, need);
    if (reason) return toResult(check, key, started, 0, { error: new Skip(reason) });
  }
  try {
    const note = await check.run(ctx, key);
    return toResult(check, key, started, ctx.counter.total - before, { note: note ?? undefined });
  } catch (error) {
    return toResult(check, key, started, ctx.counter.total - before, { error });
  }
}

export function summarise(results: CheckResult[]): AreaSummary[] {
  const areas: AreaSummary[] = [];
  for (const area of AREAS) {
    const mine = results.filter((r) => r.area === area);
    if (mine.length === 0) continue;
    areas.push({
      area,
      passed: mine.filter((r) => r.status === 'passed').length,
      failed: mine.filter((r) => r.status === 'failed').length,
      skipped: mine.filter((r) => r.status === 'skipped').length,
      durationMs: mine.reduce((s, r) => s + r.durationMs, 0),
      requests: mine.reduce((s, r) => s + r.requests, 0),
      skipReasons: [...new Set(mine.filter((r) => r.status === 'skipped').map((r) => r.reason!))],
    });
  }
  return areas;
}

/** Run the suite against one target. Never throws for a failing target; the report says what failed. */
export async function runSuite(options: RunOptions, checks: Check[] = ALL_CHECKS, spec?: CareSpec): Promise<RunReport> {
  const startedAt = new Date();
  const ctx = new Context(options, spec);
  const wanted = (c: Check) => options.areas.length === 0 || options.areas.includes(c.area);
  const selected = [...checks, ...(options.stateful ? [statefulCheck(options.stateful.runs, options.stateful.seed)] : [])].filter(wanted);
  const ordered = [...selected.filter((c) => !c.last), ...selected.filter((c) => c.last)];
  const receiver = new Receiver();
  ctx.receiver = receiver;
  const results: CheckResult[] = [];
  try {
    let currentArea: string | undefined;
    let areaResults: CheckResult[] = [];
    const endArea = () => {
      if (currentArea) options.onProgress?.({ kind: 'area-end', area: currentArea, results: areaResults });
    };
    for (const check of ordered) {
      if (check.area !== currentArea) {
        endArea();
        currentArea = check.area;
        areaResults = [];
        options.onProgress?.({ kind: 'area-start', area: check.area, checks: ordered.filter((c) => c.area === check.area).length });
      }
      let keys: Array<string | undefined> = [undefined];
      if (check.cases) {
        const blocked = (check.needs ?? []).map((n) => unmetNeed(ctx, n)).find(Boolean);
        if (!blocked) {
          try {
            keys = await check.cases(ctx);
          } catch (error) {
            keys = [undefined];
            const r = toResult(check, undefined, Date.now(), 0, { error });
            results.push(r);
            areaResults.push(r);
            options.onProgress?.({ kind: 'result', result: r });
            continue;
          }
        }
      }
      for (const key of keys) {
        const r = await runOne(ctx, check, key);
        results.push(r);
        areaResults.push(r);
        options.onProgress?.({ kind: 'result', result: r });
      }
    }
    endArea();
  } finally {
    await ctx.cleanup();
    await receiver.close();
  }
  const areas = summarise(results);
  return {
    target: { environment: options.config.environment, baseUrl: options.config.baseUrl },
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    requests: ctx.counter.total,
    results,
    areas,
    ok: results.every((r) => r.status !== 'failed'),
  };
}
