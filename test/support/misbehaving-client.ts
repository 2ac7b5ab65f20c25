// The client pointed at a fake server of test/support/misbehaving-server.ts, shared by the client tests that make
// servers misbehave: a client with a fixed token, a getCase call, and the CareApiError a call must fail with.
import { expect } from 'vitest';
import { CareApiError, createCareClient, type CareClientOptions } from '../../src/client/index.ts';

/** The sandbox's base path, under which the fake servers answer. */
export const API = '/care/v0/sandbox';

export function clientOf(server: { url: string }, options: Partial<CareClientOptions> = {}) {
  return createCareClient({ environment: 'sandbox', baseUrl: `${server.url}${API}`, authUrl: `${server.url}/auth/v2`, token: 'fixed', ...options });
}

export const getCase = (client: ReturnType<typeof clientOf>, init: { signal?: AbortSignal } = {}) =>
  client.GET('/cases/{caseId}', { params: { path: { caseId: 'CS0010042' } }, ...init });

/** The CareApiError `promise` rejects with (the test fails when it resolves or rejects with anything else). */
export async function failure(promise: Promise<unknown>): Promise<CareApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CareApiError);
  return error as CareApiError;
}
