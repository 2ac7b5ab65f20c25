// What a handler gets: the environment, the caller, the request's parts and the services of the process.
import type { IncomingMessage } from 'node:http';
import type { CareSpec, Environment, OperationSpec } from '../spec/types.ts';
import type { Account, Auth } from './auth.ts';
import type { Dispatcher } from './dispatcher.ts';
import type { RecordPage, Storage } from './store/types.ts';

export interface Services {
  spec: CareSpec;
  store: Storage;
  auth: Auth;
  dispatcher: Dispatcher;
  /** Milliseconds since the epoch; replaceable in tests. */
  now: () => number;
}

export interface Ctx {
  env: Environment;
  account: Account;
  op: OperationSpec;
  params: Record<string, string>;
  query: URLSearchParams;
  req: IncomingMessage;
  requestId: string;
  svc: Services;
  /** The JSON body validated against the operation's request schema (coerced). */
  body(): Promise<Record<string, any>>;
}

export interface Reply {
  status: number;
  /** `data` of the envelope (the http layer adds `meta`); absent for 204. */
  data?: unknown;
  /** A page of the storage sent as `data` as it is (the http layer writes its records' bytes), instead of `data`. */
  records?: RecordPage;
  /** `meta.page` of a list. */
  page?: { number: number; size: number; count: number; totalCount: number };
  /** Raw bytes instead of an envelope (downloads). */
  raw?: { bytes: Buffer; contentType: string };
  headers?: Record<string, string>;
}

export type Handler = (ctx: Ctx) => Promise<Reply> | Reply;

// Handlers import the timestamps from here; they live in time.ts, which the dispatcher imports without this module.
export { after, iso } from './time.ts';
