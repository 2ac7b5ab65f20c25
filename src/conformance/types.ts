// Shapes shared by the suite's modules: configuration, checks and their results.
import type { Environment } from '../spec/types.ts';
import type { Exchange } from './http.ts';

export interface AccountConfig {
  apiKeyId?: string;
  apiKeySecret?: string;
  /** A bearer JWT given directly instead of an API key. */
  token?: string;
  contracts: string[];
  contacts: string[];
}

/** The JSON file `care-sandbox --write-config` writes and `care-conformance --config` reads (docs/conformance.md). */
export interface TargetConfig {
  environment: Environment;
  baseUrl: string;
  authUrl?: string;
  customer: AccountConfig;
  partner?: AccountConfig;
  foreignContract?: string;
  revokedApiKey?: { apiKeyId: string; apiKeySecret: string };
  agentUrl?: string;
}

export interface RunOptions {
  config: TargetConfig;
  /** Writes in production are refused unless this is set; sandbox always writes. */
  allowWrites: boolean;
  /** The target keeps no state and has no semantics (a mock): only shape checks run, the others skip. */
  stateless: boolean;
  /** Only these areas (all when empty). */
  areas: string[];
  /** Where the webhook receiver listens (host:port, port 0 for any) and the URL the service should deliver to. */
  listen: string;
  publicUrl?: string;
  /** Path of the bundled description. */
  specPath?: string;
  /** Bounded wait for one webhook delivery, in ms. */
  deliveryTimeoutMs: number;
  /** Bound of one request, from sending it to the last byte of the answer, in ms (default 30000). */
  requestTimeoutMs?: number;
  /** Aborted on SIGINT/SIGTERM: the run stops after cutting the current check short, cleans up and reports. */
  signal?: AbortSignal;
  /** Opt-in property-based stateful run (`--stateful N`): N random sequences, generated from `seed`. */
  stateful?: { runs: number; seed: number };
  /** Called as the run progresses (the console reporter prints it). */
  onProgress?: (event: ProgressEvent) => void;
}

export type ProgressEvent =
  | { kind: 'area-start'; area: string; checks: number }
  | { kind: 'result'; result: CheckResult }
  | { kind: 'area-end'; area: string; results: CheckResult[] };

export type CheckStatus = 'passed' | 'failed' | 'skipped';

export interface FailureDetail {
  why: string;
  curl?: string;
  status?: number;
  excerpt?: string;
  /** Structured, for tools (D-109): what was compared and the exchange it was read from. */
  context?: FailureContext;
}

export interface FailureContext {
  expected?: unknown;
  actual?: unknown;
  /** Where in the answer the value was read (`status`, `header.content-type`, `body.data.expiresAt`). */
  at?: string;
  exchange?: { method: string; url: string; status: number; contentType?: string; bodyLength?: number };
}

export interface CheckResult {
  id: string;
  area: string;
  title: string;
  statements: string[];
  status: CheckStatus;
  /** Why it was skipped. */
  reason?: string;
  failure?: FailureDetail;
  /** What a passing check covered, e.g. "36 field/operator pairs". */
  note?: string;
  durationMs: number;
  requests: number;
}

export interface RunReport {
  target: { environment: Environment; baseUrl: string };
  startedAt: string;
  durationMs: number;
  requests: number;
  results: CheckResult[];
  areas: AreaSummary[];
  /** True only when the run went to its end and no check failed. */
  ok: boolean;
  /** Why the run ended before its end: a target that cannot be checked as configured, or a signal. */
  stopped?: { kind: 'target' | 'interrupted'; why: string };
  /** After cleanup: what the run created and could not delete (webhook subscriptions, API keys) or close (cases). */
  left?: { webhooks: number; keys: number; cases: number; problems: string[]; items: string[] };
}

export interface AreaSummary {
  area: string;
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  requests: number;
  skipReasons: string[];
}

/** One page of a list operation, as Context.list answers it. */
export interface ListResult {
  exchange: Exchange;
  items: any[];
  page: { number: number; size: number; count: number; totalCount: number };
}
