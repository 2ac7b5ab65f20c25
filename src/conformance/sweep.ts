// The run's last word on a target it wrote to: after cleanup, look for what still carries the run's tag (open cases
// whose short description holds it, subscriptions whose URL holds it, unrevoked keys whose label holds it, a contract
// whose external reference holds it) or what the answers show it created and cleanup could not undo; undo what it
// can once more, and name the rest. A run that leaves something behind says so and does not exit 0.
import type { Context } from './context.ts';
import type { HttpClient } from './http.ts';

export interface Leftovers {
  webhooks: number;
  keys: number;
  cases: number;
  /** Why cleanup could not undo something. */
  problems: string[];
  /** Each thing left behind, by id: `case CS0000042 (open)`. */
  items: string[];
}

const ok = (status: number) => (status >= 200 && status < 300) || status === 404;

export async function sweep(ctx: Context, problems: string[]): Promise<Leftovers> {
  const registry = ctx.leftIds();
  const left = { webhooks: new Set(registry.webhooks), keys: new Set(registry.keys), cases: new Set(registry.cases) };
  const contracts: string[] = [];
  const tag = ctx.runTag;
  if (ctx.canWrite) {
    try {
      const listed = { webhooks: new Set<string>(), keys: new Set<string>() };
      for (const client of ctx.clients()) await sweepAccount(ctx, client, tag, left, contracts, listed);
      // What the registry holds and no list shows any more is gone (deleted, revoked) after all.
      for (const id of left.webhooks) if (!listed.webhooks.has(id)) left.webhooks.delete(id);
      for (const id of left.keys) if (!listed.keys.has(id)) left.keys.delete(id);
      for (const id of left.cases) {
        const x = await ctx.call(ctx.customer, 'getCase', { caseId: id });
        if (x.status !== 200 || x.json?.data?.status === ctx.closedStatus()) left.cases.delete(id);
      }
    } catch (err) {
      // Never throws: a sweep that cannot read the lists says so, and what the registry holds stays named.
      problems.push(`the final sweep could not list what carries the run tag ${tag}: ${(err as Error).message}`);
    }
  }
  const items = [
    ...[...left.cases].map((id) => `case ${id} (open)`),
    ...[...left.webhooks].map((id) => `webhook subscription ${id}`),
    ...[...left.keys].map((id) => `API key ${id} (not revoked)`),
    ...contracts.map((id) => `contract ${id} (externalReference still holds ${tag})`),
  ];
  return { webhooks: left.webhooks.size, keys: left.keys.size, cases: left.cases.size, problems, items };
}

async function sweepAccount(ctx: Context, client: HttpClient, tag: string, left: { webhooks: Set<string>; keys: Set<string>; cases: Set<string> }, contracts: string[], listed: { webhooks: Set<string>; keys: Set<string> }): Promise<void> {
  const closed = ctx.closedStatus();
  if (closed !== undefined) {
    const open = await ctx.listAll(client, 'listCases', {}, `filter[shortDescription][contains]=${encodeURIComponent(tag)}&filter[status][ne]=${closed}`);
    for (const c of open.items) {
      const x = await ctx.call(client, 'updateCase', { caseId: c.id }, { json: { status: closed } });
      if (ok(x.status)) left.cases.delete(c.id);
      else left.cases.add(c.id);
    }
  }
  const hooks = await ctx.listAll(client, 'listWebhooks');
  for (const w of hooks.items) {
    if (!(typeof w.url === 'string' && w.url.includes(tag)) && !left.webhooks.has(w.id)) continue;
    const x = await ctx.call(client, 'deleteWebhook', { webhookId: w.id });
    if (ok(x.status)) left.webhooks.delete(w.id);
    else {
      left.webhooks.add(w.id);
      listed.webhooks.add(w.id);
    }
  }
  const keys = await ctx.listAll(client, 'listApiKeys', {}, 'filter[revokedAt][null]');
  for (const k of keys.items) {
    if (!(typeof k.label === 'string' && k.label.includes(tag)) && !left.keys.has(k.id)) continue;
    const x = await ctx.call(client, 'revokeApiKey', { keyId: k.id });
    if (ok(x.status)) left.keys.delete(k.id);
    else {
      left.keys.add(k.id);
      listed.keys.add(k.id);
    }
  }
  const all = await ctx.listAll(client, 'listContracts');
  for (const c of all.items) if (typeof c.externalReference === 'string' && c.externalReference.includes(tag)) contracts.push(c.id);
}
