// Client overhead per request: createCareClient().GET vs bare fetch of the same request, against a static HTTP server
// in another process (so its work does not share our event loop). Prints medians and their ratio (target <= 1.10).
//
// Fair by construction, because the machine is small (2 cores) and shared:
// - both ways send the very same request (method, URL with its query string, headers): checked before timing;
// - both are warmed up, then alternate in small blocks in ABBA order (bare, client, client, bare, ...), so drift
//   (GC, CPU frequency, other people's load) falls on both alike and neither always goes first;
// - besides the medians of all requests it prints the median of per-round ratios (each round's two sides measured
//   within a few milliseconds of each other), our process's CPU time per request for each way, and the load average.
// Usage: npx tsx bench/client-overhead.ts [--requests N] [--block N]
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createCareClient } from '../src/client/index.ts';
import { exampleOf } from '../src/mock/examples.ts';
import { loadSpec } from '../src/spec/index.ts';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '4000' }, block: { type: 'string', default: '10' }, warmup: { type: 'string', default: '500' } },
});
const requests = Number(values.requests);
const BLOCK = Number(values.block);
const WARMUP = Number(values.warmup);

// The body a list answers, from the description's examples.
const spec = loadSpec();
const listSchema = spec.operation('listCases').responses.find((r) => r.status === '200')!.schema;
const body = JSON.stringify(exampleOf(spec, listSchema, 'response'));

const query = { page: { number: 1, size: 50 }, sort: ['-created' as const], filter: { status: 10, priority: { in: [1, 2] as const } } };
// Bare fetch gets the very URL and headers the client sends, prepared once: only the client's own work differs.
const pathAndQuery = '/cases?page[number]=1&page[size]=50&sort=-created&filter[status]=10&filter[priority][in]=1,2';
const headers = { authorization: 'Bearer bench-token' };

function clientFor(baseUrl: string) {
  return createCareClient({ environment: 'production', baseUrl, token: 'bench-token' });
}

