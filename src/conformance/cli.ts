// care-conformance: check a live deployment of the Care API against the contract.
import { accessSync, constants, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AREAS } from './check.ts';
import { ALL_CHECKS } from './checks/index.ts';
import { SETTINGS, readConfigFile, resolveConfig, type SettingName } from './config.ts';
import { progressPrinter, renderReport } from './reporters/console.ts';
import { renderJson } from './reporters/json.ts';
import { renderJunit } from './reporters/junit.ts';
import { renderSummary } from './reporters/summary.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './http.ts';
import { PREFLIGHT_TIMEOUT_MS } from './preflight.ts';
import { runSuite } from './runner.ts';
import type { RunReport } from './types.ts';

/** Exit codes, one table for --help, docs/conformance.md and the code. */
export const EXIT = { passed: 0, failed: 1, error: 2, SIGINT: 130, SIGTERM: 143 } as const;
const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

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
  --delivery-timeout MS      bounded wait for one webhook delivery (default ${DEFAULT_DELIVERY_TIMEOUT_MS})
  --request-timeout MS       bound of one request, sending to last byte (default ${DEFAULT_REQUEST_TIMEOUT_MS}; the preflight
                             uses at most ${PREFLIGHT_TIMEOUT_MS})
  --spec FILE                bundled description (default: the care-api.yaml shipped with this program)
  --junit FILE, --json FILE  reports (each failure with expected, actual, where, and the exchange)
  --summary FILE             a Markdown summary for a CI job page: failures first, by area, with their statements
  --list                     list the checks and the seed statements they verify, then exit
  --verbose                  print every check, not only failures and skips

Before any check a preflight asks the target, without and with credentials: it must answer within the timeout,
in the configured environment (base path and X-CareAPI-Env), to the configured credentials, and (where the run may
write) keep a case it is given. Writing needs the target's own X-CareAPI-Env: Sandbox, or Production with
--allow-writes. Ctrl-C (SIGINT) or SIGTERM: the run stops, deletes the webhook subscriptions and API keys it created,
closes its cases, writes the reports it was asked for, and exits 130 or 143.

Exit codes:
  ${EXIT.passed}    every check passed (or skipped with its reason)
  ${EXIT.failed}    a check failed, or the run left behind data it created and could not clean up (named on stderr)
  ${EXIT.error}    usage, configuration or target error: a bad option, an unwritable report path, or a target that is
       unreachable, silent, at a base URL that answers no list envelope, in the other environment, refusing the
       credentials, stateless without --stateless, or that stops answering mid-run
  ${EXIT.SIGINT}  interrupted by SIGINT (Ctrl-C): cleaned up, partial reports written
  ${EXIT.SIGTERM}  interrupted by SIGTERM: the same
