// care-sandbox: start the reference sandbox. `care-sandbox --help` lists the options.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Environment } from '../spec/types.ts';
import { createSandbox } from './app.ts';
import { conformanceConfig } from './config.ts';
import { lockDatabase } from './db-lock.ts';
import { exposureLines, resolveDeployment } from './deployment.ts';

const HELP = `care-sandbox: the reference implementation of the Care API, stateful, on SQLite

Options:
  --port N                 port (default 4020; 0 picks a free one)
  --host H                 interface (default 127.0.0.1). Any address that is not loopback (0.0.0.0, a LAN
                           address) makes the sandbox hosted: see --agent-token and the README of @care-api/sandbox
  --public-url URL         the URL partners reach a hosted sandbox at (behind a proxy, say); its host is accepted
                           in Host, and declaring it makes the sandbox hosted
  --serve-demo-keys        a hosted sandbox serves the demo keys to every visitor of its console (default: it
                           serves none and the console asks for a key)
  --max-connections N      open connections at most when hosted (default 256)
  --db FILE                database file (default .care/sandbox.db; created and seeded on first start; one
                           sandbox per file: a second start on it is refused and names the first)
  --memory                 keep everything in memory instead
  --seed-cases N           cases per environment seeded into a new database (default 300)
  --case-lists KIND        who answers lists of cases: memory (default; an in-memory column engine, about 540 MB
                           at 1M cases) or sql (SQLite alone: slower lists, about 175 MB at 1M cases)
  --write-config FILE      write the conformance-suite config (JSON) of one environment
  --config-env ENV         environment of that config: sandbox (default) or production
  --webhook-retry-delays L comma-separated delays in ms between delivery attempts (default 5s,5m,30m,2h,5h,10h)
  --webhook-timeout MS     per-attempt timeout of deliveries (default 15000)
  --loopback-only          deliver webhooks only to loopback addresses (127.0.0.0/8, ::1, localhost); other
                           targets are refused without a connection (tests, fuzzing)
  --allow-private-webhooks let deliveries connect to internal addresses (loopback, private ranges, link-local such
                           as 169.254.169.254, fc00::/7, ...), for a local run; without it production deliveries
                           (and, when hosted, sandbox ones too) are refused after name resolution, before connecting
  --agent-token T          require "Authorization: Bearer T" on the agent API (default: open, loopback use;
                           required when hosted)
  --log-requests           print one line per request
  --explain-lists          print one line per list of cases: who answered it and how (the page cache, the column
                           engine and its plan, or SQL and why)
  --rate-limit N           answer 429 with Retry-After beyond N requests per second per API key, the quota in
                           RateLimit and RateLimit-Policy on every answer (default: no limit)
  --quiet                  print only the URL line
  --help                   this text

The API's reference is served at /docs/ of a running sandbox. More: the README of @care-api/sandbox.
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '4020' },
      host: { type: 'string', default: '127.0.0.1' },
      'public-url': { type: 'string' },
      'serve-demo-keys': { type: 'boolean', default: false },
      'max-connections': { type: 'string' },
      db: { type: 'string', default: '.care/sandbox.db' },
      memory: { type: 'boolean', default: false },
      'seed-cases': { type: 'string', default: '300' },
      'case-lists': { type: 'string', default: 'memory' },
      'write-config': { type: 'string' },
      'config-env': { type: 'string', default: 'sandbox' },
      'webhook-retry-delays': { type: 'string' },
      'webhook-timeout': { type: 'string' },
      'agent-token': { type: 'string' },
      'loopback-only': { type: 'boolean', default: false },
      'allow-private-webhooks': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      'log-requests': { type: 'boolean', default: false },
      'explain-lists': { type: 'boolean', default: false },
      'rate-limit': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const number = (name: string, text: string) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} wants a whole number, got ${text}`);
    return n;
  };
  const caseLists = values['case-lists'];
  if (caseLists !== 'memory' && caseLists !== 'sql') throw new Error(`--case-lists is memory or sql, got ${caseLists}`);
  const configEnv = values['config-env'] as Environment;
  if (configEnv !== 'sandbox' && configEnv !== 'production') throw new Error('--config-env is sandbox or production');
  // loopback or hosted (D-113): a hosted start without an agent token is refused before the database is touched
  const deploymentOptions = {
    host: values.host,
    publicUrl: values['public-url'],
    agentToken: values['agent-token'],
    serveDemoKeys: values['serve-demo-keys'],
    allowPrivateWebhooks: values['allow-private-webhooks'],
    ...(values['max-connections'] ? { maxConnections: number('max-connections', values['max-connections']) } : {}),
  };
  const deployment = resolveDeployment(deploymentOptions);
  // one sandbox per database file (D-86): taken before the file is opened, so a second start changes nothing
  const lock = values.memory ? undefined : lockDatabase(resolve(values.db!));
  const sandbox = await createSandbox({
    port: number('port', values.port!),
    host: values.host,
    db: values.memory ? ':memory:' : resolve(values.db!),
    seedCases: number('seed-cases', values['seed-cases']!),
    caseLists,
    agentToken: values['agent-token'],
    publicUrl: deploymentOptions.publicUrl,
    serveDemoKeys: deploymentOptions.serveDemoKeys,
    maxConnections: deploymentOptions.maxConnections,
    logRequests: values['log-requests'],
    explainLists: values['explain-lists'],
    ...(values['rate-limit'] ? { rateLimit: number('rate-limit', values['rate-limit']) } : {}),
    webhooks: {
      ...(values['webhook-retry-delays'] ? { retryDelaysMs: values['webhook-retry-delays'].split(',').map((d) => number('webhook-retry-delays', d)) } : {}),
      ...(values['webhook-timeout'] ? { timeoutMs: number('webhook-timeout', values['webhook-timeout']) } : {}),
      loopbackOnly: values['loopback-only'],
      allowPrivateTargets: values['allow-private-webhooks'],
    },
  });
  const origin = sandbox.url;
  lock?.setUrl(origin);
  if (values['write-config']) {
    const file = resolve(values['write-config']);
    writeFileSync(file, JSON.stringify(conformanceConfig(origin, sandbox.demo, configEnv, sandbox.svc.spec), null, 2) + '\n');
    if (!values.quiet) process.stdout.write(`config (${configEnv}) written to ${file}\n`);
  }
  process.stdout.write(`care-sandbox listening on ${origin}\n`);
  // what this sandbox exposes, and to whom (D-113), printed even with --quiet when it is hosted
  if (!values.quiet || deployment.hosted) {
    const exposure = exposureLines(deployment, { agentToken: values['agent-token'], allowPrivateWebhooks: values['allow-private-webhooks'], loopbackOnly: values['loopback-only'] });
    process.stdout.write(exposure.join('\n') + '\n');
  }
  const opened = performance.now();
  // D-84: a large database's case lists are answered by SQL until the column engine is filled
  void sandbox.svc.store.whenListsReady().then(() => {
    if (!values.quiet) process.stdout.write(`care-sandbox case lists in memory (${Math.round(performance.now() - opened)} ms after listening)\n`);
  });
  if (!values.quiet) {
    const d = sandbox.demo;
    const lines = [
      `  production API  ${origin}/care/v0`,
      `  sandbox API     ${origin}/care/v0/sandbox`,
      `  auth (tokens)   ${origin}/auth/v2/oauth/token`,
      `  docs            ${origin}/docs/`,
      `  bundles         ${origin}/openapi/care-api.yaml (also .production / .sandbox)`,
      `  agent API       ${origin}/_agent (outside the contract)`,
      `  database        ${values.memory ? 'in memory' : resolve(values.db!)}`,
      '',
      'Demo credentials (exchange: POST /auth/v2/oauth/token grant_type=client_credentials&client_id=..&client_secret=..&audience=..):',
    ];
    for (const env of ['sandbox', 'production'] as Environment[]) {
      lines.push(`  ${env}:`);
      lines.push(`    customer ${d[env].customer.name}: ${d[env].customer.apiKeyId} / ${d[env].customer.apiKeySecret}  contracts ${d[env].customer.contracts.join(', ')}`);
      lines.push(`    partner  ${d[env].partner.name}: ${d[env].partner.apiKeyId} / ${d[env].partner.apiKeySecret}  contracts ${d[env].partner.contracts.join(', ')}`);
      lines.push(`    foreign contract ${d[env].foreignContract}; revoked key ${d[env].revokedApiKey.apiKeyId}`);
    }
    lines.push('', 'Example:', `  curl -s ${origin}/auth/v2/oauth/token -d grant_type=client_credentials -d client_id=${d.sandbox.customer.apiKeyId} -d client_secret=${d.sandbox.customer.apiKeySecret} -d audience=sandbox`);
    // the names the README's quick start, docs/client.md and care-conformance read (CARE_BASE_URL, …)
    const client = conformanceConfig(origin, d, 'sandbox', sandbox.svc.spec);
    lines.push('', 'Client (the README\'s quick start reads these; paste the line into your shell):',
      `  export CARE_BASE_URL=${client.baseUrl} CARE_AUTH_URL=${client.authUrl} CARE_API_KEY_ID=${client.customer.apiKeyId} CARE_API_KEY_SECRET=${client.customer.apiKeySecret}`);
    process.stdout.write(lines.join('\n') + '\n');
  }
  const stop = () => {
    sandbox.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error) => {
  process.stderr.write(`care-sandbox: ${(error as Error).message}\n`);
  process.exit(2);
});
