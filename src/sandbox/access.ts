// Who may see and use what: contracts an account controls (seed section 1, D-07, D-30) and allowed contacts (D-08).
import type { Environment } from '../spec/types.ts';
import type { Account } from './auth.ts';
import { badRequest, forbidden, notFound } from './http/envelope.ts';
import type { Scope, Storage, Stored } from './store/types.ts';
import { isEmail } from './validate.ts';

/** Per storage: the contracts of an account, kept while the contracts table is unchanged (read on every request). */
const controlledCache = new WeakMap<Storage, Map<string, { version: number; ids: readonly string[] }>>();

/** Contract ids the account controls: a customer those whose customer is its org, a partner those whose partner is. */
export function controlledContracts(store: Storage, env: Environment, account: Pick<Account, 'id' | 'kind'>): readonly string[] {
  let cache = controlledCache.get(store);
  if (!cache) controlledCache.set(store, (cache = new Map()));
  const key = `${env}\u0000${account.kind}\u0000${account.id}`;
  const version = store.version('contracts');
  const hit = cache.get(key);
  if (hit && hit.version === version) return hit.ids;
  const by = account.kind === 'partner' ? 'partnerOrg' : 'customerOrg';
  const ids = Object.freeze(store.findAll('contracts', env, { by, values: [account.id] }).map((c) => c.record.id as string));
  if (cache.size > 10_000) cache.clear();
  cache.set(key, { version, ids });
  return ids;
}

/** Rows of cases (and their events) an account may see: a customer all cases of its org, contractless ones included. */
export function caseScope(store: Storage, env: Environment, account: Account): Scope {
  return account.kind === 'customer'
    ? { by: 'customerOrg', values: [account.id] }
    : { by: 'contract', values: controlledContracts(store, env, account) };
}

export function canSeeCase(store: Storage, env: Environment, account: Account, stored: Stored): boolean {
  if (account.kind === 'customer') return stored.internal.customerOrg === account.id;
  return stored.record.contract !== null && controlledContracts(store, env, account).includes(stored.record.contract);
}

/** The case of a path or body, or 404 (unknown) / 403 (of a contract the account does not control, "by context"). */
export function requireCase(store: Storage, env: Environment, account: Account, caseId: string, where = 'path.caseId'): Stored {
  const stored = store.get('cases', env, caseId);
  if (!stored) throw notFound(`${where}: case ${caseId} not found`);
  if (!canSeeCase(store, env, account, stored)) {
    throw forbidden(`${where}: case ${caseId} belongs to a contract that is not accessible to this account`);
  }
  return stored;
}

/** A contract given directly: unknown or not controlled are both 403 (seed section 5). */
export function requireContract(store: Storage, env: Environment, account: Account, contractId: string, where: string): Stored {
  const stored = store.get('contracts', env, contractId);
  const controlled =
    stored && (account.kind === 'partner' ? stored.internal.partnerOrg === account.id : stored.internal.customerOrg === account.id);
  if (!stored || !controlled) throw forbidden(`${where}: contract ${contractId} is not accessible to this account`);
  return stored;
}

export type ContactRole = 'customer' | 'customerOrPartner';

/**
 * Check one contact e-mail: syntax (400 value_error) then membership (400 contact_not_allowed). Partner contacts
 * count only for a partner account (seed section 2).
 */
export function contactProblem(
  store: Storage,
  env: Environment,
  account: Account,
  customerOrg: string | null,
  email: string,
  allowed: 'customer' | 'customerOrPartner' | 'partner',
  where: string,
): { detail: string; code: string } | null {
  if (!isEmail(email)) return { detail: `${where}: value is not a valid email address`, code: 'value_error' };
  const pool = new Set<string>();
  if (allowed !== 'partner' && customerOrg) for (const c of store.contactsOf(env, customerOrg)) pool.add(normaliseEmail(c));
  if (allowed !== 'customer' && account.kind === 'partner') for (const c of store.contactsOf(env, account.id)) pool.add(normaliseEmail(c));
  if (pool.has(normaliseEmail(email))) return null;
  const who = allowedContacts(allowed, account.kind);
  return { detail: `${where}: ${email} is not ${who}`, code: 'contact_not_allowed' };
}

/** The rule a refused contact broke, for the kind of account that named it (seed section 2, D-73). */
function allowedContacts(allowed: ContactRole | 'partner', kind: Account['kind']): string {
  if (allowed === 'customer') return 'a contact of the customer';
  if (allowed === 'partner') return 'a contact of the partner (a partner comment names a partner contact)';
  return kind === 'partner'
    ? 'a contact of the customer or of the partner'
    : 'a contact of the customer (a customer account may name only its own contacts)';
}

export { badRequest };

/**
 * D-77: an address with its domain in lower case. Domains are case-insensitive (RFC 5321 section 2.4), so contacts
 * match whatever the case of the domain; the local part is kept and compared as given.
 */
export function normaliseEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? email : email.slice(0, at + 1) + email.slice(at + 1).toLowerCase();
}

/**
 * D-47: on a change of contract, the contacts a case keeps (not replaced in the same request) must be allowed on the
 * new contract: `contact` a contact of its customer, each `watchList` entry one of its customer or of its partner.
 */
export function keptContactProblems(
  store: Storage,
  env: Environment,
  before: Stored,
  contract: Stored,
  body: Record<string, any>,
): Array<{ detail: string; code: string }> {
  const customer = new Set((contract.internal.customerOrg ? store.contactsOf(env, contract.internal.customerOrg) : []).map(normaliseEmail));
  const partner = new Set((contract.internal.partnerOrg ? store.contactsOf(env, contract.internal.partnerOrg) : []).map(normaliseEmail));
  const problems: Array<{ detail: string; code: string }> = [];
  const id = contract.record.id;
  if (!('contact' in body) && typeof before.record.contact === 'string' && !customer.has(normaliseEmail(before.record.contact))) {
    problems.push({
      detail: `body.contact: the case's contact ${before.record.contact} is not a contact of the customer of contract ${id}; send contact (null clears it) with the change of contract`,
      code: 'contact_not_allowed',
    });
  }
  if (!('watchList' in body) && Array.isArray(before.record.watchList)) {
    before.record.watchList.forEach((email: string, i: number) => {
      const e = normaliseEmail(email);
      if (!customer.has(e) && !partner.has(e)) {
        problems.push({
          detail: `body.watchList.${i}: the case's watch list entry ${email} is not a contact of the customer or partner of contract ${id}; send watchList with the change of contract`,
          code: 'contact_not_allowed',
        });
      }
    });
  }
  return problems;
}

/**
 * D-79: partner comments, and the events that carry one, are the partner's side of a case: a customer account does
 * not see them (404, left out of lists, not delivered).
 */
export function hiddenFromCustomer(account: Pick<Account, 'kind'>, resource: 'comments' | 'events', record: Record<string, any>): boolean {
  if (account.kind !== 'customer') return false;
  if (resource === 'comments') return record.partnerComment === true;
  return record.type === 'case.comment.created' && record.payload?.data?.partnerComment === true;
}
