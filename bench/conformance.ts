// `npm run bench:conformance`: the full suite against a fresh reference sandbox; prints time and HTTP requests per
// area and in total (target: under 60 s on 2 cores). Figures only, no assertions.
import { runSuite } from '../src/conformance/runner.ts';
import { validateConfig } from '../src/conformance/config.ts';
import { startSandbox } from '../test/support/conformance-targets.ts';

const started = Date.now();
const sandbox = await startSandbox('sandbox');
const startup = Date.now() - started;
try {
  const report = await runSuite({
    config: validateConfig(sandbox.config),
    allowWrites: false,
    stateless: false,
    areas: [],
    listen: '127.0.0.1:0',
    deliveryTimeoutMs: 10_000,
  });
  const rows = report.areas.map((a) => [a.area, (a.durationMs / 1000).toFixed(2), String(a.requests), String(a.passed), String(a.failed), String(a.skipped)]);
  const head = ['area', 'seconds', 'requests', 'passed', 'failed', 'skipped'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`sandbox start: ${(startup / 1000).toFixed(2)} s`);
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  const perSecond = report.requests / (report.durationMs / 1000);
  console.log(`total: ${(report.durationMs / 1000).toFixed(2)} s, ${report.requests} HTTP requests (${perSecond.toFixed(0)}/s incl. token exchanges), ${report.results.length} checks, ${report.ok ? 'all passed' : `${report.results.filter((r) => r.status === 'failed').length} failed`}`);
} finally {
  await sandbox.stop();
}
