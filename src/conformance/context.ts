// Everything a check can use: the description, one HTTP client per account, the run's options, data to work on
// (created in sandbox, found in read-only runs), a receiver for deliveries, and a cleanup list.
import { loadSpec } from '../spec/index.ts';
import type { CareSpec, OperationSpec } from '../spec/types.ts';
import { tokenSource } from './auth.ts';
import { CheckFailure, Skip, expect, expectStatus } from './check.ts';
import { HttpClient, RequestCounter, type Exchange, type RequestOptions } from './http.ts';
import { Fixtures } from './fixtures.ts';
import type { Receiver } from './receiver.ts';
import type { RunOptions, TargetConfig } from './types.ts';

export const MARK = '[conformance]';

export interface ListResult {
  exchange: Exchange;
  items: any[];
  page: { number: number; size: number; count: number; totalCount: number };
}

export class Context {
  readonly spec: CareSpec;
  readonly config: TargetConfig;
  readonly counter = new RequestCounter();
  readonly customer: HttpClient;
  readonly partner?: HttpClient;
  readonly fixtures: Fixtures;
  /** Undo actions, run last to first when the run ends. */
  readonly cleanups: Array<{ what: string; run: () => Promise<unknown> }> = [];
  private readonly memos = new Map<string, Promise<unknown>>();
  /** A unique tag per run, so data of concurrent or earlier runs is never mistaken for ours. */
  /** The webhook receiver of the run (started on first use). */
  receiver!: Receiver;
  readonly runTag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  constructor(readonly options: RunOptions, spec?: CareSpec) {
    this.spec = spec ?? loadSpec(options.specPath);
    this.config = options.config;
    const env = this.config.environment;
    this.customer = new HttpClient(this.config.baseUrl, tokenSource(this.config.customer, this.config.authUrl, env, this.counter), this.counter, 'customer');
    if (this.config.partner) {
      this.partner = new HttpClient(this.config.baseUrl, tokenSource(this.config.partner, this.config.authUrl, env, this.counter), this.counter, 'partner');
    }
    this.fixtures = new Fixtures(this);
  }

  get environment() {
    return this.config.environment;
  }

  /** The header value every response must carry. */
  get envHeader(): string {
    return this.config.environment === 'production' ? 'Production' : 'Sandbox';
  }

  get canWrite(): boolean {
    return !this.options.stateless && (this.config.environment === 'sandbox' || this.options.allowWrites);
  }

  /**
   * A URL for subscriptions that exist to be listed and changed, never delivered to (they are disabled): the discard
   * port on loopback in sandbox; in production, which takes https only (D-32), a name that can never resolve.
   */
  unusedWebhookUrl(name: string): string {
    return this.environment === 'sandbox' ? `http://127.0.0.1:9/conformance-${name}` : `https://conformance.invalid/${name}`;
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

  async cleanup(): Promise<string[]> {
    const problems: string[] = [];
    for (const c of this.cleanups.splice(0).reverse()) {
      try {
        await c.run();
      } catch (err) {
        problems.push(`${c.what}: ${(err as Error).message}`);
      }
    }
    return problems;
  }

  fail(why: string, x?: Exchange): never {
    throw new CheckFailure(why, x);
  }
}
