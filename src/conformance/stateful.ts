// The property-based stateful run (`--stateful N`): N random sequences of case creates, updates, contract
// assignments, comments and lists, each judged against a model built from the target's own answers: a created or
// changed case appears in exactly the lists that should hold it, with the right totalCount; a case's comment list
// counts its comments. fast-check generates and shrinks the sequences; the smallest failing one is printed as the
// curl commands that reproduce it. Each sequence works under its own marker, so lists never depend on other data.
import fc from 'fast-check';
import { serializeFilter } from '../grammar/index.ts';
import { CheckFailure, expect, expectStatus, type Check } from './check.ts';
import type { Context } from './context.ts';
import { MARK } from './context.ts';
import { toCurl, type Exchange } from './http.ts';

interface CaseModel {
  contract: string;
  priority: number;
  status: number;
}

interface Model {
  cases: Map<string, CaseModel>;
  comments: Map<string, number>;
}

interface Real {
  ctx: Context;
  marker: string;
  contracts: string[];
  /** The sequence's requests as curl commands (not the exchanges: a long run would keep every answer). */
  log: string[];
}

type Change = { priority: number } | { status: number } | { contract: number };
type ListFilter = { kind: 'none' } | { kind: 'priority'; value: number } | { kind: 'status'; value: number } | { kind: 'contract'; index: number };

const pick = <T>(m: Map<string, T>, index: number): string => [...m.keys()][index % m.size];

async function call(real: Real, operationId: string, params: Record<string, string>, opts: { json?: unknown; query?: string }): Promise<Exchange> {
  const x = await real.ctx.call(real.ctx.customer, operationId, params, opts);
  real.log.push(toCurl(x));
  return x;
}

class CreateCase implements fc.AsyncCommand<Model, Real> {
  constructor(readonly priority: number | undefined, readonly contract: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const body: Record<string, unknown> = { contract: r.contracts[this.contract % r.contracts.length], shortDescription: `${MARK} stateful ${r.marker}` };
    if (this.priority !== undefined) body.priority = this.priority;
    const x = await call(r, 'createCase', {}, { json: body });
    expectStatus(x, 201, 'createCase');
    const d = x.json.data;
    expect(d.contract === body.contract && (this.priority === undefined || d.priority === this.priority), `createCase answered contract ${d.contract}, priority ${d.priority} for ${JSON.stringify(body)}`, x);
    m.cases.set(d.id, { contract: d.contract, priority: d.priority, status: d.status });
    m.comments.set(d.id, 0);
  }
  toString = () => `createCase(priority ${this.priority ?? 'default'}, contract #${this.contract})`;
}

class UpdateCase implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number, readonly change: Change) {}
  check = (m: Readonly<Model>) => m.cases.size > 0;
  async run(m: Model, r: Real) {
    const id = pick(m.cases, this.index);
    const body = 'contract' in this.change ? { contract: r.contracts[this.change.contract % r.contracts.length] } : this.change;
    const x = await call(r, 'updateCase', { caseId: id }, { json: body });
    expectStatus(x, 200, 'updateCase');
    const d = x.json.data;
    for (const [k, v] of Object.entries(body)) expect(d[k] === v, `updateCase ${id} ${JSON.stringify(body)} answered ${k} ${JSON.stringify(d[k])}`, x);
    m.cases.set(id, { contract: d.contract, priority: d.priority, status: d.status });
  }
  toString = () => `updateCase(#${this.index}, ${JSON.stringify(this.change)})`;
}

class Comment implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.cases.size > 0;
  async run(m: Model, r: Real) {
    const id = pick(m.cases, this.index);
    const x = await call(r, 'createCaseComment', { caseId: id }, { json: { text: `${MARK} stateful ${r.marker}`, contact: r.ctx.config.customer.contacts[0] } });
    expectStatus(x, 201, 'createCaseComment');
    m.comments.set(id, (m.comments.get(id) ?? 0) + 1);
  }
  toString = () => `comment(#${this.index})`;
}

class ListCases implements fc.AsyncCommand<Model, Real> {
  constructor(readonly filter: ListFilter, readonly size: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const f = this.filter;
    const extra: Record<string, unknown> = f.kind === 'none' ? {} : f.kind === 'contract' ? { contract: r.contracts[f.index % r.contracts.length] } : { [f.kind]: f.value };
    const filter = serializeFilter({ shortDescription: { contains: r.marker }, ...extra }, r.ctx.spec.operators).join('&');
    const expected = [...m.cases].filter(([, c]) => Object.entries(extra).every(([k, v]) => (c as any)[k] === v)).map(([id]) => id).sort();
    const all = await call(r, 'listCases', {}, { query: `${filter}&page[size]=200` });
    expectStatus(all, 200, 'listCases');
    const got = (all.json.data as any[]).map((c) => c.id).sort();
    expect(JSON.stringify(got) === JSON.stringify(expected) && all.json.meta.page.totalCount === expected.length,
      `listCases ${JSON.stringify(extra)}: the model holds ${expected.length} case(s) [${expected.join(', ')}], the list answered ${got.length} [${got.join(', ')}] with totalCount ${all.json.meta.page.totalCount}`, all);
    const page = await call(r, 'listCases', {}, { query: `${filter}&page[size]=${this.size}&page[number]=1` });
    expectStatus(page, 200, 'listCases');
    expect(page.json.meta.page.totalCount === expected.length && page.json.data.length === Math.min(this.size, expected.length),
      `listCases ${JSON.stringify(extra)} page[size]=${this.size}: totalCount ${page.json.meta.page.totalCount} and ${page.json.data.length} item(s), the model holds ${expected.length}`, page);
  }
  toString = () => `listCases(${JSON.stringify(this.filter)}, page size ${this.size})`;
}

