// Sandbox performance, measured side by side in one run (issue 4, "Performance"): prints figures, asserts nothing.
//   1. GET /cases?page[size]=50&filter[status]=10&sort=-createdAt with 100,000 seeded cases, 10 connections:
//      the sandbox vs Prism's static mock (as `npm run mock` runs it) vs a bare Node server sending the same bytes.
//   2. p50 of that request (indexed filter) and of a `contains` filter at 10k, 100k (and 1M) cases: read-only, and
//      with a write before every read (so the exact totalCount cannot come from the cache).
//   3. Cold start (process start to first 200) on an existing database, and RSS under load.
// Usage: npx tsx bench/sandbox.ts [--sizes 10000,100000,1000000] [--seconds 5] [--no-prism] [--dir /tmp/care-bench]
//        [--load auto|node]  (auto: `wrk` when installed, else a Node client in this process; printed with the figures)
import { execFile, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createSandbox } from '../src/sandbox/app.ts';
import { repoRoot } from '../src/spec/index.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    seconds: { type: 'string', default: '5' },
    'no-prism': { type: 'boolean', default: false },
    // auto: wrk when installed, else the Node client; node: always the Node client (to compare with older figures)
    load: { type: 'string', default: 'auto' },
    dir: { type: 'string', default: '/tmp/care-bench' },
  },
});
const sizes = values.sizes!.split(',').map(Number);
const seconds = Number(values.seconds);
mkdirSync(values.dir!, { recursive: true });
const children: ChildProcess[] = [];
// On any exit, end what was started: detached children (the mock) as a whole process group.
process.on('exit', () =>
  children.forEach((c) => {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      c.kill('SIGKILL');
    }
  }),
);

const LIST = '/cases?page[size]=50&filter[status]=10&sort=-createdAt';
const CONTAINS = '/cases?page[size]=50&filter[shortDescription][contains]=VPN&sort=-createdAt';

async function database(size: number): Promise<string> {
  const file = join(values.dir!, `sandbox-${size}.db`);
  if (!existsSync(file)) {
    const t0 = performance.now();
    const sb = await createSandbox({ db: file, seedCases: { sandbox: size, production: 50 }, deliver: false });
    await sb.close();
    console.log(`seeded ${size} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s -> ${file}`);
  }
  return file;
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = pattern.exec(out);
      if (m) resolve(m);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
}

