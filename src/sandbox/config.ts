// The JSON config that `care-sandbox --write-config` writes and `care-conformance --config` reads (shape agreed with
// docs/conformance.md): every URL a plain string, demo credentials of the chosen environment.
import type { Environment } from '../spec/types.ts';
import { BASE_PATHS } from './http/router.ts';
import type { DemoCredentials } from './seed.ts';

export function conformanceConfig(origin: string, demo: DemoCredentials, environment: Environment) {
  const d = demo[environment];
  const account = (a: DemoCredentials[Environment]['customer']) => ({
    apiKeyId: a.apiKeyId,
    apiKeySecret: a.apiKeySecret,
    contracts: a.contracts,
    contacts: a.contacts,
  });
  return {
    environment,
    baseUrl: origin + BASE_PATHS[environment],
    authUrl: `${origin}/auth/v2`,
    customer: account(d.customer),
    partner: account(d.partner),
    foreignContract: d.foreignContract,
    revokedApiKey: d.revokedApiKey,
    agentUrl: `${origin}/_agent`,
  };
}
