// Rules of the domain that a suite passing everything else once missed (issue 13): Location resolves to the created
// resource (D-74), externalReference per account (D-75), contacts re-validated on a contract move (D-47), webhook
// authorization headers (D-76) and patterns (D-80), contact addresses (D-77, D-78, D-81), partner comments
// hidden from customers (D-79). Each is observed over HTTP only.
import { Skip, expect, expectErrors, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { MARK } from '../context.ts';
import { multipart } from '../fixtures.ts';
import type { Exchange, HttpClient } from '../http.ts';

/** A contract the customer and the partner both control, or Skip. */
async function sharedContract(ctx: Context): Promise<string> {
  const partner = ctx.partnerClient();
  const mine = await ctx.fixtures.controlledContracts(ctx.customer);
  const theirs = await ctx.fixtures.controlledContracts(partner);
  const shared = [...mine].find((id) => theirs.has(id));
  if (!shared) throw new Skip('the customer and the partner share no contract');
  return shared;
}

function customerContact(ctx: Context, i = 0): string {
  const contact = ctx.config.customer.contacts[i];
  if (!contact) throw new Skip(`the configuration names no customer contact #${i + 1}`);
  return contact;
}

/** GET the URL that `Location` of a 201 resolves to (RFC 9110 section 10.2.2), which must lie under the base URL. */
async function followLocation(ctx: Context, client: HttpClient, created: Exchange, what: string): Promise<Exchange> {
  const location = created.headers.location;
  expect(location, `${what}: a 201 needs a Location header (D-02)`, created);
  const target = new URL(location, created.url).href;
  const base = ctx.config.baseUrl.replace(/\/+$/, '');
  expect(target.startsWith(base + '/'), `${what}: Location "${location}" resolves to ${target}, outside the base URL ${base} (D-74)`, created);
  const got = await client.request({ path: target.slice(base.length) });
  expectStatus(got, 200, `${what}: GET on the resolved Location ${target}`);
  expect(got.json?.data?.id === created.json?.data?.id, `${what}: GET on the resolved Location should answer the created resource ${created.json?.data?.id}`, got);
  return got;
}

/** Each webhook authorization that D-76 refuses, with a name for the report. */
function refusedAuthorizations(ctx: Context): Array<[string, unknown]> {
  const reserved: string[] = ctx.spec.resolve('#/components/schemas/WebhookAuthHeader').properties.name['x-care-reserved-names'] ?? [];
  return [
    ['CR LF in a header value', { type: 'header', name: 'X-Conformance', value: 'a\r\nX-Injected: 1' }],
    ['NUL in a header value', { type: 'header', name: 'X-Conformance', value: 'a\u0000b' }],
    ['LF in a bearer token', { type: 'bearer', token: 'a\nX-Injected: 1' }],
    ['Authorization next to a bearer scheme', [{ type: 'bearer', token: 't' }, { type: 'header', name: 'Authorization', value: 'x' }]],
    ['the same header twice', [{ type: 'header', name: 'X-Conformance', value: '1' }, { type: 'header', name: 'x-conformance', value: '2' }]],
    ...reserved.flatMap((name): Array<[string, unknown]> => [
      [`reserved header ${name}`, { type: 'header', name, value: 'x' }],
      [`reserved header ${name.toUpperCase()}`, { type: 'header', name: name.toUpperCase(), value: 'x' }],
    ]),
  ];
}

async function disabledWebhook(ctx: Context, name: string, extra: Record<string, unknown> = {}): Promise<Exchange> {
  const x = await ctx.call(ctx.customer, 'createWebhook', {}, { json: { url: ctx.unusedWebhookUrl(name), enabled: false, ...extra } });
  if (x.status === 201) {
    const id = x.json.data.id;
    ctx.onCleanup(`delete webhook ${id}`, () => ctx.call(ctx.customer, 'deleteWebhook', { webhookId: id }));
  }
  return x;
}

export const hardeningDomainChecks: Check[] = [
  {
    id: 'resources.location',
    area: 'resources',
    title: 'Location of every 201 resolves (RFC 9110) under the base URL to the created resource',
    statements: ['S4.case-crud', 'S4.comment-crud', 'S4.apikey-crud', 'S4.webhook-crud', 'S4.attachment-crud', 'D-74.location'],
    needs: ['writes'],
    async run(ctx) {
      const contract = await ctx.fixtures.contract();
      const kase = await ctx.call(ctx.customer, 'createCase', {}, { json: { contract, shortDescription: `${MARK} location ${ctx.runTag}` } });
      expectStatus(kase, 201, 'createCase');
      await followLocation(ctx, ctx.customer, kase, 'createCase');
      const contact = customerContact(ctx);
      const comment = await ctx.call(ctx.customer, 'createCaseComment', { caseId: kase.json.data.id }, { json: { text: `${MARK} location`, contact } });
      expectStatus(comment, 201, 'createCaseComment');
      await followLocation(ctx, ctx.customer, comment, 'createCaseComment');
      const key = await ctx.call(ctx.customer, 'createApiKey', {}, { json: { label: `${MARK} location ${ctx.runTag}` } });
      expectStatus(key, 201, 'createApiKey');
      ctx.onCleanup(`revoke API key ${key.json.data.id}`, () => ctx.call(ctx.customer, 'revokeApiKey', { keyId: key.json.data.id }));
      await followLocation(ctx, ctx.customer, key, 'createApiKey');
      const webhook = await disabledWebhook(ctx, 'location');
      expectStatus(webhook, 201, 'createWebhook');
      await followLocation(ctx, ctx.customer, webhook, 'createWebhook');
      const m = multipart('location.txt', 'text/plain', Buffer.from('location\n'));
      const upload = await ctx.call(ctx.customer, 'uploadCaseAttachment', { caseId: kase.json.data.id }, { body: m.body, headers: { 'content-type': m.contentType } });
      expectStatus(upload, 201, 'uploadCaseAttachment');
      await followLocation(ctx, ctx.customer, upload, 'uploadCaseAttachment');
      return '5 created resources followed';
    },
  },
  {
    id: 'resources.external-reference-per-account',
    area: 'resources',
    title: "externalReference of a shared contract is each account's own: get, filter (D-75)",
    statements: ['S4.contract-crud', 'S1.account-types', 'D-75.external-reference'],
    needs: ['writes', 'partner', 'state'],
    async run(ctx) {
      const contractId = await sharedContract(ctx);
      const partner = ctx.partnerClient();
      const refs: Record<string, string> = {};
      for (const [label, client] of [['customer', ctx.customer], ['partner', partner]] as const) {
        const before = await ctx.call(client, 'getContract', { contractId });
        expectStatus(before, 200, `getContract as ${label}`);
        const old = before.json.data.externalReference ?? null;
        ctx.onCleanup(`restore the ${label}'s externalReference of ${contractId}`, () => ctx.call(client, 'updateContract', { contractId }, { json: { externalReference: old } }));
        refs[label] = `${MARK} ${label}-${ctx.runTag}`;
        expectStatus(await ctx.call(client, 'updateContract', { contractId }, { json: { externalReference: refs[label] } }), 200, `updateContract as ${label}`);
      }
      const customerView = await ctx.call(ctx.customer, 'getContract', { contractId });
      expect(customerView.json?.data?.externalReference === refs.customer, `the partner's PATCH overwrote the customer's externalReference: got ${JSON.stringify(customerView.json?.data?.externalReference)}, expected "${refs.customer}" (D-75)`, customerView);
      const partnerView = await ctx.call(partner, 'getContract', { contractId });
      expect(partnerView.json?.data?.externalReference === refs.partner, `the partner should read its own externalReference "${refs.partner}" (D-75)`, partnerView);
      const own = await ctx.list(ctx.customer, 'listContracts', {}, `filter[externalReference]=${refs.customer}`);
      expect(own.items.some((c) => c.id === contractId), `filter[externalReference] should find the contract by the customer's own reference`, own.exchange);
      const other = await ctx.list(partner, 'listContracts', {}, `filter[externalReference]=${refs.customer}`);
      expect(other.items.length === 0, `the partner's filter[externalReference] should not match the customer's reference`, other.exchange);
    },
  },
  {
    id: 'resources.contacts-on-contract-move',
    area: 'resources',
    title: "Moving a case to another customer's contract re-validates the contacts it keeps (D-47)",
    statements: ['S2.contacts', 'S1.contract-scoping', 'D-25.codes', 'D-47.contacts-on-move'],
    needs: ['writes', 'partner', 'state'],
    async run(ctx) {
      const shared = await sharedContract(ctx);
      const partner = ctx.partnerClient();
      const mine = await ctx.fixtures.controlledContracts(ctx.customer);
      const other = [...(await ctx.fixtures.controlledContracts(partner))].find((id) => !mine.has(id));
      if (!other) throw new Skip("the partner controls no contract of another customer");
      const contact = customerContact(ctx);
      const kase = await ctx.call(partner, 'createCase', {}, { json: { contract: shared, shortDescription: `${MARK} move ${ctx.runTag}`, contact, watchList: [contact] } });
      expectStatus(kase, 201, 'createCase by the partner');
      const caseId = kase.json.data.id;
      const moved = await ctx.call(partner, 'updateCase', { caseId }, { json: { contract: other } });
      const errors = expectErrors(moved, 400, `moving case ${caseId} to ${other} while it keeps ${contact} (D-47)`, 2);
      expect(errors.every((e) => e.code === 'contact_not_allowed'), 'each kept contact should be refused with code contact_not_allowed', moved);
      const still = await ctx.call(partner, 'getCase', { caseId });
      expect(still.json?.data?.contract === shared, 'a refused move must change nothing', still);
      const ok = await ctx.call(partner, 'updateCase', { caseId }, { json: { contract: other, contact: null, watchList: [] } });
      expectStatus(ok, 200, 'moving the case with contact null and an empty watch list');
      expect(ok.json.data.contact === null && ok.json.data.contract === other, 'the moved case should have no contact', ok);
    },
  },
  {
    id: 'webhooks.authorization-headers',
    area: 'webhooks',
    title: 'Webhook authorization: header injection, reserved names and one scheme per header are 400 (D-76)',
    statements: ['S6.delivery-authorization', 'S7.status-400', 'D-76.authorization-headers'],
    needs: ['writes'],
    async run(ctx) {
      const cases = refusedAuthorizations(ctx);
      for (const [name, authorization] of cases) {
        const x = await disabledWebhook(ctx, 'auth', { authorization });
        const [e] = expectErrors(x, 400, `createWebhook with ${name}`);
        expect(e.detail.startsWith('body.authorization'), `createWebhook with ${name}: the error should name body.authorization, got "${e.detail}"`, x);
      }
      const ok = await disabledWebhook(ctx, 'auth-ok', { authorization: { type: 'header', name: 'X-Conformance', value: 'a b' } });
      expectStatus(ok, 201, 'createWebhook with a plain custom header');
      const [name, authorization] = cases[0];
      expectErrors(await ctx.call(ctx.customer, 'updateWebhook', { webhookId: ok.json.data.id }, { json: { authorization } }), 400, `updateWebhook with ${name}`);
      return `${cases.length} refused authorizations`;
    },
  },
  {
    id: 'webhooks.patterns',
    area: 'webhooks',
    title: 'Contract and event-type patterns that match nothing yet are accepted; unknown exact names are refused (D-80)',
    statements: ['S2.webhook-fields', 'S6.delivery-filters', 'D-16.patterns', 'D-80.patterns'],
    needs: ['writes', 'state'],
    async run(ctx) {
      const patterns = await disabledWebhook(ctx, 'patterns', { contracts: [`${ctx.runTag}-none-*`], eventTypes: ['case.*', `${ctx.runTag}.*`] });
      expectStatus(patterns, 201, 'createWebhook with contract and event-type patterns that match nothing yet');
      const x = await disabledWebhook(ctx, 'unknown-type', { eventTypes: ['case.*', `case.${ctx.runTag}`] });
      const [e] = expectErrors(x, 400, 'createWebhook with an exact event type that does not exist', 1);
      expect(e.detail.startsWith('body.eventTypes.1'), `the error should name body.eventTypes.1, got "${e.detail}"`, x);
    },
  },
  {
    id: 'validation.contact-addresses',
    area: 'validation',
    title: 'Contacts: the domain matched without case (D-77), contact null clears (D-78), "a, b" lists trimmed (D-81)',
    statements: ['S2.contacts', 'S1.coercion', 'D-77.contact-domain', 'D-78.contact-null', 'D-81.trimmed-lists'],
    needs: ['writes', 'state'],
    async run(ctx) {
      const contract = await ctx.fixtures.contract();
      const contact = customerContact(ctx);
      const at = contact.lastIndexOf('@');
      const shouting = contact.slice(0, at + 1) + contact.slice(at + 1).toUpperCase();
      const lower = contact.slice(0, at + 1) + contact.slice(at + 1).toLowerCase();
      const second = ctx.config.customer.contacts[1] ?? contact;
      const created = await ctx.call(ctx.customer, 'createCase', {}, {
        json: { contract, shortDescription: `${MARK} contacts ${ctx.runTag}`, contact: shouting, watchList: `${contact}, ${second}` },
      });
      expectStatus(created, 201, `createCase with contact ${shouting} and watchList "${contact}, ${second}"`);
      expect(created.json.data.contact === lower, `the contact's domain should be answered in lower case (D-77): expected ${lower}, got ${created.json.data.contact}`, created);
      expect(JSON.stringify(created.json.data.watchList) === JSON.stringify([contact, second]), `"a, b" should give the trimmed elements (D-81), got ${JSON.stringify(created.json.data.watchList)}`, created);
      const cleared = await ctx.call(ctx.customer, 'updateCase', { caseId: created.json.data.id }, { json: { contact: null } });
      expectStatus(cleared, 200, 'updateCase with contact null (D-78)');
      expect(cleared.json.data.contact === null, 'contact null should clear the contact', cleared);
    },
  },
  {
    id: 'scoping.partner-comments',
    area: 'scoping',
    title: 'Partner comments are not shown to the customer account: list, get (D-79)',
    statements: ['S5.partner-only', 'S2.comment-fields', 'D-79.partner-comments'],
    needs: ['writes', 'partner', 'state'],
    async run(ctx) {
      const contract = await sharedContract(ctx);
      const partner = ctx.partnerClient();
      const partnerContact = ctx.config.partner?.contacts[0];
      if (!partnerContact) throw new Skip('no partner contact in the configuration');
      const kase = await ctx.call(ctx.customer, 'createCase', {}, { json: { contract, shortDescription: `${MARK} partner comments ${ctx.runTag}` } });
      expectStatus(kase, 201, 'createCase');
      const caseId = kase.json.data.id;
      const internal = await ctx.call(partner, 'createCaseComment', { caseId }, { json: { text: `${MARK} internal`, contact: partnerContact, partnerComment: true } });
      expectStatus(internal, 201, 'createCaseComment partnerComment by the partner');
      const list = await ctx.listAll(ctx.customer, 'listCaseComments', { caseId });
      expect(!list.items.some((c) => c.id === internal.json.data.id) && list.totalCount === list.items.length, 'the customer account should not list the partner comment (D-79)');
      const got = await ctx.call(ctx.customer, 'getCaseComment', { caseId, commentId: internal.json.data.id });
      expectStatus(got, 404, 'getCaseComment of a partner comment as the customer (D-79)');
      const own = await ctx.listAll(partner, 'listCaseComments', { caseId });
      expect(own.items.some((c) => c.id === internal.json.data.id), 'the partner account should list its partner comment');
    },
  },
];
