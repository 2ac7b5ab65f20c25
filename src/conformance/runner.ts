// Run the registered checks area by area, turn each into a result, and summarise.
import type { CareSpec } from '../spec/types.ts';
import { AREAS, CheckFailure, Skip, type Check, type Need } from './check.ts';
import { ALL_CHECKS } from './checks/index.ts';
import { Context } from './context.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, Interrupted, ReadOnlyRefused, RequestTimeout, Unreachable, excerpt, toCurl } from './http.ts';
import { PREFLIGHT_TIMEOUT_MS, StopRun, preflightCheck, stillAnswering } from './preflight.ts';
import { redactText } from './redact.ts';
import { Receiver } from './receiver.ts';
import { statefulCheck } from './stateful.ts';
import { sweep } from './sweep.ts';
import type { AreaSummary, CheckResult, FailureContext, RunOptions, RunReport } from './types.ts';

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
  if (error instanceof ReadOnlyRefused) return { ...base, status: 'skipped', reason: 'read-only run: only GET, HEAD and OPTIONS are sent (--allow-writes in production)' };
  if (error instanceof Skip) return { ...base, status: 'skipped', reason: error.reason };
  if (error instanceof CheckFailure) {
    const x = error.exchange;
    return {
      ...base,
      status: 'failed',
      failure: { why: redactText(error.why), curl: x ? toCurl(x) : undefined, status: x?.status, excerpt: x ? excerpt(x) : undefined, context: failureContext(error) },
    };
  }
  // An exception of the suite or the network: still a failure of the check, never a crash of the run.
  return { ...base, status: 'failed', failure: { why: redactText(`error: ${(error as Error)?.message ?? String(error)}`) } };
}

/** The structured part of a failure (D-109): the comparison, redacted, and the exchange it was read from. */
function failureContext(error: CheckFailure): FailureContext | undefined {
  const x = error.exchange;
  const c = error.comparison;
  if (!x && !c) return undefined;
  const redacted = (v: unknown) => (v === undefined ? undefined : JSON.parse(redactText(JSON.stringify({ v }))).v);
  return {
    ...(c ? { expected: redacted(c.expected), actual: redacted(c.actual), ...(c.at ? { at: c.at } : {}) } : {}),
    ...(x ? { exchange: { method: x.method, url: x.url, status: x.status, contentType: x.headers['content-type'], bodyLength: x.bodyLength ?? x.bytes.length } } : {}),
  };
}

async function runOne(ctx: Context, check: Check, key?: string): Promise<{ result: CheckResult; error?: unknown }> {
  const started = Date.now();
  const before = ctx.counter.total;
  for (const need of check.needs ?? []) {
    const reason = unmetNeed(ctx, need);
    if (reason) return { result: toResult(check, key, started, 0, { error: new Skip(reason) }) };
  }
  try {
    const note = await check.run(ctx, key);
    return { result: toResult(check, key, started, ctx.counter.total - before, { note: note ?? undefined }) };
  } catch (error) {
    // Cut short by SIGINT/SIGTERM: not a verdict on the target.
    if (error instanceof Interrupted || ctx.counter.signal?.aborted) return { result: toResult(check, key, started, ctx.counter.total - before, { error: new Skip(interruptedReason(ctx)) }) };
    return { result: toResult(check, key, started, ctx.counter.total - before, { error }), error };
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
  // Read-only until the preflight proved the run may write: no verb that could change data reaches the target.
  const tokenUrl = options.config.authUrl ? `${options.config.authUrl.replace(/\/$/, '')}/oauth/token` : undefined;
  ctx.counter.readOnly = { origins: [new URL(options.config.baseUrl).origin, ...(tokenUrl ? [new URL(tokenUrl).origin] : [])], tokenUrl };
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

  /** A check that met a timeout or a refused connection: is the target still there? If not, the run stops (exit 2). */
  const stopIfSilent = async (r: CheckResult, error: unknown) => {
    if (!(error instanceof RequestTimeout || error instanceof Unreachable)) return;
    if (await stillAnswering(ctx)) return;
    stopped = { kind: 'target', why: redactText(`the target stopped answering during ${r.id}, after ${ctx.counter.total} requests: ${(error as Error).message}`) };
  };

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
    if (ctx.canWrite) ctx.counter.readOnly = undefined;
  };

  const areas = async () => {
    // Each area is started once and ended after its last check, even one that runs last (operations.observed): the
    // console names each area once.
    const lastOf = new Map(ordered.map((c, i) => [c.area, i] as const));
    const byArea = new Map<string, CheckResult[]>();
    const ended = new Set<string>();
    const endArea = (area: string) => options.onProgress?.({ kind: 'area-end', area, results: byArea.get(area)! });
    for (const [index, check] of ordered.entries()) {
      if (options.signal?.aborted) break;
      if (!byArea.has(check.area)) {
        byArea.set(check.area, []);
        options.onProgress?.({ kind: 'area-start', area: check.area, checks: ordered.filter((c) => c.area === check.area).length });
      }
      const areaResults = byArea.get(check.area)!;
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
            await stopIfSilent(r, error);
            if (stopped) break;
            keys = [];
          }
        }
      }
      for (const key of keys) {
        if (options.signal?.aborted) break;
        const { result: r, error } = await runOne(ctx, check, key);
        areaResults.push(r);
        record(r);
        await stopIfSilent(r, error);
        if (stopped) break;
      }
      if (stopped) break;
      if (lastOf.get(check.area) === index) {
        endArea(check.area);
        ended.add(check.area);
      }
    }
    for (const area of byArea.keys()) if (!ended.has(area)) endArea(area);
  };

  let left: RunReport['left'];
  try {
    await preflight();
    if (!stopped) await areas();
  } finally {
    // Cleanup goes out however the run ends: its requests are no longer tied to the run's (aborted) signal. A target
    // that stopped answering gets the preflight's short bound, so a dead target does not hold the run for minutes.
    ctx.counter.signal = undefined;
    if (stopped?.kind === 'target') ctx.counter.timeoutMs = Math.min(ctx.counter.timeoutMs, PREFLIGHT_TIMEOUT_MS);
    const problems = await ctx.cleanup();
    left = await sweep(ctx, problems);
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
    ok: !stopped && results.every((r) => r.status !== 'failed') && left!.items.length === 0,
    ...(stopped ? { stopped } : {}),
    left,
  };
}
