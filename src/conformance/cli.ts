// care-conformance: check a live deployment of the Care API against the contract.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AREAS } from './check.ts';
import { ALL_CHECKS } from './checks/index.ts';
import { SETTINGS, readConfigFile, resolveConfig, type SettingName } from './config.ts';
import { progressPrinter, renderReport } from './reporters/console.ts';
import { renderJson } from './reporters/json.ts';
import { renderJunit } from './reporters/junit.ts';
import { runSuite } from './runner.ts';

const HELP = `care-conformance: check a deployment of the Care API against its contract

Usage: care-conformance [--config FILE] [options]

Target and credentials (flag, or environment variable, or member of the config file):
${Object.entries(SETTINGS).map(([flag, env]) => `  --${flag.padEnd(24)} ${env}`).join('\n')}
  --config FILE              CARE_CONFIG  (JSON written by care-sandbox --write-config; see the README of @care-api/conformance)

Run:
  --allow-writes             create and change data in production (sandbox always may; production reads only)
  --stateless                the target is a stateless mock: only shape checks run, the others skip
  --areas LIST               only these areas (${AREAS.join(', ')})
  --stateful N               also run N random sequences of writes and lists against a model (property-based)
  --seed S                   seed of the stateful run (default: random; printed with the result)
  --delivery-timeout MS      bounded wait for one webhook delivery (default 10000)
  --spec FILE                bundled description (default: the care-api.yaml shipped with this program)
  --junit FILE, --json FILE  reports
  --list                     list the checks and the seed statements they verify, then exit
  --verbose                  print every check, not only failures and skips

Exit code 0 only when no check failed.
`;

function statefulOption(runs: string | undefined, seed: string | undefined): { runs: number; seed: number } | undefined {
  if (runs === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(runs)) throw new Error(`--stateful: a positive integer is required, got ${runs}`);
  if (seed !== undefined && !/^-?\d+$/.test(seed)) throw new Error(`--seed: an integer is required, got ${seed}`);
  return { runs: Number(runs), seed: seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(seed) };
}

export async function main(argv: string[]): Promise<number> {
  const settingOptions = Object.fromEntries(Object.keys(SETTINGS).map((k) => [k, { type: 'string' as const }]));
  const { values } = parseArgs({
    args: argv,
    options: {
      ...settingOptions,
      config: { type: 'string' },
      'allow-writes': { type: 'boolean', default: false },
      stateless: { type: 'boolean', default: false },
      areas: { type: 'string' },
      'delivery-timeout': { type: 'string' },
      stateful: { type: 'string' },
      seed: { type: 'string' },
      spec: { type: 'string' },
      junit: { type: 'string' },
      json: { type: 'string' },
      list: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values.list) {
    for (const c of ALL_CHECKS) process.stdout.write(`${c.id.padEnd(40)} ${c.area.padEnd(11)} ${c.statements.join(', ')}\n`);
    return 0;
  }
  const areas = values.areas ? values.areas.split(',').map((a) => a.trim()).filter(Boolean) : [];
  const unknown = areas.filter((a) => !(AREAS as readonly string[]).includes(a));
  if (unknown.length) throw new Error(`--areas: unknown area ${unknown.join(', ')} (areas: ${AREAS.join(', ')})`);
  const configFile = (values.config as string | undefined) ?? process.env.CARE_CONFIG;
  const { config, listen, publicUrl } = resolveConfig(configFile ? readConfigFile(configFile) : undefined, process.env, values as Partial<Record<SettingName, string>>);
  const write = (s: string) => process.stdout.write(s);
  write(`care-conformance: ${config.baseUrl} (${config.environment}${config.environment === 'production' && !values['allow-writes'] ? ', read-only' : ''}${values.stateless ? ', stateless' : ''})\n`);
  const report = await runSuite({
    config,
    allowWrites: Boolean(values['allow-writes']),
    stateless: Boolean(values.stateless),
    areas,
    listen,
    publicUrl,
    specPath: values.spec as string | undefined,
    deliveryTimeoutMs: Number(values['delivery-timeout'] ?? 10_000),
    stateful: statefulOption(values.stateful as string | undefined, values.seed as string | undefined),
    onProgress: progressPrinter(write, Boolean(values.verbose)),
  });
  write(renderReport(report));
  if (values.junit) writeFileSync(values.junit as string, renderJunit(report));
  if (values.json) writeFileSync(values.json as string, renderJson(report));
  return report.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`care-conformance: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