class ListComments implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.cases.size > 0;
  async run(m: Model, r: Real) {
    const id = pick(m.cases, this.index);
    const x = await call(r, 'listCaseComments', { caseId: id }, { query: 'page[size]=1' });
    expectStatus(x, 200, 'listCaseComments');
    expect(x.json.meta.page.totalCount === m.comments.get(id), `listCaseComments ${id}: totalCount ${x.json.meta.page.totalCount}, the model holds ${m.comments.get(id)} comment(s)`, x);
  }
  toString = () => `listComments(#${this.index})`;
}

function enumOf(ctx: Context, schema: string): number[] {
  return (ctx.spec.document.components?.schemas?.[schema]?.enum ?? []) as number[];
}

export interface StatefulOutcome {
  ok: boolean;
  runs: number;
  seed: number;
  requests: number;
  /** The shrunk counterexample: the commands, why it failed, and the requests as curl commands. */
  counterexample?: { commands: string; why: string; curl: string[] };
}

export async function runStateful(ctx: Context, runs: number, seed: number, maxCommands = 12): Promise<StatefulOutcome> {
  const contracts = [...(await ctx.fixtures.controlledContracts())];
  const priorities = enumOf(ctx, 'CasePriority');
  const statuses = enumOf(ctx, 'CaseStatus');
  const index = fc.nat({ max: 20 });
  const change: fc.Arbitrary<Change> = fc.oneof(
    fc.constantFrom(...priorities).map((priority) => ({ priority })),
    fc.constantFrom(...statuses).map((status) => ({ status })),
    fc.nat({ max: 5 }).map((contract) => ({ contract })),
  );
  const listFilter: fc.Arbitrary<ListFilter> = fc.oneof(
    fc.constant({ kind: 'none' as const }),
    fc.constantFrom(...priorities).map((value) => ({ kind: 'priority' as const, value })),
    fc.constantFrom(...statuses).map((value) => ({ kind: 'status' as const, value })),
    fc.nat({ max: 5 }).map((i) => ({ kind: 'contract' as const, index: i })),
  );
  const commands = fc.commands([
    fc.tuple(fc.option(fc.constantFrom(...priorities), { nil: undefined }), fc.nat({ max: 5 })).map(([p, c]) => new CreateCase(p, c)),
    fc.tuple(index, change).map(([i, c]) => new UpdateCase(i, c)),
    index.map((i) => new Comment(i)),
    fc.tuple(listFilter, fc.integer({ min: 1, max: 4 })).map(([f, s]) => new ListCases(f, s)),
    index.map((i) => new ListComments(i)),
  ], { maxCommands });
  let sequence = 0;
  let lastFailure: { log: string[]; why: string } | undefined;
  const before = ctx.counter.total;
  const result = await fc.check(
    fc.asyncProperty(commands, async (cmds) => {
      const real: Real = { ctx, marker: `st${ctx.runTag}x${++sequence}`, contracts, log: [] };
      try {
        await fc.asyncModelRun(() => ({ model: { cases: new Map(), comments: new Map() }, real }), cmds);
      } catch (error) {
        lastFailure = { log: real.log, why: error instanceof CheckFailure ? error.why : (error as Error).message };
        throw error;
      }
    }),
    { numRuns: runs, seed, endOnFailure: false },
  );
  const outcome: StatefulOutcome = { ok: !result.failed, runs: result.numRuns, seed, requests: ctx.counter.total - before };
  if (result.failed && lastFailure) {
    outcome.counterexample = { commands: String(result.counterexample?.[0] ?? ''), why: lastFailure.why, curl: lastFailure.log };
  }
  return outcome;
}

/** The stateful run as a check, added to a run by `--stateful N` (never part of the default registry). */
export function statefulCheck(runs: number, seed: number): Check {
  return {
    id: 'resources.stateful',
    area: 'resources',
    title: `Random sequences of creates, updates, comments, contract assignments and lists agree with a model of the answers (${runs} sequences)`,
    statements: ['S1.page-meta', 'S1.filter-semantics', 'S1.contract-scoping'],
    needs: ['writes', 'state'],
    async run(ctx) {
      const out = await runStateful(ctx, runs, seed);
      if (out.counterexample) {
        const c = out.counterexample;
        throw new CheckFailure(`stateful run (seed ${seed}) failed after shrinking: ${c.why}\n  sequence: ${c.commands}\n  to reproduce:\n    ${c.curl.join('\n    ')}`);
      }
      return `${out.runs} sequences, seed ${seed}, ${out.requests} requests`;
    },
  };
}
