import { performance } from 'node:perf_hooks';
import { parseListQuery } from './src/grammar/parse.ts';
import { openSqliteStorage } from './src/sandbox/store/sqlite.ts';
import { loadSpec } from './src/spec/index.ts';
const spec = loadSpec();
const list = spec.operation('listCases').list!;
const store = openSqliteStorage(spec, { file: '.care/bench/sandbox-100000.db', caseLists: (process.argv[3] ?? 'memory-only') as any, caseMemoryLoad: 'sync' });
const scope = { by: 'contract' as const, values: ['CT0000101', 'CT0000102', 'CT0000103'] };
for (const q of process.argv[2].split(' ')) {
  const parsed = parseListQuery(q, list, spec.operators);
  if (parsed.errors.length) { console.log(parsed.errors); continue; }
  const times = [];
  let r;
  for (let i = 0; i < 7; i++) {
    store.update('cases', 'sandbox', 'CS0000001', { priority: 1 + (i % 4) });
    const t = performance.now();
    r = store.list('cases', 'sandbox', scope, parsed.query, {});
    times.push(performance.now() - t);
  }
  console.log(q, times.map((t) => t.toFixed(1)).join(' '), 'total', r.totalCount);
}
