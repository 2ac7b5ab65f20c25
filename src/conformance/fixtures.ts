// Data for checks to work on. With writes the suite creates its own (marked `[conformance]`, cleaned up where the
// API allows); in a read-only run it takes what the lists answer.
import { randomBytes } from 'node:crypto';
import type { CareSpec, Environment } from '../spec/types.ts';
import { Skip, expect, expectStatus } from './failure.ts';
import type { Exchange, HttpClient, RequestOptions } from './http.ts';
import { MARK } from './mark.ts';
import type { ListResult, TargetConfig } from './types.ts';

/** What fixtures use of the run. Context has all of it; naming it here keeps fixtures.ts from importing context.ts. */
export interface FixtureHost {
  readonly spec: CareSpec;
  readonly config: TargetConfig;
  readonly customer: HttpClient;
  readonly runTag: string;
  readonly environment: Environment;
  readonly canWrite: boolean;
  call(client: HttpClient, operationId: string, params?: Record<string, string>, opts?: Omit<RequestOptions, 'path' | 'method'>): Promise<Exchange>;
  list(client: HttpClient, operationId: string, params?: Record<string, string>, query?: string): Promise<ListResult>;
  listAll(client: HttpClient, operationId: string, params?: Record<string, string>, query?: string, max?: number): Promise<{ items: any[]; totalCount: number; complete: boolean }>;
  memo<T>(key: string, make: () => Promise<T>): Promise<T>;
  onCleanup(what: string, run: () => Promise<unknown>): void;
  unusedWebhookUrl(name: string): string;
}

