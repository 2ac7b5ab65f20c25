// Everything a check can use: the description, one HTTP client per account, the run's options, data to work on
// (created in sandbox, found in read-only runs), a receiver for deliveries, and a cleanup list.
import { loadSpec } from '../spec/index.ts';
import type { CareSpec, OperationSpec } from '../spec/types.ts';
import { tokenSource } from './auth.ts';
import { CheckFailure, Skip, expect, expectStatus } from './failure.ts';
import { HttpClient, RequestCounter, RequestTimeout, Unreachable, type Exchange, type RequestOptions } from './http.ts';
import { Fixtures } from './fixtures.ts';
import { ObservedAnswers } from './observed.ts';
import type { Receiver } from './receiver.ts';
import type { Environment } from '../spec/types.ts';
import type { ListResult, RunOptions, TargetConfig } from './types.ts';

// Checks import these from here; they live in modules of their own so fixtures.ts need not import this one.
export { MARK } from './mark.ts';
export type { ListResult } from './types.ts';

export class Context {
  readonly spec: CareSpec;
  readonly config: TargetConfig;
  readonly counter = new RequestCounter();
  readonly customer: HttpClient;
  readonly partner?: HttpClient;
  readonly fixtures: Fixtures;
  /** Every answer of the run, judged as it arrived (the operations area reports them). */
  readonly observed: ObservedAnswers;
  /** Undo actions, run last to first when the run ends. */
  readonly cleanups: Array<{ what: string; run: () => Promise<unknown> }> = [];
  private readonly memos = new Map<string, Promise<unknown>>();
  /** A unique tag per run, so data of concurrent or earlier runs is never mistaken for ours. */
  /** The webhook receiver of the run (started on first use). */
  receiver!: Receiver;
  readonly runTag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  /**
   * The environment the target itself answered in the preflight (`X-CareAPI-Env`), once it agreed with the
   * configured one; undefined while unproven. Writing needs it: a config that says sandbox is not proof.
   */
  provenEnvironment?: Environment;
  /** What the run created, seen in the answers themselves, so cleanup misses nothing a check forgot to register. */
  private readonly created = { webhooks: new Map<string, HttpClient>(), keys: new Map<string, HttpClient>(), cases: new Map<string, HttpClient>() };

  constructor(readonly options: RunOptions, spec?: CareSpec) {
    this.spec = spec ?? loadSpec(options.specPath);
    this.config = options.config;
    const env = this.config.environment;
    this.customer = new HttpClient(this.config.baseUrl, tokenSource(this.config.customer, this.config.authUrl, env, this.counter), this.counter, 'customer');
    if (this.config.partner) {
      this.partner = new HttpClient(this.config.baseUrl, tokenSource(this.config.partner, this.config.authUrl, env, this.counter), this.counter, 'partner');
    }
    this.observed = new ObservedAnswers(this.spec, () => this.operations(), () => this.envHeader);
    for (const client of this.clients()) {
      client.observe = (x) => {
        this.observed.observe(x);
        this.track(client, x);
      };
    }
    this.fixtures = new Fixtures(this);
  }

