// Console output: progress per area while the run goes, then failures (why, curl, excerpt) and a summary table.
import { discriminationSummary } from '../discriminate.ts';
import type { AreaSummary, CheckResult, ProgressEvent, RunReport } from '../types.ts';

const mark = { passed: '✓', failed: '✗', skipped: '-' } as const;

/**
 * Progress as the run goes: each area's name once (the runner starts an area once, and ends it after its last check,
 * even when that check runs after the other areas), failures as they happen, skips only with --verbose (their
 * reasons are printed once, in the summary table).
 */
export function progressPrinter(write: (s: string) => void, verbose = false): (e: ProgressEvent) => void {
  return (e) => {
    if (e.kind === 'area-start') write(`\n${e.area}\n`);
    else if (e.kind === 'result') {
      const r = e.result;
      if (verbose || r.status === 'failed') {
        const tail = r.status === 'skipped' ? ` (skipped: ${r.reason})` : r.status === 'failed' ? `: ${r.failure?.why}` : r.note ? ` (${r.note})` : '';
        write(`  ${mark[r.status]} ${r.id}${tail}\n`);
      }
    } else {
      const failed = e.results.filter((r) => r.status === 'failed').length;
      const skipped = e.results.filter((r) => r.status === 'skipped').length;
      const passed = e.results.length - failed - skipped;
      write(`  ${e.area}: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    }
  };
}

export function renderFailure(r: CheckResult): string {
  const f = r.failure!;
  const lines = [`✗ ${r.id} [${r.statements.join(', ')}]`, `  why: ${f.why}`];
  if (f.curl) lines.push(`  request: ${f.curl}`);
  if (f.excerpt) lines.push(`  response: ${f.excerpt.replace(/\n/g, '\n            ')}`);
  return lines.join('\n');
}

export function renderTable(areas: AreaSummary[]): string {
  // A reason shared by several areas (a stateless target, a read-only run) is written out once.
  const said = new Set<string>();
  const reasons = (a: AreaSummary) => a.skipReasons.map((r) => (said.has(r) ? '(as above)' : (said.add(r), r))).filter((r, i, all) => all.indexOf(r) === i).join('; ');
  const rows = areas.map((a) => [a.area, String(a.passed), String(a.failed), String(a.skipped), reasons(a)]);
  const head = ['area', 'passed', 'failed', 'skipped', 'skip reasons'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i === 4 ? 0 : r[i].length))));
  const line = (cells: string[]) => cells.map((c, i) => (i === 4 ? c : i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const total = areas.reduce((t, a) => [t[0] + a.passed, t[1] + a.failed, t[2] + a.skipped], [0, 0, 0]);
  return [line(head), ...rows.map(line), line(['total', String(total[0]), String(total[1]), String(total[2]), ''])].join('\n');
}

export function renderReport(report: RunReport): string {
  // A stopped run's reason is printed once, at the end, not also as a failure.
  const failures = report.results.filter((r) => r.status === 'failed' && !(report.stopped?.kind === 'target' && r.failure?.why === report.stopped.why));
  const out: string[] = [];
  if (failures.length) out.push('', 'Failures', '', ...failures.map(renderFailure).flatMap((f) => [f, '']));
  out.push('', renderTable(report.areas), '');
  const d = discriminationSummary(report.results);
  if (d) out.push(`discriminated: ${d.discriminated} of ${d.discriminated + d.not} field/operator pairs told apart from their neighbours by the data (${d.not} not discriminated)`);
  const verdict = report.stopped ? (report.stopped.kind === 'interrupted' ? 'INTERRUPTED' : 'STOPPED') : report.ok ? 'PASS' : 'FAIL';
  out.push(`${verdict}: ${report.results.length} checks, ${report.requests} requests, ${(report.durationMs / 1000).toFixed(1)} s against ${report.target.baseUrl} (${report.target.environment})`);
  if (report.stopped) out.push(`${report.stopped.kind === 'interrupted' ? 'interrupted' : 'stopped'}: ${report.stopped.why}`);
  if (report.left?.items.length) out.push(`left behind: ${report.left.items.join(', ')}`);
  return out.join('\n') + '\n';
}
