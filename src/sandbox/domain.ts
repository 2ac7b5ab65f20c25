// Changes to cases, comments and attachments, shared by the public API (an account acts) and the agent API (a
// service-desk agent acts, actor null). Each change is one transaction with the events it fires.
import { createHash } from 'node:crypto';
import type { Environment } from '../spec/types.ts';
import { after, iso } from './context.ts';
import type { Services } from './context.ts';
import { fire, fireCaseChange } from './events.ts';
import type { UploadedFile } from './http/body.ts';
import type { Stored } from './store/types.ts';

export const CASE_STATUS_NEW = 1;
export const DEFAULT_PRIORITY = 3;

export interface CaseInput {
  contract: string | null;
  customerOrg: string;
  shortDescription: string;
  description?: string | null;
  priority?: number;
  status?: number;
  contact?: string | null;
  watchList?: string[];
  incident?: string | null;
}

export function createCase(svc: Services, env: Environment, input: CaseInput, actor: string | null): Record<string, any> {
  return svc.store.transaction(() => {
    const now = iso(svc.now());
    const record = {
      id: svc.store.nextId('CS', 10001, env),
      contract: input.contract,
      shortDescription: input.shortDescription,
      description: input.description ?? null,
      status: input.status ?? CASE_STATUS_NEW,
      priority: input.priority ?? DEFAULT_PRIORITY,
      contact: input.contact ?? null,
      watchList: input.watchList ?? [],
      incident: input.incident ?? null,
      createdAt: now,
      created: now,
      updatedAt: now,
    };
    svc.store.insert('cases', env, record, { customerOrg: input.customerOrg });
    if (record.contract) fire(svc, env, { type: 'case.contract.assigned', caseId: record.id, contract: record.contract, data: record }, actor);
    return record;
  });
}

/** Apply field changes (already validated and authorised); `updatedAt` moves on every update. */
export function updateCase(svc: Services, env: Environment, before: Stored, changes: Record<string, any>, actor: string | null): Record<string, any> {
  return svc.store.transaction(() => {
    const changed = Object.keys(changes).filter((field) => JSON.stringify(before.record[field]) !== JSON.stringify(changes[field]));
    const record = { ...before.record, ...changes, updatedAt: after(before.record.updatedAt, svc.now()) };
    const internal: Record<string, string | null> = {};
    if ('contract' in changes && changes.contract) {
      const contract = svc.store.get('contracts', env, changes.contract);
      if (contract?.internal.customerOrg) internal.customerOrg = contract.internal.customerOrg;
    }
    const fields: Record<string, unknown> = { updatedAt: record.updatedAt };
    for (const field of changed) fields[field] = changes[field];
    svc.store.update('cases', env, before.record.id, fields, internal);
    if ('contract' in fields) {
      // Comments and attachments follow their case's contract, for scoping.
      for (const resource of ['comments', 'attachments'] as const) {
        for (const child of svc.store.findAll(resource, env, { by: 'case', values: [before.record.id] })) {
          svc.store.update(resource, env, child.record.id, {}, { contract: changes.contract });
        }
      }
    }
    fireCaseChange(svc, env, before, record, changed, actor);
    return record;
  });
}

export interface CommentInput {
  text: string;
  contact: string;
  partnerComment?: boolean;
}

export function addComment(svc: Services, env: Environment, caseStored: Stored, input: CommentInput, actor: string | null): Record<string, any> {
  return svc.store.transaction(() => {
    const record = {
      id: svc.store.nextId('CC', 20001, env),
      case: caseStored.record.id,
      text: input.text,
      contact: input.contact,
      partnerComment: input.partnerComment ?? false,
      createdAt: iso(svc.now()),
    };
    svc.store.insert('comments', env, record, { contract: caseStored.record.contract });
    // D-79: a partner comment reaches the partner's subscriptions only
    const contract = record.partnerComment && caseStored.record.contract ? svc.store.get('contracts', env, caseStored.record.contract) : undefined;
    const audience = record.partnerComment ? [contract?.internal.partnerOrg].filter((org): org is string => typeof org === 'string') : undefined;
    fire(svc, env, { type: 'case.comment.created', caseId: record.case, contract: caseStored.record.contract, data: record }, actor, audience);
    return record;
  });
}

export function addAttachment(svc: Services, env: Environment, caseStored: Stored, file: UploadedFile, actor: string | null): Record<string, any> {
  return svc.store.transaction(() => {
    const record = {
      id: svc.store.nextId('AT', 30001, env),
      case: caseStored.record.id,
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.bytes.length,
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
      createdAt: iso(svc.now()),
    };
    svc.store.insert('attachments', env, record, { contract: caseStored.record.contract, content: file.bytes });
    fire(svc, env, { type: 'case.attachment.created', caseId: record.case, contract: caseStored.record.contract, data: record }, actor);
    return record;
  });
}
