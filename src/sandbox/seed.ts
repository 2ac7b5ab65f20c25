// First-start data: per environment a customer account (one contract, shared with the partner), a partner account
// (three contracts), a foreign contract, contacts of every organisation, demo API keys (one revoked), and realistic
// cases with comments and attachments. Deterministic (seeded PRNG) so runs compare.
import { createHash } from 'node:crypto';
import type { Environment } from '../spec/types.ts';
import { hashSecret, newSecret } from './auth.ts';
import { iso } from './context.ts';
import type { Services } from './context.ts';
import type { Storage } from './store/types.ts';
import { recordEvent } from './events.ts';

export interface DemoAccount {
  org: string;
  name: string;
  apiKeyId: string;
  apiKeySecret: string;
  contracts: string[];
  contacts: string[];
}

export interface DemoEnvironment {
  customer: DemoAccount;
  partner: DemoAccount;
  foreignContract: string;
  revokedApiKey: { apiKeyId: string; apiKeySecret: string };
}

export type DemoCredentials = Record<Environment, DemoEnvironment>;

const ENVIRONMENTS: Environment[] = ['sandbox', 'production'];

/** When the seeded history starts: cases are spread over the 179 days after it. */
const SEED_START = Date.UTC(2026, 4, 1);

const ORGS = {
  customer: { name: 'Acme Retail B.V.', kind: 'customer', contacts: ['ana.silva@customer.example', 'marc.dubois@customer.example', 'li.wei@customer.example'] },
  partner: { name: 'Northwind Services Ltd', kind: 'partner', contacts: ['jonas.berg@partner.example', 'sara.koch@partner.example'] },
  globex: { name: 'Globex Corporation', kind: 'customer', contacts: ['hank.scorpio@globex.example', 'mindy.lee@globex.example'] },
  initech: { name: 'Initech GmbH', kind: 'customer', contacts: ['bill.lumbergh@initech.example', 'peter.gibbons@initech.example'] },
  umbrella: { name: 'Umbrella Holdings plc', kind: 'customer', contacts: ['alice.abernathy@umbrella.example'] },
} as const;

const SUBJECTS = [
  'Printer on floor 3 does not print',
  'VPN drops every 10 minutes',
  'Laptop battery swells',
  'Cannot log in to the HR portal',
  'E-mail attachments blocked',
  'Monitor flickers after docking',
  'Request: new keyboard for reception',
  'Password reset for shared mailbox',
  'Wi-Fi slow in meeting room Zürich',
  'Teams calls without audio',
  'Scanner sends empty PDFs',
  'Access request: finance share',
  'Phone system shows "Ausfall" on line 2',
  'Café POS terminal frozen ☕',
  'Warehouse handheld cannot sync',
];

