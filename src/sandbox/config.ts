// The JSON config that `care-sandbox --write-config` writes and `care-conformance --config` reads (shape agreed with
// docs/conformance.md): every URL a plain string, demo credentials of the chosen environment.
import { basePaths } from '../spec/routes.ts';
import type { CareSpec, Environment } from '../spec/types.ts';
import type { DemoCredentials } from './seed.ts';

/** `spec`: the sandbox's description, whose servers give each environment's base path. */
export function conformanceConfig(origin: string, demo: DemoCredentials, environment: Environment, spec: Pick<CareSpec, 'document'>) {
  const d = demo[environment];
  const account = (a: DemoCredentials[Environment]['customer']) => ({
    apiKeyId: a.apiKeyId,
    apiKeySecret: a.apiKeySecret,
    contracts: a.contracts,
    contacts: a.contacts,
  });
  return {
    environment,
    baseUrl: origin + basePaths(spec.document)[environment],
    authUrl: `${origin}/auth/v2`,
    customer: account(d.customer),
    partner: account(d.partner),
    foreignContract: d.foreignContract,
    revokedApiKey: d.revokedApiKey,
    agentUrl: `${origin}/_agent`,
  };
}
