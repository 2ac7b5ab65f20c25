// In-process profile of GET /cases query classes against the storage alone (no HTTP): the page and the count of a
// first request (after a write), min of --repeat tries so a loaded machine shows the work, not the queue.
// Usage: npx tsx bench/sandbox-profile.ts --db FILE [--classes REGEX] [--samples 5] [--repeat 3] [--engine memory|sql]
// (`--engine sql`: the SQL path alone; `memory`, the default: the column engine of D-84, filled before the first class)
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { parseListQuery } from '../src/grammar/parse.ts';
import { openSqliteStorage } from '../src/sandbox/store/sqlite.ts';
import { loadSpec } from '../src/spec/index.ts';
import { pageOf, prng, queryClasses } from './sandbox-classes.ts';

const { values } = parseArgs({ options: { db: { type: 'string' }, classes: { type: 'string' }, samples: { type: 'string', default: '5' }, repeat: { type: 'string', default: '3' }, engine: { type: 'string', default: 'memory' } } });
const spec = loadSpec();
const list = spec.operation('listCases').list!;
const opened = performance.now();
const engine = values.engine === 'sql' ? 'sql' : 'memory-only';
const store = openSqliteStorage(spec, { file: values.db!, caseLists: engine, caseMemoryLoad: 'sync' });
console.log(`opened (${values.engine}) in ${(performance.now() - opened).toFixed(0)} ms, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
const contracts = ['CT0000101', 'CT0000102', 'CT0000103'];
const customerOrg = (store.get('cases', 'sandbox', 'CS0000001') as any)?.internal.customerOrg ?? 'ORG0000010';
const rows = store.list('cases', 'sandbox', { by: 'customerOrg', values: [customerOrg] }, { page: { number: 1, size: 500 }, sort: [], filters: [] }).items;
const victim = rows[0].id;
const random = prng(11);
const out: Array<[string, number, number]> = [];
for (const cls of queryClasses(spec).filter((c) => !values.classes || new RegExp(values.classes).test(c.name))) {
  const times: number[] = [];
  for (let i = 0; i < Number(values.samples); i++) {
    const page = pageOf(random);
    const q = `${cls.query(random, rows)}&page[number]=${page.number}&page[size]=${page.size}`.replace(/^&/, '');
    const parsed = parseListQuery(q, list, spec.operators);
    if (parsed.errors.length) continue;
    const scope = random() < 0.5 ? { by: 'contract' as const, values: contracts } : { by: 'customerOrg' as const, values: [customerOrg] };
    let best = Infinity;
    for (let r = 0; r < Number(values.repeat); r++) {
      store.update('cases', 'sandbox', victim, { priority: 1 + (r % 4) });
      const t = performance.now();
      store.list('cases', 'sandbox', scope, parsed.query);
      best = Math.min(best, performance.now() - t);
    }
    times.push(best);
  }
  times.sort((a, b) => a - b);
  out.push([cls.name, times[Math.floor(times.length / 2)], times[times.length - 1]]);
  console.log(cls.name.padEnd(44), times[Math.floor(times.length / 2)].toFixed(2).padStart(8), times[times.length - 1].toFixed(2).padStart(8));
}
out.sort((a, b) => b[1] - a[1]);
console.log('\nworst p50:', out.slice(0, 15).map(([n, p]) => `${n} ${p.toFixed(1)}`).join(', '));
store.close();