/** mulberry32: small deterministic PRNG (the seed data, and the benchmark's draws, repeat from run to run). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEMO_KEY = 'demo_credentials';

export function readDemo(store: Storage): DemoCredentials {
  return JSON.parse(store.getSetting(DEMO_KEY) ?? '{}');
}

function seedEnvironment(svc: Services, env: Environment, cases: number, random: () => number): DemoEnvironment {
  const { store } = svc;
  const day = 86_400_000;
  const start = SEED_START; // fixed, not now: the description's examples name seeded values, dates included (D-119)
  const orgId: Record<string, string> = {};
  for (const [key, org] of Object.entries(ORGS)) {
    const id = store.nextId('ORG', 10);
    orgId[key] = id;
    store.insertOrg(env, { id, name: org.name, kind: org.kind });
    for (const email of org.contacts) store.addContact(env, id, email);
  }
  const ref = (key: keyof typeof ORGS) => ({ id: orgId[key], name: ORGS[key].name });
  // `reference`: an account's own externalReference of the contract (D-75), by whose it is.
  const contract = (name: string, customer: keyof typeof ORGS, partner: keyof typeof ORGS | null, reference?: { by: keyof typeof ORGS; value: string }) => {
    const id = store.nextId('CT', 101);
    const at = iso(start - 30 * day);
    store.insert(
      'contracts',
      env,
      { id, name, customer: ref(customer), partner: partner ? ref(partner) : null, externalReference: null, createdAt: at, updatedAt: at },
      { customerOrg: orgId[customer], partnerOrg: partner ? orgId[partner] : null },
    );
    if (reference) store.setContractReference(env, id, orgId[reference.by], reference.value, at);
    return id;
  };
  const acme = contract('Acme Retail workplace support', 'customer', 'partner', { by: 'customer', value: 'PO-2026-0815' });
  const globex = contract('Globex field services', 'globex', 'partner');
  const initech = contract('Initech managed desktop', 'initech', 'partner', { by: 'partner', value: 'NW-INI-7' });
  const umbrella = contract('Umbrella Holdings direct support', 'umbrella', null);

  const key = (account: string, label: string, revoked = false) => {
    const secret = newSecret();
    const id = store.nextId('AK', 1);
    const createdAt = iso(start);
    store.insert(
      'apikeys',
      env,
      { id, label, prefix: secret.slice(0, 12), createdAt, expiresAt: null, revokedAt: revoked ? iso(start + day) : null },
      { account, secretHash: hashSecret(secret) },
    );
    return { apiKeyId: id, apiKeySecret: secret };
  };
  const customerKey = key(orgId.customer, `Acme ${env} integration`);
  const partnerKey = key(orgId.partner, `Northwind ${env} e-bonding`);
  const revokedKey = key(orgId.customer, 'Acme old key (revoked)', true);

  // Cases: shares per contract, every status and priority, some without contract (D-07).
  const placements: Array<{ contract: string | null; customer: keyof typeof ORGS }> = [
    { contract: acme, customer: 'customer' },
    { contract: acme, customer: 'customer' },
    { contract: acme, customer: 'customer' },
    { contract: null, customer: 'customer' },
    { contract: globex, customer: 'globex' },
    { contract: globex, customer: 'globex' },
    { contract: initech, customer: 'initech' },
    { contract: initech, customer: 'initech' },
    { contract: umbrella, customer: 'umbrella' },
    { contract: umbrella, customer: 'umbrella' },
  ];
  const statuses = [1, 10, 18, 6, 3];
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const detailed = Math.min(cases, 2000); // comments and attachments on the first cases only, so big seeds stay fast
  for (let i = 0; i < cases; i++) {
    const place = placements[i % placements.length];
    const createdMs = start + Math.floor((i / Math.max(1, cases)) * 179 * day + random() * day);
    const createdAt = iso(createdMs);
    const customerContacts = ORGS[place.customer].contacts;
    const partnerContacts = place.contract && place.contract !== umbrella ? ORGS.partner.contacts : [];
    const watchList = [...new Set([...customerContacts, ...partnerContacts].filter(() => random() < 0.25))];
    const id = store.nextId('CS', 10001);
    const record = {
      id,
      contract: place.contract,
      shortDescription: `${pick(SUBJECTS)}${random() < 0.3 ? ` (#${1000 + i})` : ''}`,
      description: random() < 0.7 ? `Reported ${createdAt.slice(0, 10)}. ${pick(SUBJECTS)}; users affected: ${1 + Math.floor(random() * 40)}.` : null,
      status: i < statuses.length ? statuses[i] : pick(statuses),
      priority: i < 4 ? i + 1 : pick([1, 2, 3, 3, 3, 4, 4]),
      contact: random() < 0.9 ? pick(customerContacts) : null,
      watchList,
      incident: random() < 0.3 ? `INC${String(31000 + i).padStart(7, '0')}` : null,
      createdAt,
      created: createdAt,
      updatedAt: iso(createdMs + Math.floor(random() * 5 * day)),
    };
    store.insert('cases', env, record, { customerOrg: orgId[place.customer] });
    if (i >= detailed) continue;
    const comments = Math.floor(random() * 4);
    for (let c = 0; c < comments; c++) {
      const partnerComment = partnerContacts.length > 0 && random() < 0.3;
      const comment = {
        id: store.nextId('CC', 20001),
        case: id,
        text: partnerComment ? 'Partner note: escalated to second line.' : pick(['Any update?', 'Restarted, still failing.', 'Works again, thanks!', 'Screenshot attached.']),
        contact: partnerComment ? pick(partnerContacts) : pick([...customerContacts, ...partnerContacts]),
        partnerComment,
        createdAt: iso(createdMs + (c + 1) * 3_600_000),
      };
      store.insert('comments', env, comment, { contract: place.contract });
    }
    if (random() < 0.15) {
      const text = Buffer.from(`Log excerpt for ${id}\nerror 49.4C02 at ${createdAt}\n`);
      const png = i % 2 === 0;
      const bytes = png ? Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), text]) : text;
      store.insert(
        'attachments',
        env,
        {
          id: store.nextId('AT', 30001),
          case: id,
          fileName: png ? `screenshot-${i}.png` : `log-${i}.txt`,
          contentType: png ? 'image/png' : 'text/plain',
          size: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          createdAt: iso(createdMs + 7_200_000),
        },
        { contract: place.contract, content: bytes },
      );
    }
  }

  // D-119: one subscription and one logged event for the customer, so their lists and the docs' samples show one
  // from the first request. The subscription is disabled (nothing is delivered to its example URL); the event is a
  // case.updated of the customer's first case of its contract, fired by a trigger in sandbox, by an agent in production.
  const subscribedAt = iso(start + day);
  store.insert(
    'webhooks',
    env,
    { id: store.nextId('WH', 1, env), url: 'https://hooks.acme.example/care-events', contracts: ['*'], eventTypes: ['case.*'], authorization: null, enabled: false, createdAt: subscribedAt, updatedAt: subscribedAt },
    { account: orgId.customer, signingSecret: 'whsec_' + Buffer.from(`seeded ${env} subscription`).toString('base64') },
  );
  const firstCase = store.findAll('cases', env, { by: 'contract', values: [acme] })[0];
  if (firstCase) seedEvent(svc, env, firstCase.record);

  const account = (key: 'customer' | 'partner', k: { apiKeyId: string; apiKeySecret: string }, contracts: string[]): DemoAccount => ({
    org: orgId[key],
    name: ORGS[key].name,
    ...k,
    contracts,
    contacts: [...ORGS[key].contacts],
  });
  return {
    customer: account('customer', customerKey, [acme]),
    partner: account('partner', partnerKey, [acme, globex, initech]),
    foreignContract: umbrella,
    revokedApiKey: revokedKey,
  };
}

/** A customer's second active key (D-119): the one the docs' key samples read, update and revoke. */
function seedSpareKey(svc: Services, env: Environment, account: string): void {
  const secret = newSecret();
  const createdAt = iso(SEED_START + 90 * 86_400_000);
  svc.store.insert(
    'apikeys',
    env,
    { id: svc.store.nextId('AK', 1), label: 'Acme reporting', prefix: secret.slice(0, 12), createdAt, expiresAt: null, revokedAt: null },
    { account, secretHash: hashSecret(secret) },
  );
}

/** The seeded event (D-119): the case as it is, its status named as updated. */
function seedEvent(svc: Services, env: Environment, record: Record<string, any>): void {
  recordEvent(svc, env, { type: 'case.updated', caseId: record.id, contract: record.contract, data: record, updated: ['status'], triggered: env === 'sandbox' }, null);
}

/**
 * Seed an empty database. The demo secrets are kept in the database (this is a sandbox with public demo data) so that
 * every start can print them and write the conformance config; keys made through the API are stored hashed only.
 */
export function seedIfEmpty(svc: Services, cases: number | Record<Environment, number>): void {
  if (svc.store.getSetting(DEMO_KEY)) return;
  svc.store.transaction(() => {
    const random = prng(20261122);
    const demo = {} as DemoCredentials;
    for (const env of ENVIRONMENTS) demo[env] = seedEnvironment(svc, env, typeof cases === 'number' ? cases : cases[env], random);
    // D-119: a second active key of each customer, after both environments so the demo keys keep their ids
    for (const env of ENVIRONMENTS) seedSpareKey(svc, env, demo[env].customer.org);
    svc.store.setSetting(DEMO_KEY, JSON.stringify(demo));
  });
}
