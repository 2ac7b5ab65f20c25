// The run's configuration from a config file (`--config`, the JSON `care-sandbox --write-config` writes), `CARE_*`
// environment variables and flags; flags win over variables, variables over the file.
import { readFileSync } from 'node:fs';
import type { AccountConfig, TargetConfig } from './types.ts';

/** Flag name -> environment variable; one table so `--help` and docs/conformance.md stay in step with the code. */
export const SETTINGS = {
  'base-url': 'CARE_BASE_URL',
  environment: 'CARE_ENVIRONMENT',
  'auth-url': 'CARE_AUTH_URL',
  token: 'CARE_TOKEN',
  'api-key-id': 'CARE_API_KEY_ID',
  'api-key-secret': 'CARE_API_KEY_SECRET',
  contracts: 'CARE_CONTRACTS',
  contacts: 'CARE_CONTACTS',
  'foreign-contract': 'CARE_FOREIGN_CONTRACT',
  'partner-token': 'CARE_PARTNER_TOKEN',
  'partner-api-key-id': 'CARE_PARTNER_API_KEY_ID',
  'partner-api-key-secret': 'CARE_PARTNER_API_KEY_SECRET',
  'partner-contracts': 'CARE_PARTNER_CONTRACTS',
  'partner-contacts': 'CARE_PARTNER_CONTACTS',
  'revoked-api-key-id': 'CARE_REVOKED_API_KEY_ID',
  'revoked-api-key-secret': 'CARE_REVOKED_API_KEY_SECRET',
  listen: 'CARE_LISTEN',
  'public-url': 'CARE_PUBLIC_URL',
} as const;
export type SettingName = keyof typeof SETTINGS;

const list = (s: string | undefined) => (s ? s.split(',').map((v) => v.trim()).filter(Boolean) : undefined);

function readAccount(raw: any, where: string): AccountConfig {
  if (!raw || typeof raw !== 'object') throw new Error(`${where}: an object is required`);
  if (!raw.token && !(raw.apiKeyId && raw.apiKeySecret)) throw new Error(`${where}: give "token", or "apiKeyId" and "apiKeySecret"`);
  return {
    token: raw.token,
    apiKeyId: raw.apiKeyId,
    apiKeySecret: raw.apiKeySecret,
    contracts: Array.isArray(raw.contracts) ? raw.contracts.map(String) : [],
    contacts: Array.isArray(raw.contacts) ? raw.contacts.map(String) : [],
  };
}

/** Check a parsed config object and give it its type; errors name the member at fault. */
export function validateConfig(raw: any): TargetConfig {
  if (!raw || typeof raw !== 'object') throw new Error('config: a JSON object is required');
  if (raw.environment !== 'sandbox' && raw.environment !== 'production') throw new Error('config.environment: "sandbox" or "production"');
  if (typeof raw.baseUrl !== 'string' || !/^https?:\/\//.test(raw.baseUrl)) throw new Error('config.baseUrl: an http(s) URL is required');
  const config: TargetConfig = {
    environment: raw.environment,
    baseUrl: raw.baseUrl.replace(/\/$/, ''),
    authUrl: typeof raw.authUrl === 'string' ? raw.authUrl.replace(/\/$/, '') : undefined,
    customer: readAccount(raw.customer, 'config.customer'),
    foreignContract: raw.foreignContract,
    agentUrl: raw.agentUrl,
  };
  if (raw.partner) config.partner = readAccount(raw.partner, 'config.partner');
  if (raw.revokedApiKey) {
    if (!raw.revokedApiKey.apiKeyId || !raw.revokedApiKey.apiKeySecret) throw new Error('config.revokedApiKey: "apiKeyId" and "apiKeySecret" are required');
    config.revokedApiKey = { apiKeyId: raw.revokedApiKey.apiKeyId, apiKeySecret: raw.revokedApiKey.apiKeySecret };
  }
  return config;
}

export function readConfigFile(file: string): any {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read config ${file}: ${(err as Error).message}`);
  }
}

/** Merge file, environment and flags into one config. `values` are flag values by setting name. */
export function resolveConfig(file: any | undefined, env: NodeJS.ProcessEnv, values: Partial<Record<SettingName, string>>): { config: TargetConfig; listen: string; publicUrl?: string } {
  const get = (name: SettingName) => values[name] ?? env[SETTINGS[name]] ?? undefined;
  const raw: any = structuredClone(file ?? {});
  raw.customer ??= {};
  const set = (obj: any, key: string, v: unknown) => {
    if (v !== undefined) obj[key] = v;
  };
  set(raw, 'baseUrl', get('base-url'));
  set(raw, 'environment', get('environment'));
  set(raw, 'authUrl', get('auth-url'));
  set(raw.customer, 'token', get('token'));
  set(raw.customer, 'apiKeyId', get('api-key-id'));
  set(raw.customer, 'apiKeySecret', get('api-key-secret'));
  set(raw.customer, 'contracts', list(get('contracts')));
  set(raw.customer, 'contacts', list(get('contacts')));
  set(raw, 'foreignContract', get('foreign-contract'));
  if (get('partner-token') || get('partner-api-key-id')) raw.partner ??= {};
  if (raw.partner) {
    set(raw.partner, 'token', get('partner-token'));
    set(raw.partner, 'apiKeyId', get('partner-api-key-id'));
    set(raw.partner, 'apiKeySecret', get('partner-api-key-secret'));
    set(raw.partner, 'contracts', list(get('partner-contracts')));
    set(raw.partner, 'contacts', list(get('partner-contacts')));
  }
  if (get('revoked-api-key-id')) raw.revokedApiKey = { apiKeyId: get('revoked-api-key-id'), apiKeySecret: get('revoked-api-key-secret') };
  return { config: validateConfig(raw), listen: get('listen') ?? '127.0.0.1:0', publicUrl: get('public-url') };
}
