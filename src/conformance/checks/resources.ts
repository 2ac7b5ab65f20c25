// Area "resources": the life cycle of every resource the account can write, read back through the API.
import { createHash, randomBytes } from 'node:crypto';
import { Skip, expect, expectEqual, expectErrors, expectStatus, type Check } from '../check.ts';
import { MARK } from '../context.ts';
import { multipart } from '../fixtures.ts';

/** A Content-Type without its parameters, lower case. */
const mediaType = (value: string | undefined) => (value ?? '').split(';')[0].trim().toLowerCase();

export const resourceChecks: Check[] = [
  {
    id: 'resources.cases',
    area: 'resources',
    title: 'Cases: create (201, Location), get, update; answers hold what was written',
    statements: ['S4.case-crud', 'S2.case-fields', 'S3.status-priority-codes', 'S1.success-envelope'],
    needs: ['writes'],
    async run(ctx) {
      const contract = await ctx.fixtures.contract();
      const contact = ctx.config.customer.contacts[0];
      const body: Record<string, unknown> = { contract, shortDescription: `${MARK} resources ${ctx.runTag}`, description: 'Created by the conformance suite', priority: 2 };
      if (contact) Object.assign(body, { contact, watchList: [contact] });
      const created = await ctx.call(ctx.customer, 'createCase', {}, { json: body });
      expectStatus(created, 201, 'createCase');
      const c = created.json.data;
      for (const [k, v] of Object.entries(body)) expect(JSON.stringify(c[k]) === JSON.stringify(v), `createCase: ${k} should be ${JSON.stringify(v)}, got ${JSON.stringify(c[k])}`, created);
      expect(typeof created.json.meta === 'object', 'createCase: the answer needs meta', created);
      const location = created.headers.location ?? '';
      expect(location.endsWith(ctx.path('getCase', { caseId: c.id })), `createCase: Location should point at the case, got "${location}"`, created);
      expect(c.createdAt === c.created, `createCase: createdAt and created should be the same instant (D-03), got ${c.createdAt} and ${c.created}`, created);
      const got = await ctx.call(ctx.customer, 'getCase', { caseId: c.id });
      expectStatus(got, 200, 'getCase of the new case');
      expect(JSON.stringify(got.json.data) === JSON.stringify(c), 'getCase should answer the case exactly as created', got);
      const updated = await ctx.call(ctx.customer, 'updateCase', { caseId: c.id }, { json: { status: 10, priority: 1, shortDescription: `${MARK} resources updated` } });
      expectStatus(updated, 200, 'updateCase');
      const u = updated.json.data;
      expect(u.status === 10 && u.priority === 1 && u.shortDescription === `${MARK} resources updated`, 'updateCase: the answer should hold the new status, priority and shortDescription', updated);
      expect(u.description === c.description && u.contract === c.contract, 'updateCase: fields left out must keep their value', updated);
      expect(Date.parse(u.updatedAt) >= Date.parse(c.updatedAt), 'updateCase: updatedAt must not go back', updated);
      const again = await ctx.call(ctx.customer, 'getCase', { caseId: c.id });
      expect(again.json?.data?.status === 10 && again.json.data.priority === 1, 'getCase after updateCase should show the update', again);
    },
  },
  {
    id: 'resources.comments',
    area: 'resources',
    title: 'Comments: create, get, list; the partner variant by a partner account',
    statements: ['S4.comment-crud', 'S2.comment-fields', 'D-09.comments'],
    needs: ['writes'],
    async run(ctx) {
      const caseId = await ctx.fixtures.caseId();
      const contact = ctx.config.customer.contacts[0];
      if (!contact) throw new Skip('no customer contact in the configuration');
      const created = await ctx.call(ctx.customer, 'createCaseComment', { caseId }, { json: { text: `${MARK} comment ${ctx.runTag}`, contact } });
      expectStatus(created, 201, 'createCaseComment');
      const c = created.json.data;
      expect(c.case === caseId && c.contact === contact && c.partnerComment === false, 'createCaseComment: case, contact and partnerComment false expected', created);
      const got = await ctx.call(ctx.customer, 'getCaseComment', { caseId, commentId: c.id });
      expectStatus(got, 200, 'getCaseComment');
      expect(JSON.stringify(got.json.data) === JSON.stringify(c), 'getCaseComment should answer the comment as created', got);
      const list = await ctx.listAll(ctx.customer, 'listCaseComments', { caseId });
      expect(list.items.some((i) => i.id === c.id), 'listCaseComments should hold the new comment');
      if (!ctx.partner) return 'no partner account: partner variant not exercised';
      const partnerContact = ctx.config.partner!.contacts[0];
      const partnerContract = await ctx.fixtures.contract(ctx.partner);
      const pcase = await ctx.call(ctx.partner, 'createCase', {}, { json: { contract: partnerContract, shortDescription: `${MARK} partner comments` } });
      expectStatus(pcase, 201, 'createCase by the partner');
      const pc = await ctx.call(ctx.partner, 'createCaseComment', { caseId: pcase.json.data.id }, { json: { text: `${MARK} partner comment`, contact: partnerContact, partnerComment: true } });
      expectStatus(pc, 201, 'createCaseComment partnerComment by the partner');
      const filtered = await ctx.list(ctx.partner, 'listCaseComments', { caseId: pcase.json.data.id }, 'filter[partnerComment]=true');
      expect(filtered.items.some((i) => i.id === pc.json.data.id), 'the partner comment should be listed under filter[partnerComment]=true', filtered.exchange);
    },
  },
  {
    id: 'resources.attachments',
    area: 'resources',
    title: 'Attachments: upload, record (size, sha256), list, download byte-identical with the content type of its record (an image and another type)',
    statements: ['S4.attachment-crud', 'S2.attachment-fields', 'D-10.attachments', 'D-67.download-type'],
    needs: ['writes'],
    async run(ctx) {
      const caseId = await ctx.fixtures.caseId();
      const bytes = Buffer.concat([Buffer.from([0, 255, 13, 10, 0x1f, 0x8b]), randomBytes(40_000)]);
      const m = multipart('conformance odd name.bin', 'image/png', bytes);
      const up = await ctx.call(ctx.customer, 'uploadCaseAttachment', { caseId }, { body: m.body, headers: { 'content-type': m.contentType } });
      expectStatus(up, 201, 'uploadCaseAttachment');
      const a = up.json.data;
      const sha = createHash('sha256').update(bytes).digest('hex');
      expect(a.size === bytes.length && a.sha256 === sha && a.contentType === 'image/png' && a.case === caseId, `the record should say size ${bytes.length}, sha256 ${sha.slice(0, 12)}…, image/png`, up);
      const got = await ctx.call(ctx.customer, 'getCaseAttachment', { caseId, attachmentId: a.id });
      expect(got.status === 200 && JSON.stringify(got.json.data) === JSON.stringify(a), 'getCaseAttachment should answer the record as uploaded', got);
      const list = await ctx.listAll(ctx.customer, 'listCaseAttachments', { caseId });
      expect(list.items.some((i) => i.id === a.id), 'listCaseAttachments should hold the new attachment');
      const dl = await ctx.call(ctx.customer, 'downloadCaseAttachment', { caseId, attachmentId: a.id });
      expectStatus(dl, 200, 'downloadCaseAttachment');
      expect(dl.bytes.equals(bytes), `the download (${dl.bytes.length} bytes, sha256 ${createHash('sha256').update(dl.bytes).digest('hex').slice(0, 12)}…) is not byte-identical to the upload (${bytes.length} bytes)`, dl);
      expect(mediaType(dl.headers['content-type']) === 'image/png', `the download should carry Content-Type image/png, got ${dl.headers['content-type']}`, dl);
      expect(/^attachment;/i.test(dl.headers['content-disposition'] ?? ''), 'the download should carry Content-Disposition: attachment (D-10)', dl);
      // Not only images: the download answers the type of the record, whatever it is (D-67), never a wildcard.
      const other = Buffer.from('{"conformance": true}\n');
      const n = multipart('conformance.cfg', 'application/vnd.conformance+json', other);
      const up2 = await ctx.call(ctx.customer, 'uploadCaseAttachment', { caseId }, { body: n.body, headers: { 'content-type': n.contentType } });
      expectStatus(up2, 201, 'uploadCaseAttachment of application/vnd.conformance+json');
      const dl2 = await ctx.call(ctx.customer, 'downloadCaseAttachment', { caseId, attachmentId: up2.json.data.id });
      expectStatus(dl2, 200, 'downloadCaseAttachment');
      expectEqual(up2.json.data.contentType, 'application/vnd.conformance+json', `the record of an upload typed application/vnd.conformance+json says ${JSON.stringify(up2.json.data.contentType)}`, up2, 'body.data.contentType');
      expectEqual(mediaType(dl2.headers['content-type']), up2.json.data.contentType,
        `the download of a record of type ${JSON.stringify(up2.json.data.contentType)} should carry that Content-Type, got ${JSON.stringify(dl2.headers['content-type'])}`, dl2, 'header.content-type');
      expect(dl2.bytes.equals(other), 'the download of the second upload is not byte-identical to it', dl2);
    },
  },
  {
    id: 'resources.contracts',
    area: 'resources',
    title: 'Contracts: update the external reference, read it back, restore it',
    statements: ['S4.contract-crud', 'D-11.contracts'],
    needs: ['writes'],
    async run(ctx) {
      const contractId = await ctx.fixtures.contract();
      const before = await ctx.call(ctx.customer, 'getContract', { contractId });
      expectStatus(before, 200, 'getContract');
      const old = before.json.data.externalReference ?? null;
      const ref = `${MARK} ${ctx.runTag}`;
      ctx.onCleanup(`restore externalReference of ${contractId}`, () => ctx.call(ctx.customer, 'updateContract', { contractId }, { json: { externalReference: old } }));
      const up = await ctx.call(ctx.customer, 'updateContract', { contractId }, { json: { externalReference: ref } });
      expectStatus(up, 200, 'updateContract');
      expect(up.json.data.externalReference === ref && up.json.data.name === before.json.data.name, 'updateContract should change externalReference and nothing else', up);
      const again = await ctx.call(ctx.customer, 'getContract', { contractId });
      expect(again.json?.data?.externalReference === ref, 'getContract after updateContract should show the new reference', again);
      const [e] = expectErrors(await ctx.call(ctx.customer, 'updateContract', { contractId }, { json: { externalReference: ref, name: 'x' } }), 400, 'updateContract of a read-only field (D-36)', 1);
      expect(e.detail.startsWith('body.name'), `the error should name body.name, got "${e.detail}"`);
    },
  },
  {
    id: 'resources.apikeys',
    area: 'resources',
    title: 'API keys: create (secret once), get, list, update label and expiry, revoke (record stays, revokedAt set)',
    statements: ['S4.apikey-crud', 'S3.apikey-soft-delete', 'S2.apikey-fields', 'D-02.success-codes', 'D-12.secret-once'],
    needs: ['writes'],
    async run(ctx) {
      const created = await ctx.call(ctx.customer, 'createApiKey', {}, { json: { label: `${MARK} key ${ctx.runTag}`, expiresAt: '2099-12-31T00:00:00Z' } });
      expectStatus(created, 201, 'createApiKey');
      const k = created.json.data;
      let revoked = false;
      ctx.onCleanup(`revoke API key ${k.id}`, async () => revoked || ctx.call(ctx.customer, 'revokeApiKey', { keyId: k.id }));
      expect(typeof k.secret === 'string' && k.secret.length > 8 && k.revokedAt === null, 'createApiKey should answer the secret once and revokedAt null', created);
      const got = await ctx.call(ctx.customer, 'getApiKey', { keyId: k.id });
      expectStatus(got, 200, 'getApiKey');
      expect(!('secret' in got.json.data) && got.json.data.label === k.label, 'getApiKey should answer the key without its secret', got);
      const list = await ctx.listAll(ctx.customer, 'listApiKeys');
      expect(list.items.some((i) => i.id === k.id), 'listApiKeys should hold the new key');
      const up = await ctx.call(ctx.customer, 'updateApiKey', { keyId: k.id }, { json: { label: `${MARK} renamed`, expiresAt: null } });
      expectStatus(up, 200, 'updateApiKey');
      expect(up.json.data.label === `${MARK} renamed` && up.json.data.expiresAt === null, 'updateApiKey should change label and expiry', up);
      const del = await ctx.call(ctx.customer, 'revokeApiKey', { keyId: k.id });
      expectStatus(del, 200, 'revokeApiKey');
      revoked = true;
      expect(typeof del.json.data.revokedAt === 'string' && Date.parse(del.json.data.revokedAt) <= Date.now() + 60_000, 'revokeApiKey should answer the key with revokedAt set', del);
      const after = await ctx.call(ctx.customer, 'getApiKey', { keyId: k.id });
      expectStatus(after, 200, 'getApiKey after revoking (soft delete: the record stays)');
      expect(after.json.data.revokedAt === del.json.data.revokedAt, 'the revoked key should keep its revokedAt', after);
      const listed = await ctx.list(ctx.customer, 'listApiKeys', {}, `filter[id]=${encodeURIComponent(k.id)}`);
      expect(listed.items.length === 1 && listed.items[0].revokedAt, 'a revoked key is still listed, with revokedAt', listed.exchange);
      expectErrors(await ctx.call(ctx.customer, 'updateApiKey', { keyId: k.id }, { json: { label: 'x' } }), 400, 'updateApiKey of a revoked key (D-12)', 1);
    },
  },
  {
    id: 'resources.webhooks',
    area: 'resources',
    title: 'Webhooks: create (signing secret once, secrets masked), get, list, update, delete (then 404)',
    statements: ['S4.webhook-crud', 'S2.webhook-fields', 'D-02.success-codes', 'D-16.secrets-masked'],
    needs: ['writes'],
    async run(ctx) {
      const body = {
        url: ctx.unusedWebhookUrl('crud'),
        contracts: ['*'],
        eventTypes: ['case.*'],
        authorization: [{ type: 'basic', username: 'conformance', password: 'p4ss' }, { type: 'header', name: 'X-Conformance', value: 'v4lue' }],
        enabled: false,
      };
      const created = await ctx.call(ctx.customer, 'createWebhook', {}, { json: body });
      expectStatus(created, 201, 'createWebhook');
      const w = created.json.data;
      let deleted = false;
      ctx.onCleanup(`delete webhook ${w.id}`, async () => deleted || ctx.call(ctx.customer, 'deleteWebhook', { webhookId: w.id }));
      expect(/^whsec_/.test(w.signingSecret ?? ''), 'createWebhook should answer a whsec_ signing secret', created);
      expect(!created.text.includes('p4ss') && !created.text.includes('v4lue'), 'createWebhook must not echo authorization secrets (D-16)', created);
      expect(w.url === body.url && JSON.stringify(w.eventTypes) === JSON.stringify(body.eventTypes) && w.enabled === false, 'createWebhook should answer url, eventTypes and enabled as sent', created);
      const got = await ctx.call(ctx.customer, 'getWebhook', { webhookId: w.id });
      expectStatus(got, 200, 'getWebhook');
      expect(!('signingSecret' in got.json.data) && !got.text.includes('p4ss'), 'getWebhook must show neither the signing secret nor authorization secrets', got);
      const list = await ctx.listAll(ctx.customer, 'listWebhooks');
      expect(list.items.some((i) => i.id === w.id), 'listWebhooks should hold the new subscription');
      const up = await ctx.call(ctx.customer, 'updateWebhook', { webhookId: w.id }, { json: { eventTypes: ['case.updated'], url: ctx.unusedWebhookUrl('crud-2') } });
      expectStatus(up, 200, 'updateWebhook');
      expect(JSON.stringify(up.json.data.eventTypes) === '["case.updated"]' && up.json.data.url.endsWith('crud-2'), 'updateWebhook should change eventTypes and url', up);
      expect(Array.isArray(up.json.data.authorization) && up.json.data.authorization.length === 2, 'updateWebhook must keep fields left out (authorization)', up);
      expectErrors(await ctx.call(ctx.customer, 'updateWebhook', { webhookId: w.id }, { json: { eventTypes: ['conformance.no.such.type'] } }), 400, 'updateWebhook with an event type matching nothing (D-16)', 1);
      const del = await ctx.call(ctx.customer, 'deleteWebhook', { webhookId: w.id });
      expectStatus(del, 204, 'deleteWebhook');
      deleted = true;
      expectErrors(await ctx.call(ctx.customer, 'getWebhook', { webhookId: w.id }), 404, 'getWebhook after deleteWebhook');
    },
  },
];
