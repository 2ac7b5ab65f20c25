// Webhook backlog vs API latency (issue 12, D-65): prints figures, asserts nothing.
//   1. API p50/p99 (GET /cases, a few keep-alive connections from a child process) with no backlog;
//   2. the same while a backlog of 10,000 pending deliveries (100 subscriptions x 100 triggers, to a closed loopback
//      port) is being worked off: first attempts, then retries after about 1 s;
//      then the same backlog in alternating 1 s windows, dispatcher paused vs working (robust to the machine's drift);
//   3. the sandbox process's CPU while deliveries are queued but none is due (all retries an hour away).
// Targets: p99 under the backlog <= 2x the p99 without; CPU <= 20 % while nothing is due.
// Usage: npm run bench:dispatcher [-- --seconds 5 --subscriptions 100 --triggers 100 --connections 4 --idle 3 --rate 200]
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createSandbox } from '../src/sandbox/app.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    subscriptions: { type: 'string', default: '100' },
    triggers: { type: 'string', default: '100' },
    connections: { type: 'string', default: '4' },
    idle: { type: 'string', default: '3' },
    rate: { type: 'string', default: '200' },
  },
});
const seconds = Number(values.seconds);
const subscriptions = Number(values.subscriptions);
const triggers = Number(values.triggers);

// The load generator runs in its own process so that its work does not count as the sandbox's.
const LOAD = `
import http from 'node:http';
const [url, token, seconds, connections] = process.argv.slice(1);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
const latencies = [];
const end = Date.now() + Number(seconds) * 1000;
const get = () => new Promise((resolve, reject) => {
  const started = performance.now();
  http.get(url, { agent, headers: { authorization: 'Bearer ' + token } }, (res) => {
    res.resume();
    res.on('end', () => { if (res.statusCode !== 200) reject(new Error('status ' + res.statusCode)); else { latencies.push(performance.now() - started); resolve(); } });
  }).on('error', reject);
});
await Promise.all(Array.from({ length: Number(connections) }, async () => { while (Date.now() < end) await get(); }));
process.stdout.write(JSON.stringify(latencies));
agent.destroy();
`;

function load(url: string, token: string, forSeconds = seconds): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', LOAD, url, token, String(forSeconds), values.connections!], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited ${code}`))));
  });
}

function summary(latencies: number[]): { n: number; p50: number; p99: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, p50: at(0.5), p99: at(0.99) };
}

const closed = createServer();
await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
const port = (closed.address() as AddressInfo).port;
await new Promise((resolve) => closed.close(resolve));

const sandbox = await createSandbox({
  seedCases: 300,
  log: () => undefined,
  webhooks: { loopbackOnly: true, retryDelaysMs: [1_000, 3_600_000], jitter: 0.2, attemptsPerSecond: Number(values.rate) },
});
const api = `${sandbox.url}/care/v0/sandbox`;
const demo = sandbox.demo.sandbox.customer;
const tokenAnswer = await fetch(`${sandbox.url}/auth/v2/oauth/token`, {
  method: 'POST',
  body: new URLSearchParams({ grant_type: 'client_credentials', client_id: demo.apiKeyId, client_secret: demo.apiKeySecret, audience: 'sandbox' }),
});
const token = (await tokenAnswer.json()).access_token as string;
const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(api + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await response.json();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
};
const LIST = `${api}/cases?page[size]=50&sort=-createdAt`;
const fmt = (s: { n: number; p50: number; p99: number }) => `p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms (${s.n} requests)`;

console.log(`load average ${loadavg().map((n) => n.toFixed(2)).join(' ')} (the machine's other work moves every figure)`);
const before = summary(await load(LIST, token));
console.log(`no backlog:              ${fmt(before)}`);

const caseId = (await call('GET', `/cases?page[size]=1&filter[contract]=${demo.contracts[0]}`)).data[0].id;
for (let i = 0; i < subscriptions; i++) await call('POST', '/webhooks', { url: `http://127.0.0.1:${port}/h${i}` });
const queuedAt = performance.now();
for (let i = 0; i < triggers; i++) await call('POST', '/events/case.updated', { caseId, updated: ['status'] });
const queued = sandbox.svc.store.counts().deliveries;
const during = summary(await load(LIST, token));
console.log(`backlog of ${queued} deliveries: ${fmt(during)}`);
console.log(`  p99 ratio ${(during.p99 / before.p99).toFixed(2)} (target <= 2)`);

// The machine's other work drifts over seconds: the same comparison in short alternating windows, with the
// dispatcher paused and then working through the same backlog, lets both sides see the same drift.
const paused: number[] = [];
const working: number[] = [];
for (let i = 0; i < 6; i++) {
  await sandbox.svc.dispatcher.stop();
  paused.push(...(await load(LIST, token, 1)));
  sandbox.svc.dispatcher.start();
  working.push(...(await load(LIST, token, 1)));
}
const [p, w] = [summary(paused), summary(working)];
console.log(`alternating 6 x 1 s, dispatcher paused: ${fmt(p)}`);
console.log(`alternating 6 x 1 s, working backlog:   ${fmt(w)}`);
console.log(`  p99 ratio ${(w.p99 / p.p99).toFixed(2)} (target <= 2)`);

// Wait (bounded) until every first attempt and its 1 s retry has failed: then nothing is due for an hour.
const deadline = Date.now() + 120_000;
while (!sandbox.svc.dispatcher.idle() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
console.log(`  worked off ${queued} deliveries x 2 attempts in ${((performance.now() - queuedAt) / 1000).toFixed(1)} s (idle: ${sandbox.svc.dispatcher.idle()})`);
const idleSeconds = Number(values.idle);
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
const cpu = process.cpuUsage(cpu0);
const share = ((cpu.user + cpu.system) / 1000 / (performance.now() - wall0)) * 100;
console.log(`nothing due (${queued} queued, next in ~1 h): CPU ${share.toFixed(2)} % over ${idleSeconds} s (target <= 20 %)`);
await sandbox.close();