async function token(origin: string, config: any): Promise<string> {
  const response = await fetch(`${origin}/auth/v2/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: config.customer.apiKeyId, client_secret: config.customer.apiKeySecret, audience: 'sandbox' }),
  });
  return (await response.json()).access_token;
}

async function startSandbox(db: string) {
  const configFile = `${db}.config.json`;
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(repoRoot, 'bin/care-sandbox.js'), '--port', '0', '--db', db, '--write-config', configFile, '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const [, origin] = await waitForLine(child, /listening on (http:\/\/\S+)/);
  const config = JSON.parse(readFileSync(configFile, 'utf8'));
  const bearer = await token(origin, config);
  const first = await get(`${config.baseUrl}${LIST}`, { authorization: `Bearer ${bearer}` });
  const coldStartMs = performance.now() - t0;
  if (first.status !== 200) throw new Error(`first request answered ${first.status}`);
  return { child, origin, config, headers: { authorization: `Bearer ${bearer}` }, coldStartMs, body: first.body };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * The load generator: `wrk` when installed (a C program, one thread: it leaves the server most of a core), else a
 * Node client in this process (it takes a core of its own, so the server competes with it for CPU). The same one
 * measures every target of a run.
 */
const wrk = values.load === 'node' || spawnSync('wrk', ['--version']).error ? undefined : 'wrk';

/** 10 connections for `seconds` after a 1 s warm-up: requests per second, p50 and p99 in ms. */
async function load(url: string, headers: Record<string, string>) {
  return wrk ? loadWithWrk(url, headers) : loadWithNode(url, headers);
}

// asynchronous, so this process keeps draining its children's output while wrk runs
const run = (args: string[]) => new Promise<string>((resolve, reject) => execFile('wrk', args, (error, stdout) => (error ? reject(error) : resolve(stdout))));

async function loadWithWrk(url: string, headers: Record<string, string>) {
  const args = (secs: number) => ['-t1', '-c10', `-d${secs}s`, '--latency', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url];
  await run(args(1)); // warm-up
  const out = await run(args(seconds));
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
    if (!m) return NaN;
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors:.*/.exec(out)?.[0];
  return { rps, p50: ms('50'), p99: ms('99'), errors: non2xx + (socketErrors ? 1 : 0) };
}

async function loadWithNode(url: string, headers: Record<string, string>) {
  const latencies: number[] = [];
  let measuring = false;
  let stop = false;
  let errors = 0;
  const worker = async () => {
    while (!stop) {
      const t = performance.now();
      const r = await get(url, headers).catch(() => ({ status: 0 }));
      if (!measuring) continue;
      if (r.status === 200) latencies.push(performance.now() - t);
      else errors++;
    }
  };
  const workers = Array.from({ length: 10 }, worker);
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const elapsed = (performance.now() - t0) / 1000;
  stop = true;
  await Promise.all(workers);
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 50) ?? NaN, p99: percentile(latencies, 99) ?? NaN, errors };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function p50Of(url: string, headers: Record<string, string>, n: number, before?: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    if (before) await before();
    const t = performance.now();
    const r = await get(url, headers);
    if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
    times.push(performance.now() - t);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}

const fmt = (n: number, d = 1) => n.toFixed(d);

// ---- 1. throughput side by side at 100k ------------------------------------------------------------------------
const mainSize = sizes.includes(100000) ? 100000 : sizes[sizes.length - 1];
const db = await database(mainSize);
const sandbox = await startSandbox(db);
const sandboxUrl = `${sandbox.config.baseUrl}${LIST}`;
const totalCount = JSON.parse(sandbox.body.toString()).meta.page.totalCount;
console.log(`load generator: ${wrk ? 'wrk (one thread, 10 connections)' : 'Node http client in the bench process (install wrk for a lighter one)'}; load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
console.log(`\n== GET ${LIST} with ${mainSize} cases (${totalCount} match for this account; page of ${sandbox.body.length} B), 10 connections, ${seconds} s ==`);

const bare = spawn(process.execPath, ['-e', `
  const body = Buffer.from(process.env.BODY, 'base64');
  const server = require('node:http').createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, 'X-CareAPI-Env': 'Sandbox' });
    res.end(body);
  });
  server.keepAliveTimeout = 60000;
  server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
`], { env: { ...process.env, BODY: sandbox.body.toString('base64') }, stdio: ['ignore', 'pipe', 'inherit'] });
children.push(bare);
const [, barePort] = await waitForLine(bare, /port (\d+)/);

const rows: Array<[string, { rps: number; p50: number; p99: number; errors: number }]> = [];
rows.push(['bare Node http (same bytes)', await load(`http://127.0.0.1:${barePort}${LIST}`, {})]);
rows.push(['care-sandbox', await load(sandboxUrl, sandbox.headers)]);
const sandboxRss = rssMb(sandbox.child.pid!);
if (!values['no-prism']) {
  const mock = spawn(process.execPath, [join(repoRoot, 'node_modules/tsx/dist/cli.mjs'), join(repoRoot, 'scripts/mock.ts'), '--production-port', '0', '--sandbox-port', '0'], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  children.push(mock);
  const [, mockUrl] = await waitForLine(mock, /production\s+(http:\/\/\S+)/);
  // Prism may need a moment after the front is up: wait (bounded) for its first 200
  for (let i = 0; i < 100 && (await get(`${mockUrl}${LIST.replace('-createdAt', '-created')}`, { authorization: 'Bearer bench' }).catch(() => ({ status: 0 }))).status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  rows.push(['Prism static mock (npm run mock)', await load(`${mockUrl}${LIST.replace('-createdAt', '-created')}`, { authorization: 'Bearer bench' })]);
  try {
    process.kill(-mock.pid!, 'SIGTERM');
  } catch {
    mock.kill('SIGTERM');
  }
}
bare.kill();
const sb = rows.find(([name]) => name === 'care-sandbox')![1];
const bareRow = rows.find(([name]) => name.startsWith('bare'))![1];
const prism = rows.find(([name]) => name.startsWith('Prism'))?.[1];
console.log('target'.padEnd(36), 'req/s'.padStart(9), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'non-200'.padStart(8));
for (const [name, r] of rows) console.log(name.padEnd(36), fmt(r.rps, 0).padStart(9), fmt(r.p50, 2).padStart(8), fmt(r.p99, 2).padStart(8), String(r.errors).padStart(8));
console.log(`sandbox / bare Node: ${fmt((sb.rps / bareRow.rps) * 100)} % (target >= 15 %)`);
if (prism) console.log(`sandbox / Prism:     ${fmt(sb.rps / prism.rps, 2)} x (target >= 2 x)`);
console.log(`sandbox p99: ${fmt(sb.p99, 2)} ms (target < 10 ms); RSS after load: ${fmt(sandboxRss, 0)} MB (target < 200 MB)`);
console.log(`cold start (spawn to first 200 of the list, existing database of ${mainSize} cases): ${fmt(sandbox.coldStartMs, 0)} ms (target < 1000 ms)`);
sandbox.child.kill('SIGTERM');

// ---- 2. cost of the exact totalCount as the data grows -------------------------------------------------------
console.log(`\n== p50 of one request (1 connection), by number of cases ==`);
console.log('cases'.padStart(9), 'indexed'.padStart(9), 'indexed+write'.padStart(14), 'contains'.padStart(10), 'contains+write'.padStart(15), '  totalCount (indexed / contains)');
const table: Array<{ size: number; indexed: number; indexedWrite: number }> = [];
for (const size of sizes) {
  const s = await startSandbox(await database(size));
  const base = s.config.baseUrl;
  const some = JSON.parse((await get(`${base}/cases?page[size]=1`, s.headers)).body.toString()).data[0];
  let flip = 0;
  // a write that changes a case (so every cached count is stale) before each read
  const write = async () => {
    const body = JSON.stringify({ priority: (flip++ % 4) + 1 });
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${base}/cases/${some.id}`, { method: 'PATCH', agent, headers: { ...s.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end(body);
    });
  };
  await p50Of(`${base}${LIST}`, s.headers, 20);
  const indexed = await p50Of(`${base}${LIST}`, s.headers, 200);
  const indexedWrite = await p50Of(`${base}${LIST}`, s.headers, 100, write);
  const contains = await p50Of(`${base}${CONTAINS}`, s.headers, 50);
  const containsWrite = await p50Of(`${base}${CONTAINS}`, s.headers, 20, write);
  const counts = await Promise.all([LIST, CONTAINS].map(async (q) => JSON.parse((await get(`${base}${q}`, s.headers)).body.toString()).meta.page.totalCount));
  console.log(String(size).padStart(9), fmt(indexed, 2).padStart(9), fmt(indexedWrite, 2).padStart(14), fmt(contains, 2).padStart(10), fmt(containsWrite, 2).padStart(15), `  ${counts[0]} / ${counts[1]}`);
  table.push({ size, indexed, indexedWrite });
  s.child.kill('SIGTERM');
}
if (table.length > 1) {
  const first = table[0];
  const last = table[table.length - 1];
  console.log(`indexed filter p50 growth ${first.size} -> ${last.size}: ${fmt(last.indexed / first.indexed, 2)} x read-only, ${fmt(last.indexedWrite / first.indexedWrite, 2)} x with a write before each read (target < 3 x)`);
}
agent.destroy();
process.exit(0);
