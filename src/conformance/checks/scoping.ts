// Area "scoping": a contract the account does not control (or that does not exist) is 403, given directly and by
// context (its case, comment, attachment, event); no list ever returns an item of such a contract.
import { Skip, expect, expectErrors, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { MARK } from '../context.ts';
import type { HttpClient } from '../http.ts';

const S = ['S5.contract-403', 'S7.status-403', 'S1.contract-scoping'];

function foreignContract(ctx: Context): string {
  const c = ctx.config.foreignContract;
  if (!c) throw new Skip('no foreignContract in the configuration');
  return c;
}

const missingContract = (ctx: Context) => `CT9${ctx.runTag.toUpperCase()}`;

/** A case of a contract the customer does not control, with a comment, an attachment and an event (via the partner). */
async function foreignCase(ctx: Context): Promise<{ caseId: string; commentId?: string; attachmentId?: string; eventId?: string; contract: string }> {
  return ctx.memo('foreign-case', async () => {
    const partner = ctx.partnerClient();
    const own = await ctx.fixtures.controlledContracts(ctx.customer);
    const theirs = await ctx.fixtures.controlledContracts(partner);
    const contract = [...theirs].find((c) => !own.has(c));
    if (!contract) throw new Skip('every contract of the partner is also the customer\'s: no case by context to test');
    if (!ctx.canWrite) {
      const r = await ctx.list(partner, 'listCases', {}, `filter[contract]=${encodeURIComponent(contract)}&page[size]=1`);
      if (!r.items.length) throw new Skip(`read-only run and the partner has no case under ${contract}`);
      return { caseId: r.items[0].id, contract };
    }
    const created = await ctx.call(partner, 'createCase', {}, { json: { contract, shortDescription: `${MARK} scoping ${ctx.runTag}` } });
    expectStatus(created, 201, 'the partner creating a case under its own contract');
    const caseId = created.json.data.id;
    const contact = ctx.config.partner!.contacts[0];
    let commentId: string | undefined;
    if (contact) {
      const c = await ctx.call(partner, 'createCaseComment', { caseId }, { json: { text: `${MARK} scoping`, contact } });
      expectStatus(c, 201, 'the partner commenting');
      commentId = c.json.data.id;
    }
    const { multipart } = await import('../fixtures.ts');
    const m = multipart('scoping.txt', 'text/plain', Buffer.from('scoping'));
    const a = await ctx.call(partner, 'uploadCaseAttachment', { caseId }, { body: m.body, headers: { 'content-type': m.contentType } });
    expectStatus(a, 201, 'the partner uploading an attachment');
    let eventId: string | undefined;
    if (ctx.environment === 'sandbox') {
      const e = await ctx.call(partner, 'triggerCaseUpdated', {}, { json: { caseId, updated: ['status'] } });
      expectStatus(e, 202, 'the partner triggering an event');
      eventId = e.json.data.id;
    }
    return { caseId, commentId, attachmentId: a.json.data.id, eventId, contract };
  });
}

async function expect403(ctx: Context, client: HttpClient, op: string, params: Record<string, string>, what: string, opts: { json?: unknown; query?: string } = {}) {
  const x = await ctx.call(client, op, params, opts);
  expectErrors(x, 403, `${op} ${what}`);
}

/** Lists without path parameters whose items name their contract: the ones that could leak a foreign item. */
function scopedLists(ctx: Context): string[] {
  return ctx.operations()
    .filter((op) => op.list && op.method === 'get' && !op.parameters.some((p) => p.in === 'path'))
    .filter((op) => op.list!.itemSchema !== 'Contract' && 'contract' in (ctx.spec.resolve(`#/components/schemas/${op.list!.itemSchema}`)?.properties ?? {}))
    .map((op) => op.operationId);
}

export const scopingChecks: Check[] = [
  {
    id: 'scoping.direct',
    area: 'scoping',
    title: 'A foreign or unknown contract given directly is 403',
    statements: [...S, 'D-30.contract-filter'],
    needs: ['state'],
    async run(ctx) {
      const foreign = foreignContract(ctx);
      for (const c of [foreign, missingContract(ctx)]) {
        await expect403(ctx, ctx.customer, 'getContract', { contractId: c }, `of ${c}`);
        await expect403(ctx, ctx.customer, 'listCases', {}, `filtered on contract ${c} (D-30)`, { query: `filter[contract]=${encodeURIComponent(c)}` });
        await expect403(ctx, ctx.customer, 'listCases', {}, `filtered on contract in ${c} (D-30)`, { query: `filter[contract][in]=${encodeURIComponent(c)}` });
      }
    },
  },
  {
    id: 'scoping.direct-writes',
    area: 'scoping',
    title: 'Writing with a foreign or unknown contract is 403 (case, contract, webhook)',
    statements: S,
    needs: ['writes'],
    async run(ctx) {
      for (const c of [foreignContract(ctx), missingContract(ctx)]) {
        await expect403(ctx, ctx.customer, 'createCase', {}, `under ${c}`, { json: { contract: c, shortDescription: `${MARK} must be refused` } });
        await expect403(ctx, ctx.customer, 'updateContract', { contractId: c }, `of ${c}`, { json: { externalReference: `${MARK}` } });
        await expect403(ctx, ctx.customer, 'createWebhook', {}, `for ${c}`, { json: { url: ctx.unusedWebhookUrl('scoping'), contracts: [c], enabled: false } });
        const caseId = await ctx.fixtures.caseId();
        await expect403(ctx, ctx.customer, 'updateCase', { caseId }, `moving a case to ${c}`, { json: { contract: c } });
      }
    },
  },
  {
    id: 'scoping.by-context',
    area: 'scoping',
    title: 'A case, comment, attachment or event of a foreign contract is 403',
    statements: [...S, 'D-19.event-log', 'D-37.status-codes'],
    needs: ['state', 'partner'],
    async run(ctx) {
      const f = await foreignCase(ctx);
      const c = ctx.customer;
      await expect403(ctx, c, 'getCase', { caseId: f.caseId }, `of ${f.contract}`);
      await expect403(ctx, c, 'listCaseComments', { caseId: f.caseId }, `of a case of ${f.contract}`);
      await expect403(ctx, c, 'listCaseAttachments', { caseId: f.caseId }, `of a case of ${f.contract}`);
      if (f.commentId) await expect403(ctx, c, 'getCaseComment', { caseId: f.caseId, commentId: f.commentId }, `of a case of ${f.contract}`);
      if (f.attachmentId) {
        await expect403(ctx, c, 'getCaseAttachment', { caseId: f.caseId, attachmentId: f.attachmentId }, `of a case of ${f.contract}`);
        await expect403(ctx, c, 'downloadCaseAttachment', { caseId: f.caseId, attachmentId: f.attachmentId }, `of a case of ${f.contract}`);
      }
      if (f.eventId) await expect403(ctx, c, 'getEvent', { eventId: f.eventId }, `of a case of ${f.contract}`);
      if (ctx.canWrite) {
        await expect403(ctx, c, 'updateCase', { caseId: f.caseId }, `of ${f.contract}`, { json: { priority: 1 } });
        await expect403(ctx, c, 'createCaseComment', { caseId: f.caseId }, `on a case of ${f.contract}`, { json: { text: `${MARK} x`, contact: ctx.config.customer.contacts[0] ?? 'x@example.com' } });
        if (ctx.environment === 'sandbox') await expect403(ctx, c, 'triggerCaseUpdated', {}, `for a case of ${f.contract}`, { json: { caseId: f.caseId, updated: ['status'] } });
      }
      const missing = await ctx.call(c, 'getCase', { caseId: `CS9${ctx.runTag.toUpperCase()}` });
      expectErrors(missing, 404, 'getCase of a case that does not exist (D-37)');
    },
  },
  {
    id: 'scoping.lists',
    area: 'scoping',
    title: 'No list returns an item of a contract the account does not control',
    statements: ['S5.contract-403', 'S1.contract-scoping', 'S6.controlled-contracts', 'S2.case-without-contract', 'D-07.contractless'],
    needs: ['state'],
    async run(ctx) {
      if (ctx.partner && ctx.canWrite) await foreignCase(ctx).catch((e) => (e instanceof Skip ? undefined : Promise.reject(e)));
      let judged = 0;
      for (const client of ctx.clients()) {
        const controlled = await ctx.fixtures.controlledContracts(client);
        const account = client.label === 'partner' ? ctx.config.partner! : ctx.config.customer;
        for (const c of account.contracts) expect(controlled.has(c), `the ${client.label} account's contract ${c} (configuration) is missing from listContracts`);
        for (const op of scopedLists(ctx)) {
          const all = await ctx.listAll(client, op);
          for (const item of all.items) {
            judged++;
            // D-07: a case without contract belongs to the customer organisation and is never a partner's.
            const ok = item.contract === null ? client.label !== 'partner' : controlled.has(item.contract);
            expect(ok, `${op} as the ${client.label} returned ${item.id} of contract ${item.contract}, which the account does not control`);
          }
        }
      }
      return `${judged} items of ${scopedLists(ctx).join(', ')}`;
    },
  },
];
