// Issue 46: promises of the decisions that no check sent a request for. A case listed after a write is the case
// getCase answers (D-84); an upload keeps exact bytes, stores no wildcard type, takes exactly the declared file size,
// cuts names by code points, reads at most the declared parts and keeps the first file part (D-93, the sizes from
// x-care-limits, D-100); a webhook URL with user information is
// refused (D-16); the token endpoint refuses a repeated parameter, a malformed Basic escape and a method other than
// POST (D-89); HTTP/1.1 without Host is a 400 in the envelope (D-89); a masked secret sent back keeps the stored
// secret (D-107).
import { createHash, randomBytes } from 'node:crypto';
import { expect, expectEqual, expectErrors, expectStatus, Skip, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { MARK } from '../context.ts';
import { send, type Exchange } from '../http.ts';
import { rawExchange } from './hardening-http.ts';
import { eventIdOf, fire, subscribe } from './webhooks.ts';

/** One part of a multipart/form-data body. */
interface Part {
  name: string;
  fileName?: string;
  contentType?: string;
  bytes: Buffer;
}

/** A multipart/form-data body of several parts, written by hand: clients never send most of these shapes. */
export function multipartOf(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----care-conformance-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.fileName !== undefined ? `; filename="${p.fileName}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.contentType ? `Content-Type: ${p.contentType}\r\n` : ''}\r\n`), p.bytes, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function upload(ctx: Context, caseId: string, parts: Part[]): Promise<Exchange> {
  const m = multipartOf(parts);
  return ctx.call(ctx.customer, 'uploadCaseAttachment', { caseId }, { body: m.body, headers: { 'content-type': m.contentType } });
}

/** The byte limit of one upload, as the description declares it (D-10), else 10 MiB. */
function uploadLimit(ctx: Context): number {
  const schema = ctx.spec.operation('uploadCaseAttachment').requestBody?.schema as any;
  const resolved = schema?.$ref ? ctx.spec.resolve(schema.$ref) : schema;
  const declared = /(\d{6,}) bytes included/.exec(String(resolved?.description ?? ''))?.[1];
  if (!declared) throw new Skip('the description of the upload declares no byte limit ("N bytes included")');
  return Number(declared);
}

/** The token endpoint the configuration names, or a skip. */
function tokenUrl(ctx: Context): string {
  if (!ctx.config.authUrl) throw new Skip('no authUrl in the configuration: the token endpoint is unknown');
  return `${ctx.config.authUrl.replace(/\/$/, '')}/oauth/token`;
}

export const promiseChecks: Check[] = [
  {
    id: 'resources.list-after-write',
    area: 'resources',
    title: 'A case listed after an update is the case getCase answers, and a filter on the old value no longer finds it (D-84)',
    statements: ['S4.case-crud', 'S1.filter-semantics', 'D-84.lists-current', 'D-88.last-write-wins'],
    needs: ['writes', 'state'],
    async run(ctx) {
      const contract = await ctx.fixtures.contract();
      const created = await ctx.call(ctx.customer, 'createCase', {}, { json: { contract, shortDescription: `${MARK} ${ctx.runTag} list after write`, priority: 4 } });
      expectStatus(created, 201, 'createCase');
      const id = created.json.data.id;
      const byId = `filter[id]=${encodeURIComponent(id)}`;
      const listed = async (query: string) => (await ctx.list(ctx.customer, 'listCases', {}, query)).items.find((c) => c.id === id);
      expect(await listed(byId), `listCases ?${byId} does not list the case just created`);
      const writes: Array<Record<string, unknown>> = [{ priority: 2 }, { shortDescription: `${MARK} ${ctx.runTag} list after write, updated`, description: 'listed as stored' }];
      for (const change of writes) {
        const up = await ctx.call(ctx.customer, 'updateCase', { caseId: id }, { json: change });
        expectStatus(up, 200, `updateCase ${JSON.stringify(change)}`);
        const got = await ctx.call(ctx.customer, 'getCase', { caseId: id });
        expectStatus(got, 200, 'getCase after updateCase');
        const page = await ctx.list(ctx.customer, 'listCases', {}, byId);
        const item = page.items.find((c) => c.id === id);
        expectEqual(item, got.json.data, `after updateCase ${JSON.stringify(change)}, listCases answers ${JSON.stringify(item)}, getCase ${JSON.stringify(got.json.data)}: the list is not the stored case`, page.exchange, `body.data[id=${id}]`);
      }
      const old = await ctx.list(ctx.customer, 'listCases', {}, `${byId}&filter[priority]=4`);
      expect(old.items.length === 0 && old.page.totalCount === 0, `listCases ?filter[priority]=4 still finds ${id} after it was updated to priority 2`, old.exchange);
      const now = await ctx.list(ctx.customer, 'listCases', {}, `${byId}&filter[priority]=2`);
      expect(now.items.length === 1 && now.page.totalCount === 1, `listCases ?filter[priority]=2 does not find ${id} after it was updated to priority 2`, now.exchange);
      return `${writes.length} updates compared`;
    },
  },
  {
    id: 'resources.upload-parts',
    area: 'resources',
    title: 'Uploads: exact bytes whatever the charset, no wildcard type stored, a file part without filename named file, exactly the limit accepted and one byte more 413, names cut at the declared code points, at most the declared parts read, the first file part kept (D-93)',
    statements: ['S4.attachment-crud', 'D-10.attachments', 'D-93.upload-parts', 'D-66.upload-without-filename'],
    needs: ['writes', 'state'],
    async run(ctx) {
      const caseId = await ctx.fixtures.caseId();
      // A text part in a charset: stored as the bytes sent, never decoded (é and ü in ISO-8859-1, a NUL, CR LF).
      const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xfc, 0x00, 0x0d, 0x0a]);
      const text = await upload(ctx, caseId, [{ name: 'file', fileName: 'latin1.txt', contentType: 'text/plain; charset=iso-8859-1', bytes: latin1 }]);
      expectStatus(text, 201, 'uploadCaseAttachment of a text part with charset=iso-8859-1');
      expect(text.json.data.sha256 === sha256(latin1) && text.json.data.size === latin1.length, `a text part with a charset: the record says size ${text.json.data.size}, sha256 ${String(text.json.data.sha256).slice(0, 12)}…; the bytes sent are ${latin1.length}, ${sha256(latin1).slice(0, 12)}… (D-93: never decoded)`, text);
      expect(text.json.data.contentType === 'text/plain', `a part typed "text/plain; charset=iso-8859-1" should be stored as text/plain, got ${JSON.stringify(text.json.data.contentType)}`, text);
      const dl = await ctx.call(ctx.customer, 'downloadCaseAttachment', { caseId, attachmentId: text.json.data.id });
      expect(dl.status === 200 && dl.bytes.equals(latin1), `the download of the charset part is not the bytes sent (${dl.bytes.length} bytes)`, dl);
      // Wildcards and forms that name no concrete type are stored as application/octet-stream.
      for (const type of ['*/*', 'image/*', 'text']) {
        const x = await upload(ctx, caseId, [{ name: 'file', fileName: 'wild.bin', contentType: type, bytes: Buffer.from('wildcard') }]);
        expectStatus(x, 201, `uploadCaseAttachment with part type ${type}`);
        expect(x.json.data.contentType === 'application/octet-stream', `a part typed "${type}" should be stored as application/octet-stream, got ${JSON.stringify(x.json.data.contentType)} (D-93)`, x);
      }
      // Names: cut after the declared code points (x-care-limits), never between the halves of a surrogate pair.
      const { fileNameCodePoints: cut, parts: partLimit } = ctx.spec.limits.multipart;
      const name = `${'n'.repeat(cut - 1)}\u{1F5A8}\u{1F5A8}.log`;
      const named = await upload(ctx, caseId, [{ name: 'file', fileName: name, contentType: 'text/plain', bytes: Buffer.from('named') }]);
      expectStatus(named, 201, `uploadCaseAttachment with a ${[...name].length} code point name`);
      const stored = String(named.json.data.fileName);
      expect([...stored].length === cut && stored === [...name].slice(0, cut).join(''), `a name of ${[...name].length} code points should be stored as its first ${cut} code points, got ${[...stored].length} code points ending ${JSON.stringify(stored.slice(-3))}`, named);
      // Two file parts: the first is the file; the second is read and dropped.
      const first = Buffer.from('first file part');
      const two = await upload(ctx, caseId, [{ name: 'file', fileName: 'a.txt', contentType: 'text/plain', bytes: first }, { name: 'file', fileName: 'b.txt', contentType: 'text/plain', bytes: Buffer.from('second file part, longer') }]);
      expectStatus(two, 201, 'uploadCaseAttachment with two file parts');
      expect(two.json.data.sha256 === sha256(first) && two.json.data.fileName === 'a.txt', `of two file parts the first should be kept, the record holds ${two.json.data.fileName} (${two.json.data.size} bytes)`, two);
      // A `file` part without filename= is the file, named `file` (D-66), its bytes as sent.
      const nameless = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
      const bare = await upload(ctx, caseId, [{ name: 'file', contentType: 'application/octet-stream', bytes: nameless }]);
      expectStatus(bare, 201, 'uploadCaseAttachment with a file part without filename=');
      expect(bare.json.data.fileName === 'file' && bare.json.data.sha256 === sha256(nameless), `a file part without filename= should be stored as "file" with the bytes sent, got ${JSON.stringify(bare.json.data.fileName)} (${bare.json.data.size} bytes)`, bare);
      // At most the declared parts are read: a file after that many other parts is never reached.
      const many = Array.from({ length: partLimit }, (_, i): Part => ({ name: `extra${i}`, bytes: Buffer.from('x') }));
      const late = await upload(ctx, caseId, [...many, { name: 'file', fileName: 'late.txt', contentType: 'text/plain', bytes: Buffer.from('late') }]);
      const [lateError] = expectErrors(late, 400, `uploadCaseAttachment whose file is part ${partLimit + 1}`);
      expect(new RegExp(`\\b${partLimit} parts`).test(lateError.detail), `a file after ${partLimit} parts: the error should say more than ${partLimit} parts, got "${lateError.detail}"`, late);
      // Exactly the limit is accepted, one byte more is 413.
      const limit = uploadLimit(ctx);
      const exact = await upload(ctx, caseId, [{ name: 'file', fileName: 'exact.bin', contentType: 'application/octet-stream', bytes: Buffer.alloc(limit, 0x61) }]);
      expectStatus(exact, 201, `uploadCaseAttachment of exactly ${limit} bytes`);
      expect(exact.json.data.size === limit, `an upload of exactly ${limit} bytes is recorded as ${exact.json.data.size}`, exact);
      const over = await upload(ctx, caseId, [{ name: 'file', fileName: 'over.bin', contentType: 'application/octet-stream', bytes: Buffer.alloc(limit + 1, 0x61) }]);
      expectErrors(over, 413, `uploadCaseAttachment of ${limit + 1} bytes`);
      return `charset, 3 wildcard forms, a long name, two file parts, no filename, ${partLimit + 1} parts, ${limit} and ${limit + 1} bytes`;
    },
  },
  {
    id: 'resources.webhook-userinfo',
    area: 'resources',
    title: 'A webhook url with user information is 400 value_error at body.url, on create and update (D-16)',
    statements: ['S4.webhook-crud', 'D-16.url-userinfo', 'D-25.codes'],
    needs: ['writes', 'state'],
    async run(ctx) {
      const plain = new URL(ctx.unusedWebhookUrl('userinfo'));
      const withUser = `${plain.protocol}//conformance:p4ss@${plain.host}${plain.pathname}`;
      const create = await ctx.call(ctx.customer, 'createWebhook', {}, { json: { url: withUser, enabled: false } });
      const [e] = expectErrors(create, 400, `createWebhook with url ${withUser}`);
      expect(String(e.detail).startsWith('body.url') && e.code === 'value_error', `the error should be value_error at body.url, got ${e.code} "${e.detail}"`, create);
      expect(!create.text.includes('p4ss'), 'the 400 must not echo the password of the URL', create);
      const webhookId = await ctx.fixtures.webhookId();
      const update = await ctx.call(ctx.customer, 'updateWebhook', { webhookId }, { json: { url: withUser } });
      const [u] = expectErrors(update, 400, `updateWebhook with url ${withUser}`);
      expect(String(u.detail).startsWith('body.url'), `the error should be at body.url, got "${u.detail}"`, update);
    },
  },
  {
    id: 'resources.webhook-https',
    area: 'resources',
    title: 'In production a webhook url must be https: an http one is 400 at body.url (D-32)',
    statements: ['S4.webhook-crud', 'D-32.limits'],
    needs: ['writes', 'state'],
    async run(ctx) {
      if (ctx.environment === 'sandbox') throw new Skip('sandbox takes http webhook URLs, so local receivers work (D-32)');
      const url = ctx.unusedWebhookUrl('http').replace(/^https:/, 'http:');
      const x = await ctx.call(ctx.customer, 'createWebhook', {}, { json: { url, enabled: false } });
      if (x.status === 201) ctx.onCleanup(`delete webhook ${x.json.data.id}`, () => ctx.call(ctx.customer, 'deleteWebhook', { webhookId: x.json.data.id }));
      const [e] = expectErrors(x, 400, `createWebhook with url ${url} in production`);
      expect(String(e.detail).startsWith('body.url'), `the error should be at body.url, got "${e.detail}"`, x);
    },
  },
  {
    id: 'webhooks.masked-secret-kept',
    area: 'webhooks',
    title: 'A subscription sent back as answered (secrets ********) keeps its secrets: deliveries carry the real one; ******** with nothing stored is 400 (D-107)',
    statements: ['S6.delivery-authorization', 'D-16.secrets-masked', 'D-107.masked-secret-kept'],
    needs: ['writes', 'sandbox', 'webhooks'],
    async run(ctx) {
      const token = `masked-kept-${ctx.runTag}`;
      const sub = await subscribe(ctx, 'masked secret', { eventTypes: ['case.updated'], authorization: { type: 'bearer', token } });
      const got = await ctx.call(ctx.customer, 'getWebhook', { webhookId: sub.id });
      expectStatus(got, 200, 'getWebhook');
      const answered = got.json.data.authorization;
      expect(answered?.token === '********', `getWebhook should answer the bearer token as ********, got ${JSON.stringify(answered)}`, got);
      // A read-modify-write client: the subscription as answered, with one change.
      const up = await ctx.call(ctx.customer, 'updateWebhook', { webhookId: sub.id }, { json: { eventTypes: ['case.updated'], authorization: answered, enabled: true } });
      expectStatus(up, 200, 'updateWebhook sending the masked authorization back');
      const eventId = await fire(ctx, 'case.updated');
      const d = await ctx.receiver.waitFor((x) => x.path === sub.path && eventIdOf(x) === eventId, ctx.options.deliveryTimeoutMs, `masked secret: event ${eventId}`).catch((err) => ctx.fail((err as Error).message));
      expect(d.headers.authorization === `Bearer ${token}`, `after sending ******** back, the delivery should carry the stored bearer token, got ${d.headers.authorization === 'Bearer ********' ? 'Bearer ********' : d.headers.authorization ? 'another value' : 'none'}`);
      const fresh = await ctx.call(ctx.customer, 'createWebhook', {}, { json: { url: ctx.unusedWebhookUrl('masked'), enabled: false, authorization: { type: 'bearer', token: '********' } } });
      const [e] = expectErrors(fresh, 400, 'createWebhook with a bearer token ******** (nothing stored to keep)');
      expect(String(e.detail).startsWith('body.authorization'), `the error should be at body.authorization, got "${e.detail}"`, fresh);
      return `delivery ${eventId} carried the stored token`;
    },
  },
  {
    id: 'auth.token-endpoint-refusals',
    area: 'auth',
    title: 'The token endpoint: a parameter given twice and a malformed Basic escape are 400 invalid_request; GET is 405 with Allow: POST (D-89)',
    statements: ['S5.bearer-jwt', 'D-89.token-endpoint'],
    needs: ['state'],
    async run(ctx) {
      const url = tokenUrl(ctx);
      const account = ctx.config.customer;
      if (!account.apiKeyId || !account.apiKeySecret) throw new Skip('the customer account is configured with a token, not an API key');
      const form = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
      const expectOAuth400 = (x: Exchange, what: string) => {
        expect(x.status === 400, `${what}: expected 400, got ${x.status}`, x);
        expect(x.json?.error === 'invalid_request', `${what}: expected error invalid_request, got ${JSON.stringify(x.json?.error)}`, x);
      };
      const credentials = `client_id=${encodeURIComponent(account.apiKeyId)}&client_secret=${encodeURIComponent(account.apiKeySecret)}&audience=${ctx.environment}`;
      // A read-only run sends POST only here: the token endpoint exchanges credentials and changes nothing.
      const twice = await send('POST', url, form, `grant_type=client_credentials&grant_type=client_credentials&${credentials}`, ctx.counter);
      expectOAuth400(twice, 'grant_type given twice');
      const basic = Buffer.from(`${encodeURIComponent(account.apiKeyId)}%zz:${encodeURIComponent(account.apiKeySecret)}`).toString('base64');
      const escape = await send('POST', url, { ...form, authorization: `Basic ${basic}` }, `grant_type=client_credentials&audience=${ctx.environment}`, ctx.counter);
      expectOAuth400(escape, 'Basic credentials with the malformed escape %zz');
      const get = await send('GET', url, { accept: 'application/json' }, undefined, ctx.counter);
      expect(get.status === 405, `GET ${url}: expected 405, got ${get.status}`, get);
      expect((get.headers.allow ?? '').split(',').map((m) => m.trim().toUpperCase()).includes('POST'), `GET ${url}: the 405 should carry Allow: POST, got "${get.headers.allow ?? ''}"`, get);
      return 'repeated parameter, malformed escape, GET';
    },
  },
  {
    id: 'operations.no-host',
    area: 'operations',
    title: 'An HTTP/1.1 request without Host is 400 in the error envelope with X-CareAPI-Env (D-89)',
    statements: ['S1.env-header', 'S1.error-envelope', 'D-89.no-host'],
    needs: ['state'],
    async run(ctx) {
      const path = ctx.path('listContracts');
      const answer = await rawExchange(ctx, (base) => `GET ${base}${path} HTTP/1.1\r\nAccept: application/json\r\nConnection: close\r\n\r\n`);
      expect(answer.status === 400, `GET ${path} without Host: expected 400, got ${answer.status || 'no answer'} (${answer.text})`);
      expect(answer.headers['x-careapi-env'] === ctx.envHeader, `GET ${path} without Host: the 400 lacks X-CareAPI-Env: ${ctx.envHeader} (${answer.text})`);
      expect(Array.isArray(answer.json?.errors) && answer.json.errors.length > 0 && answer.json.meta, `GET ${path} without Host: the 400 is not in the error envelope (${answer.text})`);
    },
  },
];