  /** Keep count of the cases, webhook subscriptions and API keys this run created and has not deleted yet. */
  private track(client: HttpClient, x: Exchange): void {
    const at = (operationId: string) => {
      const op = this.spec.operations.find((o) => o.operationId === operationId);
      if (!op || x.method !== op.method.toUpperCase()) return undefined;
      const pattern = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '([^/]+)');
      const m = new RegExp(`^${pattern}$`).exec(x.path);
      return m ? m.slice(1).map(decodeURIComponent) : undefined;
    };
    const id = x.json?.data?.id;
    if (x.status === 201 && typeof id === 'string') {
      if (at('createWebhook')) this.created.webhooks.set(id, client);
      else if (at('createApiKey')) this.created.keys.set(id, client);
      else if (at('createCase')) this.created.cases.set(id, client);
    }
    if ((x.status >= 200 && x.status < 300) || x.status === 404) {
      const webhook = at('deleteWebhook')?.[0];
      if (webhook) this.created.webhooks.delete(webhook);
      const key = at('revokeApiKey')?.[0];
      if (key) this.created.keys.delete(key);
    }
  }

  /** True while the run sends only GET, HEAD and OPTIONS to the target (D-108). */
  get readOnly(): boolean {
    return this.counter.readOnly !== undefined;
  }

  get environment() {
    return this.config.environment;
  }

  /** The header value every response must carry. */
  get envHeader(): string {
    return this.config.environment === 'production' ? 'Production' : 'Sandbox';
  }

  /**
   * Writing needs the target's own word: its answers said the configured environment (the preflight), and that is
   * sandbox, or production with --allow-writes.
   */
  get canWrite(): boolean {
    if (this.options.stateless || this.provenEnvironment !== this.config.environment) return false;
    return this.provenEnvironment === 'sandbox' || this.options.allowWrites;
  }

  /**
   * A URL for subscriptions that exist to be listed and changed, never delivered to (they are disabled): the discard
   * port on loopback in sandbox; in production, which takes https only (D-32), a name that can never resolve.
   */
  unusedWebhookUrl(name: string): string {
    // The run tag in the URL: the final sweep finds the subscription by it, whatever happened to the run's records.
    return this.environment === 'sandbox' ? `http://127.0.0.1:9/conformance-${this.runTag}-${name}` : `https://conformance.invalid/${this.runTag}/${name}`;
  }

  /** Operations that exist in the target's environment. */
  operations(): OperationSpec[] {
    return this.spec.operations.filter((op) => op.environments.includes(this.config.environment));
  }

  clients(): HttpClient[] {
    return this.partner ? [this.customer, this.partner] : [this.customer];
  }

  /** Memoise shared setup (created data, subscriptions) across checks. */
  memo<T>(key: string, make: () => Promise<T>): Promise<T> {
    let p = this.memos.get(key) as Promise<T> | undefined;
    if (!p) {
      p = make();
      this.memos.set(key, p);
    }
    return p;
  }

  partnerClient(): HttpClient {
    if (!this.partner) throw new Skip('no partner account in the configuration');
    return this.partner;
  }

  /** The path of an operation with its parameters filled in. */
  path(operationId: string, params: Record<string, string> = {}): string {
    const op = this.spec.operation(operationId);
    return op.path.replace(/\{(\w+)\}/g, (_, name) => {
      const value = params[name];
      if (value === undefined) throw new Error(`${operationId}: no value for path parameter ${name}`);
      return encodeURIComponent(value);
    });
  }

  call(client: HttpClient, operationId: string, params: Record<string, string> = {}, opts: Omit<RequestOptions, 'path' | 'method'> = {}): Promise<Exchange> {
    const op = this.spec.operation(operationId);
    return client.request({ ...opts, method: op.method, path: this.path(operationId, params) });
  }

  /** One page of a list operation, checked to be a 200 list envelope. */
  async list(client: HttpClient, operationId: string, params: Record<string, string> = {}, query = ''): Promise<ListResult> {
    const x = await this.call(client, operationId, params, { query });
    expectStatus(x, 200, `${operationId}${query ? ` ?${query}` : ''}`);
    const page = x.json?.meta?.page;
    expect(Array.isArray(x.json?.data) && page && typeof page === 'object', `${operationId}: a list answer needs data[] and meta.page`, x);
    return { exchange: x, items: x.json.data, page };
  }

  /** Up to `max` items of a list (pages of 200), for checks that reason about the whole list. */
  async listAll(client: HttpClient, operationId: string, params: Record<string, string> = {}, query = '', max = 1000): Promise<{ items: any[]; totalCount: number; complete: boolean }> {
    const items: any[] = [];
    let totalCount = 0;
    for (let number = 1; number <= Math.ceil(max / 200); number++) {
      const sep = query ? '&' : '';
      const r = await this.list(client, operationId, params, `${query}${sep}page[number]=${number}&page[size]=200`);
      totalCount = r.page.totalCount;
      items.push(...r.items);
      if (r.items.length < 200 || items.length >= totalCount) break;
    }
    return { items, totalCount, complete: items.length >= totalCount };
  }

  /** Register an undo action for something the suite created. */
  onCleanup(what: string, run: () => Promise<unknown>): void {
    this.cleanups.push({ what, run });
  }

  /**
   * Undo what the run did: the registered undo actions (last first), then every webhook subscription and API key the
   * answers show it created and did not delete, then its cases closed (they cannot be deleted through the API).
   * Subscriptions go first, so closing a case notifies none of ours. Never throws; answers what it could not undo.
   */
  async cleanup(): Promise<string[]> {
    const problems: string[] = [];
    // A target that stopped answering is not asked again and again (each request would wait out the timeout).
    let silent: string | undefined;
    const attempt = async (what: string, run: () => Promise<unknown>): Promise<boolean> => {
      if (silent) {
        problems.push(`${what}: not tried, ${silent}`);
        return false;
      }
      try {
        const x = (await run()) as Exchange | undefined;
        if (x && typeof x === 'object' && 'status' in x && x.status >= 400 && x.status !== 404) {
          problems.push(`${what}: HTTP ${x.status}`);
          return false;
        }
        return true;
      } catch (err) {
        if (err instanceof RequestTimeout || err instanceof Unreachable) silent = 'the target stopped answering';
        problems.push(`${what}: ${(err as Error).message}`);
        return false;
      }
    };
    for (const c of this.cleanups.splice(0).reverse()) await attempt(c.what, c.run);
    for (const [id, client] of [...this.created.webhooks]) await attempt(`delete webhook ${id}`, () => this.call(client, 'deleteWebhook', { webhookId: id }));
    for (const [id, client] of [...this.created.keys]) await attempt(`revoke API key ${id}`, () => this.call(client, 'revokeApiKey', { keyId: id }));
    const closed = this.closedStatus();
    if (closed !== undefined) {
      // Eight at a time: a long stateful run leaves thousands. A case the run moved to a contract its creator no
      // longer controls answers 403 and stays as it is, marked [conformance]: closing is best effort, and a case
      // that could not be closed stays counted.
      const queue = [...this.created.cases];
      let failedToClose = 0;
      const worker = async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const [id, client] = next;
          if (silent) break;
          const x = await this.call(client, 'updateCase', { caseId: id }, { json: { status: closed } }).catch((err) => {
            if (err instanceof RequestTimeout || err instanceof Unreachable) silent = 'the target stopped answering';
            return undefined;
          });
          if (x && ((x.status >= 200 && x.status < 300) || x.status === 403 || x.status === 404)) this.created.cases.delete(id);
          else failedToClose++;
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      if (failedToClose || silent) problems.push(`close ${this.created.cases.size} case(s): ${silent ?? 'refused'}`);
    }
    return problems;
  }

  /** The ids the run created and still holds: what a report names when cleanup could not undo it. */
  leftIds(): { webhooks: string[]; keys: string[]; cases: string[] } {
    return { webhooks: [...this.created.webhooks.keys()], keys: [...this.created.keys.keys()], cases: [...this.created.cases.keys()] };
  }

  /** The case status the description names Closed (x-enumDescriptions of the status schema), if any. */
  closedStatus(): number | undefined {
    const status = this.spec.operation('updateCase').requestBody?.schema as any;
    const body = status?.$ref ? this.spec.resolve(status.$ref) : status;
    const prop = body?.properties?.status;
    const schema = prop?.$ref ? this.spec.resolve(prop.$ref) : prop;
    const names = (schema?.['x-enumDescriptions'] ?? {}) as Record<string, string>;
    const code = Object.entries(names).find(([, name]) => /^closed$/i.test(name))?.[0];
    return code === undefined ? undefined : Number(code);
  }

  fail(why: string, x?: Exchange): never {
    throw new CheckFailure(why, x);
  }
}
