// Events (seed section 6, D-18..D-20, D-41): recorded in the event log, then queued for delivery to the matching
// subscriptions. Rules: only accounts controlling the contract (2); never the acting account's own subscriptions (3);
// in sandbox nothing fires by itself (4), only triggers, which reach the calling account's subscriptions (D-20).
import type { Environment } from '../spec/types.ts';
import { after } from './context.ts';
import type { Services } from './context.ts';
import { envHeader } from './http/envelope.ts';
import type { Stored } from './store/types.ts';

export type EventType =
  | 'case.contract.assigned'
  | 'case.contract.unassigned'
  | 'case.updated'
  | 'case.attachment.created'
  | 'case.comment.created';

export interface NewEvent {
  type: EventType;
  caseId: string;
  contract: string | null;
  data: Record<string, unknown>;
  updated?: string[];
  triggered: boolean;
}

/** `*` matches any run of characters (D-16); everything else is literal. */
export function patternMatches(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const source = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('[^]*');
  return new RegExp(`^${source}$`, 'u').test(value);
}

/** The accounts (organisation ids) that control a contract: its customer and its partner, when they are accounts. */
export function controllersOf(svc: Services, env: Environment, contractId: string | null): string[] {
  if (!contractId) return [];
  const contract = svc.store.get('contracts', env, contractId);
  if (!contract) return [];
  return [contract.internal.customerOrg, contract.internal.partnerOrg].filter((org): org is string => typeof org === 'string');
}

/** Record one event in the log; answers the stored Event record. */
export function recordEvent(svc: Services, env: Environment, event: NewEvent, actor: string | null): Record<string, any> {
  const id = svc.store.nextId('EV', 50001, env);
  const occurredAt = after(null, svc.now());
  const meta: Record<string, unknown> = {
    eventId: id,
    eventType: event.type,
    occurredAt,
    environment: envHeader(env),
    contract: event.contract,
    caseId: event.caseId,
    triggered: event.triggered,
  };
  if (event.type === 'case.updated') meta.updated = event.updated ?? [];
  const record = { id, type: event.type, case: event.caseId, contract: event.contract, createdAt: occurredAt, payload: { meta, data: event.data } };
  svc.store.insert('events', env, record, { actor });
  return record;
}

/** Queue deliveries of a recorded event to the matching enabled subscriptions of these accounts. */
export function queueDeliveries(svc: Services, env: Environment, event: Record<string, any>, accounts: string[]): number {
  let queued = 0;
  for (const account of new Set(accounts)) {
    for (const webhook of svc.store.findAll('webhooks', env, { by: 'account', values: [account] })) {
      const { enabled, contracts, eventTypes, id } = webhook.record as { enabled: boolean; contracts: string[]; eventTypes: string[]; id: string };
      if (!enabled) continue;
      if (!eventTypes.some((p) => patternMatches(p, event.type))) continue;
      if (!event.contract || !contracts.some((p) => patternMatches(p, event.contract))) continue;
      svc.store.enqueueDelivery(env, event.id, id, svc.now());
      queued++;
    }
  }
  return queued;
}

/**
 * An automatic event of a change (production only): logged, and queued for every account controlling `audience`
 * (default: the event's contract) except the actor's (null for service-desk agents).
 */
export function fire(svc: Services, env: Environment, event: Omit<NewEvent, 'triggered'>, actor: string | null, audience?: string[]): void {
  if (env === 'sandbox') return;
  if (!event.contract) return; // events exist only for cases of a contract (rule 2)
  const recorded = recordEvent(svc, env, { ...event, triggered: false }, actor);
  const accounts = (audience ?? controllersOf(svc, env, event.contract)).filter((a) => a !== actor);
  if (queueDeliveries(svc, env, recorded, accounts) > 0) svc.dispatcher.wake();
}

/** The events of a case change (PATCH by an account or an agent), per seed section 6. */
export function fireCaseChange(svc: Services, env: Environment, before: Stored, afterRecord: Record<string, any>, changed: string[], actor: string | null): void {
  if (changed.length === 0) return;
  const oldContract: string | null = before.record.contract;
  const newContract: string | null = afterRecord.contract;
  const caseId = afterRecord.id;
  fire(svc, env, { type: 'case.updated', caseId, contract: newContract, data: afterRecord, updated: changed }, actor);
  if (oldContract !== newContract) {
    if (newContract) fire(svc, env, { type: 'case.contract.assigned', caseId, contract: newContract, data: afterRecord }, actor);
    if (oldContract) {
      const keep = new Set(controllersOf(svc, env, newContract));
      const lost = controllersOf(svc, env, oldContract).filter((a) => !keep.has(a));
      if (lost.length > 0) fire(svc, env, { type: 'case.contract.unassigned', caseId, contract: oldContract, data: before.record }, actor, lost);
    }
  }
}