`;

/** Most sequences of one stateful run: a bound the option checks, so a slip of the keyboard is not a week's run. */
const MAX_STATEFUL_RUNS = 100_000;

function statefulOption(runs: string | undefined, seed: string | undefined): { runs: number; seed: number } | undefined {
  if (runs === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(runs) || Number(runs) > MAX_STATEFUL_RUNS) throw new Error(`--stateful: a whole number from 1 to ${MAX_STATEFUL_RUNS} is required, got ${runs}`);
  // fast-check's seed is a 32-bit integer: a larger one would be cut silently, and the run not reproducible from it.
  if (seed !== undefined && (!/^-?\d+$/.test(seed) || Number(seed) < -(2 ** 31) || Number(seed) > 2 ** 31 - 1)) {
    throw new Error(`--seed: an integer from ${-(2 ** 31)} to ${2 ** 31 - 1} is required, got ${seed}`);
  }
  return { runs: Number(runs), seed: seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(seed) };
}

/** The longest delay a timer keeps (2^31 - 1 ms, about 24.8 days); a longer one fires at once and fails every request. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** A duration in milliseconds: a whole number from 1 to MAX_TIMEOUT_MS, or the default when the option is absent. */
function milliseconds(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(text.trim()) || !(Number(text) <= MAX_TIMEOUT_MS)) {
    throw new Error(`--${name}: a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} is required, got "${text}"`);
  }
  return Number(text);
}

/** A report path must be writable before the run starts, not found unwritable after it. */
function reportPath(name: string, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  if (!file.trim()) throw new Error(`--${name}: a file path is required`);
  const path = resolve(file);
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) throw new Error(`--${name} ${file}: is a directory`);
    try {
      accessSync(path, constants.W_OK);
    } catch {
      throw new Error(`--${name} ${file}: the file is not writable`);
    }
    return path;
  }
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`--${name} ${file}: the directory ${dir} does not exist`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new Error(`--${name} ${file}: the directory ${dir} is not writable`);
  }
  return path;
}

/** Without a config file, a missing setting is most likely a missing --config: the message says so. */
function withConfigHint<T>(configFile: string | undefined, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    if (configFile) throw error;
    throw new Error(`${(error as Error).message} (no config given: pass --config FILE, the JSON care-sandbox --write-config writes, or set --base-url, --environment and --token; see --help)`);
  }
}

/** host:port of the webhook receiver (port 0: any free one). */
function listenOption(listen: string): string {
  const m = /^(.*):(\d+)$/.exec(listen);
  if (!m || Number(m[2]) > 65535) throw new Error(`--listen: host:port is required (port 0 to 65535), got "${listen}"`);
  return listen;
}

function urlOption(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (!/^https?:\/\/[^/]/.test(text) || !URL.canParse(text)) throw new Error(`--${name}: an http(s) URL is required, got "${text}"`);
  return text;
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
      'request-timeout': { type: 'string' },
      stateful: { type: 'string' },
      seed: { type: 'string' },
      spec: { type: 'string' },
      junit: { type: 'string' },
      json: { type: 'string' },
      summary: { type: 'string' },
      list: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return EXIT.passed;
  }
  if (values.list) {
    for (const c of ALL_CHECKS) process.stdout.write(`${c.id.padEnd(40)} ${c.area.padEnd(11)} ${c.statements.join(', ')}\n`);
    return EXIT.passed;
  }
  // Every option is judged before the first request: a typo is exit 2 now, never 500 false failures later.
  const areas = values.areas !== undefined ? values.areas.split(',').map((a) => a.trim()).filter(Boolean) : [];
  if (values.areas !== undefined && areas.length === 0) throw new Error(`--areas: name at least one area (areas: ${AREAS.join(', ')})`);
  const unknown = areas.filter((a) => !(AREAS as readonly string[]).includes(a));
  if (unknown.length) throw new Error(`--areas: unknown area ${unknown.join(', ')} (areas: ${AREAS.join(', ')})`);
  const deliveryTimeoutMs = milliseconds('delivery-timeout', values['delivery-timeout'] as string | undefined, DEFAULT_DELIVERY_TIMEOUT_MS);
  const requestTimeoutMs = milliseconds('request-timeout', values['request-timeout'] as string | undefined, DEFAULT_REQUEST_TIMEOUT_MS);
  const stateful = statefulOption(values.stateful as string | undefined, values.seed as string | undefined);
  if (values.seed !== undefined && values.stateful === undefined) throw new Error('--seed: only with --stateful N');
  const json = reportPath('json', values.json as string | undefined);
  const junit = reportPath('junit', values.junit as string | undefined);
  const summary = reportPath('summary', values.summary as string | undefined);
  const reports = [json, junit, summary].filter(Boolean);
  if (new Set(reports).size < reports.length) throw new Error('--json, --junit and --summary must name different files');
  const specPath = values.spec as string | undefined;
  if (specPath !== undefined && !existsSync(specPath)) throw new Error(`--spec ${specPath}: no such file`);
  const configFile = (values.config as string | undefined) ?? process.env.CARE_CONFIG;
  const { config, listen, publicUrl } = withConfigHint(configFile, () =>
    resolveConfig(configFile ? readConfigFile(configFile) : undefined, process.env, values as Partial<Record<SettingName, string>>),
  );
  listenOption(listen);
  urlOption('public-url', publicUrl);
  if (config.authUrl !== undefined) urlOption('auth-url', config.authUrl);

  const write = (s: string) => process.stdout.write(s);
  write(`care-conformance: ${config.baseUrl} (${config.environment}${config.environment === 'production' && !values['allow-writes'] ? ', read-only' : ''}${values.stateless ? ', stateless' : ''})\n`);

  // SIGINT/SIGTERM: stop the run, clean up, write the partial reports; a second signal exits at once.
  const controller = new AbortController();
  let caught: 'SIGINT' | 'SIGTERM' | undefined;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (caught) process.exit(EXIT[caught]);
    caught = signal;
    process.stderr.write(`care-conformance: ${signal}: stopping; deleting the webhook subscriptions and API keys this run created, closing its cases, then writing the report (${signal} again to exit at once)\n`);
    controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const report = await runSuite({
    config,
    allowWrites: Boolean(values['allow-writes']),
    stateless: Boolean(values.stateless),
    areas,
    listen,
    publicUrl,
    specPath,
    deliveryTimeoutMs,
    requestTimeoutMs,
    signal: controller.signal,
    stateful,
    onProgress: progressPrinter(write, Boolean(values.verbose)),
  });
  write(renderReport(report));
  if (junit) writeFileSync(junit, renderJunit(report));
  if (json) writeFileSync(json, renderJson(report));
  if (summary) writeFileSync(summary, renderSummary(report));
  return exitCode(report, caught);
}

function exitCode(report: RunReport, caught: 'SIGINT' | 'SIGTERM' | undefined): number {
  const left = report.left;
  if (left?.items.length) process.stderr.write(`care-conformance: left behind (cleanup could not undo it): ${left.items.join(', ')}${left.problems.length ? ` (${left.problems.join('; ')})` : ''}\n`);
  if (report.stopped?.kind === 'interrupted' || caught) {
    process.stderr.write(`care-conformance: interrupted; ${report.results.length} check(s) reported\n`);
    return EXIT[caught ?? 'SIGINT'];
  }
  if (report.stopped) {
    process.stderr.write(`care-conformance: ${report.stopped.why}\n`);
    return EXIT.error;
  }
  return report.ok ? EXIT.passed : EXIT.failed;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`care-conformance: ${(err as Error).message}\n`);
    process.exit(EXIT.error);
  },
);
