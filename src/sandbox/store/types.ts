// The storage interface of the sandbox: the only thing handlers know about persistence. The SQLite module implements
// it; another engine would implement the same few calls.
import type { ListQuery } from '../../grammar/types.ts';
import type { Environment } from '../../spec/types.ts';
import type { JsonText } from '../json-text.ts';
import type { ListPlan, PlanOutcome } from './list-plan.ts';

/** Resource tables; each stores the fields of its schema in the description plus internal columns. */
export const RESOURCE_SCHEMAS = {
  cases: 'Case',
  comments: 'Comment',
  attachments: 'Attachment',
  contracts: 'Contract',
  apikeys: 'ApiKey',
  webhooks: 'Webhook',
  events: 'Event',
} as const;
export type Resource = keyof typeof RESOURCE_SCHEMAS;

/** Columns that are not part of the public resource, per table. */
export interface Internal {
  /** cases: the customer organisation (known even without a contract, D-07). */
  customerOrg?: string | null;
  /** contracts: the partner organisation (null for a direct contract). */
  partnerOrg?: string | null;
  /** apikeys, webhooks: the owning account (organisation id). */
  account?: string;
  /** apikeys: sha256 of the secret. */
  secretHash?: string;
  /** webhooks: the signing secret `whsec_...`. */
  signingSecret?: string;
  /** comments, attachments: the contract of their case, for scoping. */
  contract?: string | null;
  /** attachments: the bytes. */
  content?: Buffer;
  /** events: the account whose action caused it (null for agents and triggers). */
  actor?: string | null;
}

export interface Stored {
  record: Record<string, any>;
  internal: Internal;
}

/** Which rows an account may see: one internal or public column restricted to a set of values. */
export interface Scope {
  by: 'customerOrg' | 'partnerOrg' | 'contract' | 'case' | 'account';
  values: readonly string[];
  /** contracts: the account whose own `externalReference` the rows show (D-75). */
  viewer?: string;
  /** comments, events: leave out what is for the partner's side only (partner comments, D-79). */
  customerView?: boolean;
}

/**
 * A page of records, in the one shape every list is answered in, whoever answered it (SQL or the column engine).
 * `items` are the records as objects. `json` is the same records as a JSON array when the storage wrote them so
 * itself (the column engine writes a page's bytes from its columns, SQLite with json_object, D-84); `items` then
 * parses it on first ask, which sending the page never does. The storage says what the records are; the HTTP layer
 * alone turns a page into response bytes (`json` as written, else `items` encoded) and keeps them while the page is
 * cached. Made by list-result.ts.
 */
export interface RecordPage {
  /** How many records the page holds. */
  readonly count: number;
  readonly items: Record<string, any>[];
  readonly json?: JsonText;
}

/** A list's answer: its page, and the exact number of the scope's records that match (seed: `meta.page.totalCount`). */
export interface ListResult extends RecordPage {
  readonly totalCount: number;
}

/**
 * Who answered a list of cases and how (`care-sandbox --explain-lists`): the page cache (the same list since the last
 * write), an engine with its plan and what its run did where the plan left a choice (the column engine, D-84), or
 * SQL and why. The plan's description is the storage's (list-plan.ts), not an engine's own types.
 */
export type ListAnswer = { by: 'page cache' } | { by: 'engine'; plan: ListPlan; outcome: PlanOutcome } | { by: 'sql'; why: string };

export interface Org {
  id: string;
  name: string;
  kind: 'customer' | 'partner';
}

export interface Delivery {
  id: number;
  env: Environment;
  eventId: string;
  webhookId: string;
  attempt: number;
  nextAt: number;
}

/** The webhook delivery queue (store/deliveries.ts): per-subscription heads, so no call scans the backlog. */
export interface DeliveryStorage {
  enqueueDelivery(env: Environment, eventId: string, webhookId: string, nextAt: number): void;
  /** The earliest pending delivery of one subscription (by time, then queue order). */
  headDelivery(env: Environment, webhookId: string): Delivery | undefined;
  /** The earliest pending time per subscription among deliveries queued after `afterId`, and the last id queued. */
  pendingHeadsSince(afterId: number): { lastId: number; heads: Array<{ env: Environment; webhookId: string; nextAt: number }> };
  rescheduleDelivery(id: number, attempt: number, nextAt: number, lastStatus: string): void;
  finishDelivery(id: number, outcome: 'delivered' | 'failed' | 'gone' | 'dropped' | 'refused', lastStatus: string): void;
  /** The delivery attempts of an event (of one environment's event when `env` is given: ids repeat across them). */
  deliveries(eventId: string, env?: Environment): Array<{ webhookId: string; state: string; attempt: number; lastStatus: string | null }>;
}

export interface Storage extends DeliveryStorage {
  transaction<T>(fn: () => T): T;
  /**
   * The next id of a prefix. With an environment, that environment's own sequence (it starts after the shared one, so
   * it never repeats an id already given): ids made in one environment say nothing of the other's activity.
   */
  nextId(prefix: string, start?: number, env?: Environment): string;
  getSetting(key: string): string | undefined;
  setSetting(key: string, value: string): void;

  insertOrg(env: Environment, org: Org): void;
  getOrg(env: Environment, id: string): Org | undefined;
  listOrgs(env: Environment): Org[];
  addContact(env: Environment, org: string, email: string): void;
  contactsOf(env: Environment, org: string): string[];

  insert(resource: Resource, env: Environment, record: Record<string, any>, internal?: Internal): void;
  get(resource: Resource, env: Environment, id: string): Stored | undefined;
  update(resource: Resource, env: Environment, id: string, changes: Record<string, any>, internal?: Internal): void;
  remove(resource: Resource, env: Environment, id: string): void;
  /** Rows of a table matching an internal/public column, unpaged (small sets: contracts of an org, webhooks). */
  findAll(resource: Resource, env: Environment, scope: Scope): Stored[];
  list(resource: Resource, env: Environment, scope: Scope, query: ListQuery): ListResult;
  attachmentContent(env: Environment, id: string): Buffer | undefined;
  /** D-75: an account's own reference of a contract, and when it set it. */
  contractReference(env: Environment, contract: string, account: string): { reference: string | null; updatedAt: string } | undefined;
  setContractReference(env: Environment, contract: string, account: string, reference: string | null, updatedAt: string): void;

  /** Resolves when the lists that have an in-memory engine (cases, D-84) are answered by it. */
  whenListsReady(): Promise<void>;
  /** Moves with every write to that table: something read from it stays current while this is unchanged. */
  version(resource: Resource): number;
  /** Rows changed by writes since the storage was opened (a rejected request must not move it). */
  writeCount(): number;
  /** Row counts of every table, to prove a rejected request wrote nothing. */
  counts(): Record<string, number>;
  close(): void;
}
