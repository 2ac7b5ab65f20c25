// Before any check: is the target reachable, answering within the timeout, in the environment the configuration
// names (by its base path and by its own X-CareAPI-Env), do the accounts' credentials work, and (where the run may
// write) does it keep what it is given? A target that fails one of these gets one clear message and the run stops
// (exit 2) instead of hundreds of derived failures; nothing is written before the environment is proven.
import type { Environment } from '../spec/types.ts';
import { CheckFailure, type Check } from './check.ts';
import type { Context } from './context.ts';
import { MARK } from './context.ts';
import { Interrupted, RequestTimeout, Unreachable, send, type Exchange } from './http.ts';

/** The preflight's bound on one request: a silent target is reported within seconds, whatever --request-timeout says. */
export const PREFLIGHT_TIMEOUT_MS = 10_000;

/** The run cannot go on against this target; the message says why and what to do. Exit code 2. */
export class StopRun extends CheckFailure {}

const header = (env: Environment) => (env === 'production' ? 'Production' : 'Sandbox');

/** The path part of each environment's server URL in the description (`/care/v0`, `/care/v0/sandbox`). */
export function basePaths(ctx: Context): Partial<Record<Environment, string>> {
  const out: Partial<Record<Environment, string>> = {};
  for (const server of ctx.spec.document.servers ?? []) {
    const env = server['x-care-environment'] as Environment | undefined;
    if (!env) continue;
    out[env] = new URL(String(server.url).replace(/\{[^}]+\}/g, 'host.invalid')).pathname.replace(/\/$/, '');
  }
  return out;
}

/** One request of the preflight, with its failures turned into the run's one message. */
async function probe(ctx: Context, what: string, run: () => Promise<Exchange>): Promise<Exchange> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Interrupted) throw error;
    const base = ctx.config.baseUrl;
    if (error instanceof RequestTimeout) throw new StopRun(`the target accepted the connection but sent no complete answer to ${what} within ${ctx.counter.timeoutMs} ms: ${base} is not answering (check the URL, a proxy or firewall in between; --request-timeout sets the bound)`);
    if (error instanceof Unreachable) throw new StopRun(`cannot reach the target for ${what}: ${error.message} (check --base-url and that the service is running)`);
    // The token source failed: the API key exchange was refused or unreachable.
    throw new StopRun(`${what}: ${(error as Error).message}: the credentials of the configuration do not work against ${ctx.config.authUrl ?? base}`);
  }
}

/** A list every account may read, with no path parameter: the first the description declares for the environment. */
function probeOperation(ctx: Context): string {
  const op = ctx.operations().find((o) => o.list && o.method === 'get' && !o.parameters.some((p) => p.in === 'path'));
  if (!op) throw new Error('the description declares no list without path parameters to probe the target with');
  return op.operationId;
}

/** The base path of the URL the configuration gives must not be the other environment's (before any request). */
function checkBasePath(ctx: Context): void {
  const configured = ctx.config.environment;
  const other: Environment = configured === 'sandbox' ? 'production' : 'sandbox';
  const paths = basePaths(ctx);
  const path = new URL(ctx.config.baseUrl).pathname.replace(/\/$/, '');
  if (paths[other] && path.endsWith(paths[other]!) && !(paths[configured] && path.endsWith(paths[configured]!))) {
    throw new StopRun(`the base URL ${ctx.config.baseUrl} ends in ${paths[other]}, the ${other} base path, but the configuration says ${configured}: refusing to run, nothing was sent (fix --base-url or --environment)`);
  }
}

/** Every X-CareAPI-Env the target answered must be the configured environment's; at least one must say it. */
function checkEnvironment(ctx: Context, answers: Exchange[]): string {
  const configured = ctx.config.environment;
  const said = answers.map((x) => x.headers['x-careapi-env']).filter((v): v is string => v !== undefined);
  const wrong = said.find((v) => v !== header(configured));
  if (wrong !== undefined) {
    throw new StopRun(`the target answers X-CareAPI-Env: ${wrong}, but the configuration says ${configured} (X-CareAPI-Env: ${header(configured)}): refusing to run, nothing was written (fix --environment or --base-url${configured === 'sandbox' ? '; a production run reads only unless --allow-writes' : ''})`, answers.find((x) => x.headers['x-careapi-env'] === wrong));
  }
  checkListEnvelope(ctx, answers[answers.length - 1]);
  if (said.length === 0) {
    ctx.provenEnvironment = undefined;
    throw new CheckFailure(`the target's answers carry no X-CareAPI-Env: its environment is not proven, so the run only reads (every answer must carry it, seed section 1)`, answers[0]);
  }
  ctx.provenEnvironment = configured;
  // Proven: where the run may write (sandbox, or production with --allow-writes), write verbs may go out from here on.
  if (ctx.canWrite) ctx.counter.readOnly = undefined;
  return `X-CareAPI-Env: ${header(configured)}`;
}