/** A multipart/form-data body with one part `file`. */
export function multipart(fileName: string, contentType: string, bytes: Buffer): { body: Buffer; contentType: string } {
  const boundary = `----care-conformance-${randomBytes(8).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${contentType}\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

export class Fixtures {
  constructor(private readonly ctx: FixtureHost) {}

  /** The customer's own contract: from the config, else the first the API lists. */
  contract(client: HttpClient = this.ctx.customer): Promise<string> {
    return this.ctx.memo(`contract:${client.label}`, async () => {
      const account = client.label === 'partner' ? this.ctx.config.partner : this.ctx.config.customer;
      if (account?.contracts?.[0]) return account.contracts[0];
      const r = await this.ctx.list(client, 'listContracts');
      expect(r.items.length > 0, `the ${client.label} account lists no contract`, r.exchange);
      return r.items[0].id as string;
    });
  }

  /** Contracts the account controls, as the API lists them. */
  controlledContracts(client: HttpClient = this.ctx.customer): Promise<Set<string>> {
    return this.ctx.memo(`controlled:${client.label}`, async () => {
      const all = await this.ctx.listAll(client, 'listContracts');
      return new Set(all.items.map((c) => c.id as string));
    });
  }

  /** A handful of varied cases of the customer (created with writes), for lists, filters and sorting. */
  cases(): Promise<any[]> {
    return this.ctx.memo('cases', async () => {
      if (!this.ctx.canWrite) {
        const r = await this.ctx.list(this.ctx.customer, 'listCases', {}, 'page[size]=200');
        return r.items;
      }
      const contract = await this.contract();
      const contact = this.ctx.config.customer.contacts[0];
      const shapes = [
        { priority: 1, description: 'Toner, drum and fuser', status: 10 },
        { priority: 2, description: null, status: 18, watch: true },
        { priority: 3, description: 'Screen flickers', status: undefined },
        { priority: 4, description: 'VPN drops, every hour', status: 10, watch: true },
        { priority: 2, description: 'Badge reader', status: 6 },
        { priority: 1, description: null, status: undefined },
      ];
      const created: any[] = [];
      for (const [i, s] of shapes.entries()) {
        const body: Record<string, unknown> = {
          contract,
          shortDescription: `${MARK} ${this.ctx.runTag} case ${i + 1}${i === 3 ? ', with a comma' : ''}`,
          priority: s.priority,
        };
        if (s.description !== null) body.description = s.description;
        if (contact && i % 2 === 0) body.contact = contact;
        if (contact && s.watch) body.watchList = [contact];
        const x = await this.ctx.call(this.ctx.customer, 'createCase', {}, { json: body });
        expectStatus(x, 201, 'creating a fixture case');
        let item = x.json.data;
        if (s.status !== undefined) {
          const u = await this.ctx.call(this.ctx.customer, 'updateCase', { caseId: item.id }, { json: { status: s.status } });
          expectStatus(u, 200, 'setting the status of a fixture case');
          item = u.json.data;
        }
        created.push(item);
      }
      return created;
    });
  }

  /** One case of the customer to hang comments, attachments and events on. */
  async caseId(): Promise<string> {
    const cases = await this.cases();
    if (cases.length === 0) throw new Skip('the account has no case to work on (read-only run on an empty list)');
    return cases[0].id;
  }

  /** A comment on `caseId()`. */
  commentId(): Promise<string> {
    return this.ctx.memo('comment', async () => {
      const caseId = await this.caseId();
      if (!this.ctx.canWrite) return this.firstId('listCaseComments', { caseId }, 'comment');
      const contact = this.ctx.config.customer.contacts[0];
      if (!contact) throw new Skip('no customer contact in the configuration to write a comment with');
      // Two comments with different contacts, so filters and sorting on comments have something to tell apart.
      const second = this.ctx.config.customer.contacts[1] ?? contact;
      const x = await this.ctx.call(this.ctx.customer, 'createCaseComment', { caseId }, { json: { text: `${MARK} fixture comment`, contact } });
      expectStatus(x, 201, 'creating a fixture comment');
      const y = await this.ctx.call(this.ctx.customer, 'createCaseComment', { caseId }, { json: { text: `${MARK} second fixture comment, with a comma`, contact: second } });
      expectStatus(y, 201, 'creating a fixture comment');
      return x.json.data.id;
    });
  }

  /** An attachment on `caseId()`, with the bytes uploaded. */
  attachment(): Promise<{ id: string; bytes?: Buffer; contentType?: string; fileName?: string }> {
    return this.ctx.memo('attachment', async () => {
      const caseId = await this.caseId();
      if (!this.ctx.canWrite) return { id: await this.firstId('listCaseAttachments', { caseId }, 'attachment') };
      const bytes = Buffer.concat([Buffer.from('conformance\u0000\r\n'), randomBytes(2048)]);
      const fileName = 'conformance-fixture.bin';
      const contentType = 'application/x-conformance';
      const m = multipart(fileName, contentType, bytes);
      const x = await this.ctx.call(this.ctx.customer, 'uploadCaseAttachment', { caseId }, { body: m.body, headers: { 'content-type': m.contentType } });
      expectStatus(x, 201, 'uploading a fixture attachment');
      const n = multipart('notes.txt', 'text/plain', Buffer.from('second fixture attachment\n'));
      expectStatus(await this.ctx.call(this.ctx.customer, 'uploadCaseAttachment', { caseId }, { body: n.body, headers: { 'content-type': n.contentType } }), 201, 'uploading a fixture attachment');
      return { id: x.json.data.id, bytes, contentType, fileName };
    });
  }

  /** An event of the customer's contracts (triggered in sandbox with writes). */
  eventId(): Promise<string> {
    return this.ctx.memo('event', async () => {
      if (this.ctx.canWrite && this.ctx.environment === 'sandbox') {
        const caseId = await this.caseId();
        const x = await this.ctx.call(this.ctx.customer, 'triggerCaseContractAssigned', {}, { json: { caseId } });
        expectStatus(x, 202, 'triggering a fixture event');
        const cases = await this.cases();
        const other = cases[cases.length - 1].id;
        expectStatus(await this.ctx.call(this.ctx.customer, 'triggerCaseUpdated', {}, { json: { caseId: other, updated: ['priority'] } }), 202, 'triggering a fixture event');
        return x.json.data.id;
      }
      return this.firstId('listEvents', {}, 'event log entry');
    });
  }

  /** A webhook subscription (created with writes, pointing at an address that refuses nothing and is never called). */
  webhookId(): Promise<string> {
    return this.ctx.memo('webhook', async () => {
      if (!this.ctx.canWrite) return this.firstId('listWebhooks', {}, 'webhook subscription');
      // Disabled, pointing at the discard port: these two exist to be listed, filtered and sorted, never called.
      const ids: string[] = [];
      for (const [path, types] of [['unused-a', ['case.comment.created']], ['unused-b', ['case.updated', 'case.attachment.*']]] as const) {
        const x = await this.ctx.call(this.ctx.customer, 'createWebhook', {}, {
          json: { url: this.ctx.unusedWebhookUrl(path), eventTypes: types, enabled: false },
        });
        expectStatus(x, 201, 'creating a fixture webhook subscription');
        const id = x.json.data.id;
        ids.push(id);
        this.ctx.onCleanup(`delete webhook ${id}`, () => this.ctx.call(this.ctx.customer, 'deleteWebhook', { webhookId: id }));
      }
      return ids[0];
    });
  }

  /** An API key record of the account (created and revoked again with writes). */
  keyId(): Promise<string> {
    return this.ctx.memo('apikey', async () => {
      if (!this.ctx.canWrite) return this.firstId('listApiKeys', {}, 'API key');
      const x = await this.ctx.call(this.ctx.customer, 'createApiKey', {}, { json: { label: `${MARK} fixture ${this.ctx.runTag}`, expiresAt: '2099-06-01T00:00:00Z' } });
      expectStatus(x, 201, 'creating a fixture API key');
      const id = x.json.data.id;
      this.ctx.onCleanup(`revoke API key ${id}`, () => this.ctx.call(this.ctx.customer, 'revokeApiKey', { keyId: id }));
      return id;
    });
  }

  private async firstId(operationId: string, params: Record<string, string>, what: string): Promise<string> {
    const r = await this.ctx.list(this.ctx.customer, operationId, params);
    if (r.items.length === 0) throw new Skip(`read-only run and the account has no ${what} to read`);
    return r.items[0].id;
  }

  /** The path parameters `operationId` declares, filled from the fixtures above. */
  async pathParams(operationId: string): Promise<Record<string, string>> {
    const names = this.ctx.spec.operation(operationId).parameters.filter((p) => p.in === 'path').map((p) => p.name);
    const params: Record<string, string> = {};
    for (const name of names) {
      switch (name) {
        case 'caseId': params.caseId = await this.caseId(); break;
        case 'commentId': params.commentId = await this.commentId(); break;
        case 'attachmentId': params.attachmentId = (await this.attachment()).id; break;
        case 'contractId': params.contractId = await this.contract(); break;
        case 'eventId': params.eventId = await this.eventId(); break;
        case 'webhookId': params.webhookId = await this.webhookId(); break;
        case 'keyId': params.keyId = await this.keyId(); break;
        default: throw new Error(`no fixture for path parameter ${name}`);
      }
    }
    return params;
  }
}