/** Each way's request as the server sees it; the two must be identical or the comparison means nothing. */
async function checkSameRequest(): Promise<string> {
  const seen: string[] = [];
  const describe = (req: IncomingMessage) => `${req.method} ${req.url} ${JSON.stringify(req.rawHeaders)}`;
  const server = createServer((req, res) => {
    seen.push(describe(req));
    res.writeHead(200, { 'content-type': 'application/json', 'x-careapi-env': 'Production' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await (await fetch(`${base}${pathAndQuery}`, { headers })).json();
    await clientFor(base).GET('/cases', { params: { query } });
  } finally {
    server.close();
    server.closeAllConnections();
  }
  if (seen.length !== 2 || seen[0] !== seen[1]) throw new Error(`the two ways send different requests:\n  bare   ${seen[0]}\n  client ${seen[1]}`);
  return seen[0];
}

const shape = await checkSameRequest();

const serverSource = `
  const body = Buffer.from(process.env.BODY);
  const server = require('node:http').createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, 'X-CareAPI-Env': 'Production' });
    res.end(body);
  });
  server.keepAliveTimeout = 60000;
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;
const child = spawn(process.execPath, ['-e', serverSource], { env: { ...process.env, BODY: body }, stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve) => child.stdout!.once('data', (chunk) => resolve(Number(String(chunk).trim()))));
const baseUrl = `http://127.0.0.1:${port}`;
const url = `${baseUrl}${pathAndQuery}`;
const client = clientFor(baseUrl);

async function bare(): Promise<void> {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(String(response.status));
  await response.json();
}

async function viaClient(): Promise<void> {
  await client.GET('/cases', { params: { query } });
}

interface Side {
  times: number[];
  blockMedians: number[];
  cpuMicros: number;
}
const newSide = (): Side => ({ times: [], blockMedians: [], cpuMicros: 0 });

async function block(fn: () => Promise<void>, side: Side): Promise<void> {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < BLOCK; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  const used = process.cpuUsage(cpu);
  side.cpuMicros += used.user + used.system;
  side.times.push(...times);
  side.blockMedians.push(median(times));
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * The client's own CPU work without the network: fetch answers at once with a ready Response for both ways, so the
 * difference is what the client adds (serializer, openapi-fetch, auth, error check). Alternating rounds as above.
 */
async function cpuOverhead(): Promise<number> {
  const realFetch = globalThis.fetch;
  const answer = () => new Response(body, { headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-careapi-env': 'Production' } });
  globalThis.fetch = async () => answer();
  try {
    const offline = clientFor(baseUrl);
    const direct = async () => {
      await (await fetch(url, { headers })).json();
    };
    const viaOffline = async () => {
      await offline.GET('/cases', { params: { query } });
    };
    const run = async (fn: () => Promise<void>, n: number) => {
      const start = performance.now();
      for (let i = 0; i < n; i++) await fn();
      return (performance.now() - start) / n;
    };
    await run(direct, 2000);
    await run(viaOffline, 2000);
    const rounds: number[] = [];
    for (let r = 0; r < 10; r++) {
      const a = await run(direct, 500);
      const b = await run(viaOffline, 500);
      const c = await run(viaOffline, 500);
      const d = await run(direct, 500);
      rounds.push((b + c - a - d) / 2);
    }
    return median(rounds) * 1000;
  } finally {
    globalThis.fetch = realFetch;
  }
}

const µs = (ms: number) => `${(ms * 1000).toFixed(0).padStart(4)} µs`;
try {
  const loadBefore = loadavg()[0];
  const warm = newSide();
  for (let done = 0; done < WARMUP; done += BLOCK) {
    await block(bare, warm);
    await block(viaClient, warm);
  }
  const bareSide = newSide();
  const clientSide = newSide();
  for (let done = 0; done < requests; done += 2 * BLOCK) {
    await block(bare, bareSide);
    await block(viaClient, clientSide);
    await block(viaClient, clientSide);
    await block(bare, bareSide);
  }
  const loadAfter = loadavg()[0];
  const bareMedian = median(bareSide.times);
  const clientMedian = median(clientSide.times);
  const ratio = clientMedian / bareMedian;
  // Rounds pair up blocks taken back to back (ABBA: two blocks per way per round).
  const roundRatios: number[] = [];
  for (let i = 0; i + 1 < bareSide.blockMedians.length; i += 2) {
    roundRatios.push((clientSide.blockMedians[i] + clientSide.blockMedians[i + 1]) / (bareSide.blockMedians[i] + bareSide.blockMedians[i + 1]));
  }
  const n = bareSide.times.length;
  console.log(`request (both ways) ${shape.slice(0, 110)}…`);
  console.log(`requests per way    ${n} after ${WARMUP} warm-up each (sequential, keep-alive, ${body.length} B JSON body, blocks of ${BLOCK} in ABBA order)`);
  console.log(`load average        ${loadBefore.toFixed(2)} -> ${loadAfter.toFixed(2)} (2 cores: above ~1 other work competes with the bench)`);
  console.log(`bare fetch          median ${µs(bareMedian)}   p25 ${µs(quantile(bareSide.times, 0.25))}   p75 ${µs(quantile(bareSide.times, 0.75))}   CPU ${(bareSide.cpuMicros / n).toFixed(0)} µs/request`);
  console.log(`client              median ${µs(clientMedian)}   p25 ${µs(quantile(clientSide.times, 0.25))}   p75 ${µs(quantile(clientSide.times, 0.75))}   CPU ${(clientSide.cpuMicros / n).toFixed(0)} µs/request`);
  console.log(`overhead            ${((clientMedian - bareMedian) * 1000).toFixed(0)} µs per request (difference of medians)`);
  console.log(`per-round ratio     median ${median(roundRatios).toFixed(3)}, p25 ${quantile(roundRatios, 0.25).toFixed(3)}, p75 ${quantile(roundRatios, 0.75).toFixed(3)} over ${roundRatios.length} rounds`);
  console.log(`ratio               ${ratio.toFixed(3)}  (client median / bare fetch median; target <= 1.10: ${ratio <= 1.1 ? 'met' : 'NOT met'})`);
  console.log(`client CPU cost     ${(await cpuOverhead()).toFixed(1)} µs per request (no network: fetch answers at once for both ways)`);
} finally {
  child.kill();
}
