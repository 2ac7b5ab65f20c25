// `npm run bench:sandbox` of two commits side by side (issue 39 item 8): the base commit's tree is exported beside
// this checkout (git archive, sharing its node_modules) and its sandbox measured by THIS checkout's bench/sandbox.ts
// (the same client, classes and requests for both), on the same machine and the same data: databases seeded once,
// each run on a fresh copy of them. The two alternate round by round (base first, then head first, ...), so a drift
// of the machine's load falls on both. Prints figures, asserts nothing.
// Per size: each class's p50 taken as the median of its p50 over the rounds, per side; then head/base per class
// (median, geometric mean, how many classes more than 10 % slower or faster) and the mix with 5 % writes per round.
// Usage: npx tsx bench/sandbox-side-by-side.ts --base REV [--rounds 4] [--sizes 10000,100000] [--samples 7]
//        [--seconds 5] [--classes REGEX] [--no-mix] [--dir .care/bench-side-by-side]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSandbox } from '../src/sandbox/app.ts';
import { repoRoot } from '../src/spec/index.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    sizes: { type: 'string', default: '10000,100000' },
    samples: { type: 'string', default: '7' },
    seconds: { type: 'string', default: '5' },
    classes: { type: 'string' },
    'no-mix': { type: 'boolean', default: false },
    dir: { type: 'string', default: join(repoRoot, '.care/bench-side-by-side') },
  },
});
if (!values.base) throw new Error('--base REV is required (the commit to compare this checkout with)');
const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
const baseRev = git('rev-parse', '--short', values.base);
const headRev = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? ' (with uncommitted changes)' : '');
const dir = resolve(values.dir!);
const sizes = values.sizes!.split(',').map(Number);
const rounds = Number(values.rounds);

// the base tree, once per commit
const baseTree = join(dir, `tree-${baseRev}`);
if (!existsSync(join(baseTree, 'package.json'))) {
  mkdirSync(baseTree, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${baseRev} | tar -x -C '${baseTree}'`], { cwd: repoRoot });
  symlinkSync(join(repoRoot, 'node_modules'), join(baseTree, 'node_modules'));
}

// the data, seeded once by this checkout (as bench/sandbox.ts seeds it)
const seeded = join(dir, 'seeded');
mkdirSync(seeded, { recursive: true });
for (const size of sizes) {
  const file = join(seeded, `sandbox-${size}.db`);
  if (existsSync(file)) continue;
  const sb = await createSandbox({ db: file, port: 0, seedCases: { sandbox: size, production: 50 }, deliver: false, log: () => undefined });
  await sb.close();
  console.log(`seeded ${size} cases -> ${file}`);
}

interface Figures {
  size: number;
  classes: Array<{ name: string; p50: number; p99: number }>;
  mixReadOnly?: { rps: number; p50: number; p99: number };
  mixWrites?: { rps: number; p50: number; p99: number };
}
const sides = { base: { rev: baseRev, bin: join(baseTree, 'bin/care-sandbox.js'), runs: [] as Figures[][] }, head: { rev: headRev, bin: join(repoRoot, 'bin/care-sandbox.js'), runs: [] as Figures[][] } };

for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const);
  for (const side of order) {
    const runDir = join(dir, 'run');
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true });
    for (const f of readdirSync(seeded)) if (/^sandbox-\d+\.db$/.test(f)) cpSync(join(seeded, f), join(runDir, f));
    const out = join(dir, `round${round + 1}-${side}.json`);
    const log = join(dir, `round${round + 1}-${side}.log`);
    const args = ['--import', 'tsx', join(repoRoot, 'bench/sandbox.ts'), '--sizes', values.sizes!, '--samples', values.samples!, '--seconds', values.seconds!, '--json-server-max', '0', '--floor-max', '0', '--dir', runDir, '--sandbox-bin', sides[side].bin, '--json', out, ...(values.classes ? ['--classes', values.classes] : []), ...(values['no-mix'] ? ['--no-mix'] : [])];
    const started = Date.now();
    const run = spawnSync(process.execPath, args, { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    writeFileSync(log, run.stdout + run.stderr);
    if (run.status !== 0) throw new Error(`round ${round + 1} ${side} failed (${run.status}); see ${log}`);
    sides[side].runs.push(JSON.parse(readFileSync(out, 'utf8')));
    console.log(`round ${round + 1} ${side} (${sides[side].rev}): ${((Date.now() - started) / 1000).toFixed(0)} s, load average ${loadavg()[0].toFixed(1)}`);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x: number, digits = 2) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

console.log(`\n== ${baseRev} (base) against ${headRev} (head): ${rounds} rounds alternated, ${values.samples} first requests per class per round ==`);
for (const size of sizes) {
  const perClass = (side: 'base' | 'head') => {
    const byName = new Map<string, number[]>();
    for (const run of sides[side].runs) for (const c of run.find((f) => f.size === size)!.classes) byName.set(c.name, [...(byName.get(c.name) ?? []), c.p50]);
    return new Map([...byName].map(([name, p50s]) => [name, median(p50s)]));
  };
  const base = perClass('base');
  const head = perClass('head');
  const ratios = [...head].filter(([name]) => base.has(name)).map(([name, p50]) => ({ name, ratio: p50 / base.get(name)!, base: base.get(name)!, head: p50 }));
  const geo = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r.ratio), 0) / ratios.length);
  const slower = ratios.filter((r) => r.ratio > 1.1).sort((a, b) => b.ratio - a.ratio);
  const faster = ratios.filter((r) => r.ratio < 1 / 1.1);
  console.log(`\n${size} cases, ${ratios.length} classes: p50 head/base median ${fmt(median(ratios.map((r) => r.ratio)))}, geometric mean ${fmt(geo)}; ${slower.length} classes more than 10 % slower, ${faster.length} more than 10 % faster`);
  for (const r of slower.slice(0, 12)) console.log(`  slower: ${r.name.padEnd(44)} ${fmt(r.base)} -> ${fmt(r.head)} ms (${fmt(r.ratio)}x)`);
  for (const kind of ['mixReadOnly', 'mixWrites'] as const) {
    const of = (side: 'base' | 'head') => sides[side].runs.map((run) => run.find((f) => f.size === size)![kind]).filter((m) => m !== undefined);
    const [b, h] = [of('base'), of('head')];
    if (b.length === 0) continue;
    const rps = (ms: typeof b) => ms.map((m) => fmt(m.rps, 0)).join(', ');
    console.log(`  mix ${kind === 'mixWrites' ? 'with 5 % writes' : 'read-only      '}: base ${rps(b)} req/s (median ${fmt(median(b.map((m) => m.rps)), 0)}, p99 ${fmt(median(b.map((m) => m.p99)), 1)} ms); head ${rps(h)} req/s (median ${fmt(median(h.map((m) => m.rps)), 0)}, p99 ${fmt(median(h.map((m) => m.p99)), 1)} ms); head/base ${fmt(median(h.map((m) => m.rps)) / median(b.map((m) => m.rps)))}`);
  }
}
process.exit(0);
