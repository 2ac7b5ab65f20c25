// A real sandbox on 127.0.0.1:0 (in-memory SQLite unless told), tokens for the demo accounts of both environments,
// and a small HTTP helper that validates every answer against the description.
import { afterAll, beforeAll } from 'vitest';
import { loadSpec, validatorFor } from '../../src/spec/index.ts';
import type { Environment, OperationSpec, ResponseSpec } from '../../src/spec/types.ts';
import { createSandbox } from '../../src/sandbox/app.ts';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/app.ts';

export type Role = 'customer' | 'partner';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  bytes: Buffer;
}

export const spec = loadSpec();
export const BASES: Record<Environment, string> = { production: '/care/v0', sandbox: '/care/v0/sandbox' };

export async function exchange(origin: string, keyId: string, secret: string, audience: Environment): Promise<Response> {
  return fetch(`${origin}/auth/v2/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: keyId, client_secret: secret, audience }),
  });
}

export async function tokenFor(origin: string, keyId: string, secret: string, audience: Environment): Promise<string> {
  const response = await exchange(origin, keyId, secret, audience);
  if (response.status !== 200) throw new Error(`token exchange failed: ${response.status} ${await response.text()}`);
  return (await response.json()).access_token;
}

export async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json, bytes };
}

function responseSpecFor(op: OperationSpec, status: number): ResponseSpec | undefined {
  return (
    op.responses.find((r) => r.status === String(status)) ??
    op.responses.find((r) => r.status.toUpperCase() === `${String(status)[0]}XX`) ??
    op.responses.find((r) => r.status === 'default')
  );
}

/** Problems of an answer against the operation's declared response: status, headers, content type, schema. */
export function responseProblems(op: OperationSpec, env: Environment, answer: Answer): string[] {
  const problems: string[] = [];
  const declared = responseSpecFor(op, answer.status);
  if (!declared) return [`${op.operationId}: status ${answer.status} is not declared`];
  const envValue = answer.headers.get('x-careapi-env');
  if (envValue !== (env === 'production' ? 'Production' : 'Sandbox')) problems.push(`X-CareAPI-Env is ${envValue}`);
  for (const header of declared.headers) {
    // RateLimit and RateLimit-Policy come only from a sandbox started with --rate-limit (D-102)
    if (['content-disposition', 'content-length', 'www-authenticate', 'retry-after', 'ratelimit', 'ratelimit-policy'].includes(header.toLowerCase())) continue;
    if (!answer.headers.has(header)) problems.push(`header ${header} missing on ${answer.status}`);
  }
  if (declared.schema) {
    if (!/^application\/json/.test(answer.headers.get('content-type') ?? '')) problems.push(`content-type ${answer.headers.get('content-type')}`);
    const validate = validatorFor(spec, declared.schema as object);
    if (!validate(answer.json)) problems.push(`${op.operationId} ${answer.status}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  }
  return problems;
}

export interface Harness {
  sandbox: Sandbox;
  origin: string;
  tokens: Record<Environment, Record<Role, string>>;
  /** Call an operation path (`/cases?...`) in an environment as a role (or with a raw token). */
  call(env: Environment, who: Role | { token: string } | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** Same, and fail unless the answer matches the description of `operationId`. */
  checked(operationId: string, env: Environment, who: Role, method: string, path: string, body?: unknown): Promise<Answer>;
  close(): Promise<void>;
}

export async function startHarness(options: SandboxOptions = {}): Promise<Harness> {
  // loopbackOnly always (D-64): no test can make the sandbox deliver to a real host, whatever URL it subscribes.
  const sandbox = await createSandbox({ seedCases: 60, log: () => undefined, ...options, webhooks: { ...options.webhooks, loopbackOnly: true } });
  const origin = sandbox.url;
  const tokens = {} as Harness['tokens'];
  for (const env of ['production', 'sandbox'] as Environment[]) {
    tokens[env] = {
      customer: await tokenFor(origin, sandbox.demo[env].customer.apiKeyId, sandbox.demo[env].customer.apiKeySecret, env),
      partner: await tokenFor(origin, sandbox.demo[env].partner.apiKeyId, sandbox.demo[env].partner.apiKeySecret, env),
    };
  }
  const call: Harness['call'] = (env, who, method, path, body, headers = {}) => {
    const auth: Record<string, string> = who === null ? {} : { authorization: `Bearer ${typeof who === 'string' ? tokens[env][who] : who.token}` };
    const init: RequestInit = { method, headers: { ...auth, ...headers } };
    if (body !== undefined) {
      if (body instanceof FormData || typeof body === 'string' || body instanceof Uint8Array) init.body = body as BodyInit;
      else {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
    }
    return send(origin + BASES[env] + path, init);
  };
  return {
    sandbox,
    origin,
    tokens,
    call,
    async checked(operationId, env, who, method, path, body) {
      const answer = await call(env, who, method, path, body);
      const problems = responseProblems(spec.operation(operationId), env, answer);
      if (problems.length > 0) throw new Error(`${method} ${path} -> ${answer.status} ${answer.text.slice(0, 400)}\n${problems.join('\n')}`);
      return answer;
    },
    close: () => sandbox.close(),
  };
}

/** A case of the sandbox customer's first contract, for tests that need any one case to act on. */
export async function customerCase(h: Harness): Promise<{ id: string }> {
  const contract = h.sandbox.demo.sandbox.customer.contracts[0];
  return (await h.call('sandbox', 'customer', 'GET', `/cases?page[size]=1&filter[contract]=${contract}`)).json.data[0];
}

/**
 * A harness (20 cases) and one case of the customer's to act on, started before the tests of the file, or of the
 * describe block it is called in, and closed after them: read `.h` and `.caseId` inside the tests.
 */
export function harnessWithCase(options: SandboxOptions = { seedCases: 20 }): { readonly h: Harness; readonly caseId: string } {
  const fixture = { h: undefined as unknown as Harness, caseId: '' };
  beforeAll(async () => {
    fixture.h = await startHarness(options);
    fixture.caseId = (await customerCase(fixture.h)).id;
  });
  afterAll(async () => {
    await fixture.h?.close();
  });
  return fixture;
}

/** Polls a condition of the sandbox's own state (no fixed sleep); fails after `limitMs`. */
export async function eventually(condition: () => boolean, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
