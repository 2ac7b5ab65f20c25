// Where the column engine's memory goes (issue 8's RSS target, decisions D-84 and D-85): prints figures, asserts nothing.
// Fills the engine from an existing database (as the sandbox does, without HTTP), lists each query class of
// GET /cases a few times (bench/sandbox-classes.ts; the structures made on first use are then there, as after the
// mix), and prints the engine's footprint per part (footprint.ts: typed arrays exact, V8 heap estimated) next to the
// process's own figures, each after a full garbage collection.
// Usage: npx tsx bench/sandbox-memory.ts --db FILE [--lists 3]
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { parseListQuery } from '../src/grammar/parse.ts';
import { resourceColumns } from '../src/sandbox/store/columns.ts';
import { openCaseMemory } from '../src/sandbox/store/memory/engine.ts';
import { sqliteCaseRows } from '../src/sandbox/store/sqlite-case-rows.ts';
import { loadSpec } from '../src/spec/index.ts';
import { pageOf, prng, queryClasses } from './sandbox-classes.ts';
import { loadCases } from './sandbox-floor.ts';

const { values } = parseArgs({ options: { db: { type: 'string' }, lists: { type: 'string', default: '3' } } });
if (!values.db) throw new Error('--db FILE: a sandbox database (npm run bench:sandbox seeds them under .care/bench)');
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MB = 2 ** 20;
const mb = (n: number) => (n / MB).toFixed(1);

function processFigures(label: string): void {
  gc();
  const m = process.memoryUsage();
  console.log(`${label.padEnd(28)} RSS ${mb(m.rss).padStart(6)} MB, V8 heap used ${mb(m.heapUsed).padStart(6)} of ${mb(m.heapTotal)}, array buffers ${mb(m.arrayBuffers).padStart(6)}`);
}

processFigures('before the spec');
const spec = loadSpec();
processFigures('spec loaded');
const db = new Database(values.db, { readonly: true });
const caseList = spec.operation('listCases').list!;
const memory = openCaseMemory(spec, sqliteCaseRows(db, resourceColumns(spec, 'Case')), { load: 'sync' });
const cases = (db.prepare(`SELECT count(*) FROM cases WHERE env = 'sandbox'`).pluck().get() as number) || 1;
processFigures(`filled (${cases} cases)`);

// both account kinds of the seed: a customer (its organisation) and the partner (three contracts)
const contracts = db.prepare(`SELECT id FROM contracts WHERE env = 'sandbox' AND partner_org IS NOT NULL ORDER BY id`).pluck().all() as string[];
const customerOrg = db.prepare(`SELECT customer_org FROM cases WHERE env = 'sandbox' ORDER BY seq LIMIT 1`).pluck().get() as string;
// the rows the classes draw their values from, as the bench's own (a customer's first cases)
const records = loadCases(spec, values.db, { sql: 'customer_org = ?', params: [customerOrg], limit: 500 }).map((r) => r.record);
const random = prng(11);
let listed = 0;
for (let round = 0; round < Number(values.lists); round++) {
  for (const cls of queryClasses(spec)) {
    const page = pageOf(random);
    const parsed = parseListQuery(`${cls.query(random, records)}&page[number]=${page.number}&page[size]=${page.size}`.replace(/^&/, ''), caseList, spec.operators);
    if (parsed.errors.length > 0) continue;
    const scope = round % 2 === 0 ? { by: 'contract' as const, values: contracts } : { by: 'customerOrg' as const, values: [customerOrg] };
    if (memory.list('sandbox', scope, parsed.query)) listed++;
  }
}
processFigures(`after ${listed} lists`);

const parts = memory.footprint();
let buffers = 0;
let heap = 0;
console.log(`\n${'part'.padEnd(44)} ${'buffers MB'.padStart(10)} ${'heap MB~'.padStart(9)} ${'B/case'.padStart(7)}`);
for (const p of parts.sort((a, b) => b.buffers + b.heap - a.buffers - a.heap)) {
  buffers += p.buffers;
  heap += p.heap;
  if (p.buffers + p.heap < 0.05 * MB) continue;
  console.log(`${p.part.padEnd(44)} ${mb(p.buffers).padStart(10)} ${mb(p.heap).padStart(9)} ${((p.buffers + p.heap) / cases).toFixed(1).padStart(7)}`);
}
console.log(`${'engine, all parts'.padEnd(44)} ${mb(buffers).padStart(10)} ${mb(heap).padStart(9)} ${((buffers + heap) / cases).toFixed(1).padStart(7)}`);
console.log('(buffers: typed arrays, exact; heap: strings, arrays, Maps and objects, estimated from V8 64-bit layout)');
memory.close();
db.close();
