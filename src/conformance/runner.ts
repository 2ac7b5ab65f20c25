// Run the registered checks area by area, turn each into a result, and summarise.
import type { CareSpec } from '../spec/types.ts';
import { AREAS, CheckFailure, Skip, type Check, type Need } from './check.ts';
import { ALL_CHECKS } from './checks/index.ts';
import { Context } from './context.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, Interrupted, excerpt, toCurl } from './http.ts';
import { StopRun, preflightCheck } from './preflight.ts';
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
    // Cut short by SIGINT/SIGTERM: not a verdict on the target.
    if (error instanceof Interrupted || ctx.counter.signal?.aborted) return toResult(check, key, started, ctx.counter.total - before, { error: new Skip(interruptedReason(ctx)) });
    return toResult(check, key, started, ctx.counter.total - before, { error });
  }
}

const interruptedReason = (ctx: Context) => `the run was interrupted (${String(ctx.options.signal?.reason ?? 'signal')})`;

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

/** Run the suite against one target. Never throws for a failing target; the report says what failed or why it stopped. */
export async function runSuite(options: RunOptions, checks: Check[] = ALL_CHECKS, spec?: CareSpec): Promise<RunReport> {
  const startedAt = new Date();
  const ctx = new Context(options, spec);
  ctx.counter.timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  ctx.counter.signal = options.signal;
  const wanted = (c: Check) => options.areas.length === 0 || options.areas.includes(c.area);
  const selected = [...checks, ...(options.stateful ? [statefulCheck(options.stateful.runs, options.stateful.seed)] : [])].filter((c) => c.id !== preflightCheck.id && wanted(c));
  const ordered = [...selected.filter((c) => !c.last), ...selected.filter((c) => c.last)];
  const receiver = new Receiver(options.signal);
  ctx.receiver = receiver;
  const results: CheckResult[] = [];
  const record = (r: CheckResult) => {
    results.push(r);
    options.onProgress?.({ kind: 'result', result: r });
  };
  let stopped: RunReport['stopped'];

  // The preflight always runs first, whatever the areas: nothing is written before it proved the environment.
  const preflight = async () => {
    const started = Date.now();
    try {
      const note = await preflightCheck.run(ctx);
      record(toResult(preflightCheck, undefined, started, ctx.counter.total, { note: note ?? undefined }));
    } catch (error) {
      if (error instanceof StopRun) stopped = { kind: 'target', why: redactText(error.why) };
      if (error instanceof Interrupted || options.signal?.aborted) stopped = { kind: 'interrupted', why: interruptedReason(ctx) };
      record(toResult(preflightCheck, undefined, started, ctx.counter.total, { error: stopped?.kind === 'interrupted' ? new Skip(stopped.why) : error }));
    }
  };

  const areas = async () => {
    let currentArea: string | undefined;
    let areaResults: CheckResult[] = [];
    const endArea = () => {
      if (currentArea) options.onProgress?.({ kind: 'area-end', area: currentArea, results: areaResults });
    };
    for (const check of ordered) {
      if (options.signal?.aborted) break;
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
            const r = toResult(check, undefined, Date.now(), 0, { error: error instanceof Interrupted ? new Skip(interruptedReason(ctx)) : error });
            areaResults.push(r);
            record(r);
            continue;
          }
        }
      }
      for (const key of keys) {
        if (options.signal?.aborted) break;
        const r = await runOne(ctx, check, key);
        areaResults.push(r);
        record(r);
      }
    }
    endArea();
  };

  let cleanup: string[] = [];
  try {
    await preflight();
    if (!stopped) await areas();
  } finally {
    // Cleanup goes out however the run ends: its requests are no longer tied to the run's (aborted) signal.
    ctx.counter.signal = undefined;
    cleanup = await ctx.cleanup();
    await receiver.close();
  }
  if (!stopped && options.signal?.aborted) stopped = { kind: 'interrupted', why: interruptedReason(ctx) };
  return {
    target: { environment: options.config.environment, baseUrl: options.config.baseUrl },
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    requests: ctx.counter.total,
    results,
    areas: summarise(results),
    ok: !stopped && results.every((r) => r.status !== 'failed'),
    ...(stopped ? { stopped } : {}),
    left: { ...ctx.createdCounts, problems: cleanup },
  };
}
