// Client overhead per request: createCareClient().GET vs bare fetch of the same URL, against a static HTTP server
// in another process (so its work does not share our event loop). Prints medians and their ratio (target <= 1.10).
// Usage: npx tsx bench/client-overhead.ts [--requests N]
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createCareClient } from '../src/client/index.ts';
import { exampleOf } from '../src/mock/examples.ts';
import { loadSpec } from '../src/spec/index.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '3000' } } });
const requests = Number(values.requests);
const BLOCK = 10; // alternate the two ways in small blocks, so drift (GC, CPU frequency, other load) hits both alike

// The body a list answers, from the description's examples.
const spec = loadSpec();
const listSchema = spec.operation('listCases').responses.find((r) => r.status === '200')!.schema;
const body = JSON.stringify(exampleOf(spec, listSchema, 'response'));

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

const client = createCareClient({ environment: 'production', baseUrl, token: 'bench-token' });
const query = { page: { number: 1, size: 50 }, sort: ['-created' as const], filter: { status: 10, priority: { in: [1, 2] as const } } };
// Bare fetch gets the very URL the client sends, prepared once: only the client's own work differs.
const url = `${baseUrl}/cases?page[number]=1&page[size]=50&sort=-created&filter[status]=10&filter[priority][in]=1,2`;
const headers = { authorization: 'Bearer bench-token' };

async function bare(): Promise<void> {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(String(response.status));
  await response.json();
}

async function viaClient(): Promise<void> {
  await client.GET('/cases', { params: { query } });
}

async function time(fn: () => Promise<void>, into: number[]): Promise<void> {
  for (let i = 0; i < BLOCK; i++) {
    const start = performance.now();
    await fn();
    into.push(performance.now() - start);
  }
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/**
 * The client's own work, without the network: both ways get the same ready Response, so the difference is what the
 * client adds (serializer, openapi-fetch, auth, error check). Steadier than the ratio on a busy machine.
 */
async function cpuOverhead(): Promise<number> {
  const answer = () => new Response(body, { headers: { 'content-type': 'application/json', 'content-length': String(body.length) } });
  const offline = createCareClient({ environment: 'production', baseUrl, token: 'bench-token', fetch: async () => answer() });
  const direct = async () => {
    await answer().json();
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
  for (let r = 0; r < 5; r++) rounds.push((await run(viaOffline, 2000)) - (await run(direct, 2000)));
  return median(rounds) * 1000;
}

try {
  const warm: number[] = [];
  for (let i = 0; i < 10; i++) {
    await time(bare, warm);
    await time(viaClient, warm);
  }
  const bareTimes: number[] = [];
  const clientTimes: number[] = [];
  for (let done = 0; done < requests; done += BLOCK) {
    await time(bare, bareTimes);
    await time(viaClient, clientTimes);
  }
  const bareMedian = median(bareTimes);
  const clientMedian = median(clientTimes);
  const ratio = clientMedian / bareMedian;
  console.log(`requests per way   ${bareTimes.length} (sequential, keep-alive, ${body.length} B JSON body)`);
  console.log(`bare fetch median  ${(bareMedian * 1000).toFixed(0)} µs`);
  console.log(`client median      ${(clientMedian * 1000).toFixed(0)} µs`);
  console.log(`overhead           ${((clientMedian - bareMedian) * 1000).toFixed(0)} µs per request`);
  console.log(`ratio              ${ratio.toFixed(3)}  (target <= 1.10: ${ratio <= 1.1 ? 'met' : 'NOT met'})`);
  console.log(`client CPU cost    ${(await cpuOverhead()).toFixed(1)} µs per request (no network: the transport answers at once)`);
} finally {
  child.kill();
}
