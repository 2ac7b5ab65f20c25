// The event log (D-19) and the sandbox triggers (D-20).
import { controlledContracts, hiddenFromCustomer, requireCase } from '../access.ts';
import type { Ctx, Handler } from '../context.ts';
import { queueDeliveries, recordEvent } from '../events.ts';
import type { EventType } from '../events.ts';
import { forbidden, notFound } from '../http/envelope.ts';
import { checkContractFilters, listReply, readListQuery } from './common.ts';

function eventScope(ctx: Ctx) {
  return { by: 'contract' as const, values: controlledContracts(ctx.svc.store, ctx.env, ctx.account), customerView: ctx.account.kind === 'customer' };
}

/** A sandbox trigger (D-20): record the event and deliver it to the calling account's own subscriptions. */
function trigger(type: EventType): Handler {
  return async (ctx) => {
    const body = await ctx.body();
    const { store } = ctx.svc;
    const caseStored = requireCase(store, ctx.env, ctx.account, body.caseId, 'body.caseId');
    const contract: string | null = caseStored.record.contract;
    if (!contract || !controlledContracts(store, ctx.env, ctx.account).includes(contract)) {
      throw forbidden(`body.caseId: case ${body.caseId} has no contract this account controls`);
    }
    let data: Record<string, any> = caseStored.record;
    let updated: string[] | undefined;
    // The names were checked against the schema's enum, which the build fills from the Case fields (D-20).
    if (type === 'case.updated') updated = [...new Set(body.updated as string[])];
    for (const [key, resource, label] of [
      ['attachmentId', 'attachments', 'attachment'],
      ['commentId', 'comments', 'comment'],
    ] as const) {
      if (body[key] === undefined) continue;
      const child = store.get(resource, ctx.env, body[key]);
      const hidden = child && resource === 'comments' && hiddenFromCustomer(ctx.account, 'comments', child.record); // D-79
      if (!child || hidden || child.record.case !== caseStored.record.id) throw notFound(`body.${key}: ${label} ${body[key]} not found on case ${caseStored.record.id}`);
      data = child.record;
    }
    const event = store.transaction(() => {
      const recorded = recordEvent(ctx.svc, ctx.env, { type, caseId: caseStored.record.id, contract, data, updated, triggered: true }, ctx.account.id);
      queueDeliveries(ctx.svc, ctx.env, recorded, [ctx.account.id]);
      return recorded;
    });
    ctx.svc.dispatcher.wake();
    return { status: 202, data: event };
  };
}

export const eventHandlers: Record<string, Handler> = {
  listEvents(ctx) {
    const query = readListQuery(ctx);
    checkContractFilters(ctx, query);
    return listReply(ctx, 'events', eventScope(ctx), query);
  },
  getEvent(ctx) {
    const stored = ctx.svc.store.get('events', ctx.env, ctx.params.eventId);
    if (!stored || hiddenFromCustomer(ctx.account, 'events', stored.record)) throw notFound(`path.eventId: event ${ctx.params.eventId} not found`);
    if (!eventScope(ctx).values.includes(stored.record.contract)) {
      throw forbidden(`path.eventId: event ${ctx.params.eventId} belongs to a contract that is not accessible to this account`);
    }
    return { status: 200, data: stored.record };
  },

  triggerCaseContractAssigned: trigger('case.contract.assigned'),
  triggerCaseContractUnassigned: trigger('case.contract.unassigned'),
  triggerCaseUpdated: trigger('case.updated'),
  triggerCaseAttachmentCreated: trigger('case.attachment.created'),
  triggerCaseCommentCreated: trigger('case.comment.created'),
};