/**
 * The probe is a list every account may read: the base URL is proven only by a 200 list envelope (data[] and
 * meta.page). A wrong base path (the origin alone, the docs, one segment too many) answers a 404, an HTML page or
 * another JSON, and the run stops here with one message instead of hundreds of failures.
 */
function checkListEnvelope(ctx: Context, x: Exchange): void {
  const json = x.json;
  if (x.status === 200 && Array.isArray(json?.data) && json?.meta?.page && typeof json.meta.page === 'object') return;
  const configured = ctx.config.environment;
  const want = basePaths(ctx)[configured];
  const answered = `${x.status} ${x.headers['content-type'] ?? '(no content type)'}${x.status === 200 ? ' without a list envelope (data[] and meta.page)' : ''}`;
  throw new StopRun(`GET ${x.url} answered ${answered}: ${ctx.config.baseUrl} is not the base URL of the ${configured} API${want ? ` (its path ends in ${want})` : ''}; refusing to run (fix --base-url)`, x);
}

/** With writes: a created case must be answered and read back as written; a stateless mock answers its examples. */
async function checkKeepsState(ctx: Context): Promise<string | undefined> {
  if (!ctx.canWrite) return undefined;
  const contract = await ctx.fixtures.contract();
  const shortDescription = `${MARK} ${ctx.runTag} preflight`;
  const created = await ctx.call(ctx.customer, 'createCase', {}, { json: { contract, shortDescription } });
  if (created.status !== 201 || !created.json?.data) return undefined; // judged by the checks, not here
  const stateless = `the target looks stateless (a mock?): a case created with shortDescription "${shortDescription}"`;
  const answered = created.json.data.shortDescription;
  if (typeof answered === 'string' && answered !== shortDescription) {
    throw new StopRun(`${stateless} was answered with "${answered}". Rerun with --stateless (only the checks a mock can pass run then)`, created);
  }
  const id = created.json.data.id;
  if (typeof id !== 'string') return undefined;
  const read = await ctx.call(ctx.customer, 'getCase', { caseId: id });
  const back = read.json?.data?.shortDescription;
  if (read.status === 404 || (read.status === 200 && typeof back === 'string' && back !== shortDescription)) {
    throw new StopRun(`${stateless} (${id}) cannot be read back (${read.status === 404 ? 'GET answers 404' : `GET answers "${back}"`}). Rerun with --stateless (only the checks a mock can pass run then)`, read);
  }
  return 'a created case is read back';
}

async function run(ctx: Context): Promise<string> {
  checkBasePath(ctx);
  const op = probeOperation(ctx);
  const path = ctx.path(op);
  const configuredTimeout = ctx.counter.timeoutMs;
  ctx.counter.timeoutMs = Math.min(configuredTimeout, PREFLIGHT_TIMEOUT_MS);
  try {
    const url = `${ctx.config.baseUrl}${path}`;
    // First without credentials: the environment is proven before any token is asked for or anything is written.
    const open = await probe(ctx, `GET ${path}`, () => send('GET', url, { accept: 'application/json' }, undefined, ctx.counter));
    if (open.status >= 500) throw new StopRun(`GET ${url} answered ${open.status}: the target is not serving the API`, open);
    const answers = [open];
    for (const client of ctx.clients()) {
      const x = await probe(ctx, `the ${client.label} account's GET ${path}`, () => client.request({ path }));
      answers.push(x);
      if (x.status === 401 || x.status === 403) {
        const env = x.headers['x-careapi-env'];
        throw new StopRun(`the ${client.label} account's credentials are refused: GET ${url} answered ${x.status}${env ? ` (X-CareAPI-Env: ${env})` : ''}; check the token or API key, and that it belongs to ${ctx.config.environment}`, x);
      }
      if (x.status >= 500) throw new StopRun(`GET ${url} as the ${client.label} account answered ${x.status}: the target is not serving the API`, x);
    }
    const env = checkEnvironment(ctx, answers);
    const state = await checkKeepsState(ctx);
    return [`${ctx.clients().length} account(s) authenticated`, env, state].filter(Boolean).join('; ');
  } finally {
    ctx.counter.timeoutMs = configuredTimeout;
  }
}

/** After a timeout or a refused connection mid-run: does the target still answer the probe within the preflight's bound? */
export async function stillAnswering(ctx: Context): Promise<boolean> {
  const configured = ctx.counter.timeoutMs;
  ctx.counter.timeoutMs = Math.min(configured, PREFLIGHT_TIMEOUT_MS);
  try {
    await ctx.customer.request({ path: ctx.path(probeOperation(ctx)) });
    return true;
  } catch (error) {
    if (error instanceof Interrupted) return true; // a signal, not the target: the run reports the interruption
    return false;
  } finally {
    ctx.counter.timeoutMs = configured;
  }
}

export const preflightCheck: Check = {
  id: 'operations.preflight',
  area: 'operations',
  title: 'The target answers within the timeout, in the configured environment (base path, X-CareAPI-Env), to the configured credentials, and keeps what it is given',
  statements: ['S1.env-header', 'S5.bearer-jwt', 'S5.separate-credentials', 'D-01.servers'],
  run,
};
