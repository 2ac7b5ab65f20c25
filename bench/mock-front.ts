// Throughput of the mock front side by side with Prism alone, in one run: `npm run mock` (scripts/mock.ts) runs in
// its own process with Prism in another; this process sends the same requests to the front and to that Prism
// directly (closed loop, N in flight), in alternating rounds so other people's load falls on both alike.
// Figures are printed, never asserted. Usage: npx tsx bench/mock-front.ts [--seconds S] [--rounds R] [--concurrency N]
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '2' }, rounds: { type: 'string', default: '3' }, concurrency: { type: 'string', default: '8' } },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);

const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/mock.ts', '--production-port', '0', '--sandbox-port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const urls = await new Promise<{ front: string; prism: string }>((resolve, reject) => {
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    const match = /^sandbox\s+(http:\/\/\S+)\s+\(X-CareAPI-Env: Sandbox; Prism at (http:\/\/\S+),/m.exec(output);
    if (match && output.includes('Ctrl-C')) resolve({ front: match[1], prism: match[2] });
  });
  child.once('exit', (code) => reject(new Error(`scripts/mock.ts exited with ${code}:\n${output}`)));
});

const auth = { authorization: 'Bearer bench-token' };
const kinds: Array<{ name: string; path: string; init: RequestInit }> = [
  { name: 'GET /cases (a page of 50 from the front; 1 item from Prism)', path: '/cases', init: { headers: auth } },
  { name: 'GET /cases?filter[status]=10&sort=-priority', path: '/cases?filter[status][eq]=10&sort=-priority', init: { headers: auth } },
  { name: 'GET /cases/CS0010042', path: '/cases/CS0010042', init: { headers: auth } },
  {
    name: 'POST /cases, invalid body (400 at the front, 422 at Prism)',
    path: '/cases',
    init: { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"priority":"high"}' },
  },
];

interface Sample {
  count: number;
  latencies: number[];
  seconds: number;
}

async function load(url: string, init: RequestInit, seconds: number): Promise<Sample> {
  const latencies: number[] = [];
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        const response = await fetch(url, init);
        await response.arrayBuffer();
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { count: latencies.length, latencies, seconds: (performance.now() - started) / 1000 };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

console.log(`mock front vs Prism alone: ${ROUNDS} rounds x ${SECONDS} s per side and request, ${CONCURRENCY} in flight; load average before ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
const rows: string[][] = [['request', 'target', 'req/s', 'p50 ms', 'p99 ms']];
try {
  for (const kind of kinds) {
    await load(urls.front + kind.path, kind.init, 0.5); // warm-up: the front's first list builds its collection
    await load(urls.prism + kind.path, kind.init, 0.5);
    const totals: Record<'front' | 'prism', Sample> = { front: { count: 0, latencies: [], seconds: 0 }, prism: { count: 0, latencies: [], seconds: 0 } };
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: the side that goes first alternates
      const order: Array<'front' | 'prism'> = round % 2 === 0 ? ['front', 'prism'] : ['prism', 'front'];
      for (const side of order) {
        const sample = await load(urls[side] + kind.path, kind.init, SECONDS);
        totals[side].count += sample.count;
        totals[side].seconds += sample.seconds;
        totals[side].latencies.push(...sample.latencies);
      }
    }
    for (const side of ['prism', 'front'] as const) {
      const sorted = totals[side].latencies.sort((a, b) => a - b);
      rows.push([kind.name, side === 'front' ? 'mock (front + Prism)' : 'Prism alone', (totals[side].count / totals[side].seconds).toFixed(0), percentile(sorted, 50).toFixed(1), percentile(sorted, 99).toFixed(1)]);
    }
  }
} finally {
  child.kill('SIGTERM');
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
for (const row of rows) console.log(row.map((cell, i) => (i >= 2 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  '));
console.log(`load average after ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
