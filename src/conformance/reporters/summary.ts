// The Markdown summary (`--summary FILE`) for a CI job page: the verdict, the failures first (by area, each with the
// statements it breaks and what was expected and found), the table by area, each skip reason once, what was left.
import type { CheckResult, RunReport } from '../types.ts';

const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;
const line = (s: string) => s.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function verdict(report: RunReport): string {
  if (report.stopped) return report.stopped.kind === 'interrupted' ? 'INTERRUPTED' : 'STOPPED';
  return report.ok ? 'PASS' : 'FAIL';
}

function failure(r: CheckResult): string[] {
  const f = r.failure!;
  const out = [`- **${r.id}** (${r.statements.map(code).join(', ')}): ${line(f.why)}`];
  const c = f.context;
  if (c && ('expected' in c || 'actual' in c)) out.push(`  - expected ${code(json(c.expected))}, got ${code(json(c.actual))}${c.at ? ` at ${code(c.at)}` : ''}`);
  if (f.curl) out.push('  <details><summary>request and response</summary>', '', '  ```', `  ${f.curl}`, ...(f.excerpt ?? '').split('\n').map((l) => `  ${l}`), '  ```', '  </details>');
  return out;
}

export function renderSummary(report: RunReport): string {
  const out = [
    `# care-conformance: ${verdict(report)}`,
    '',
    `${report.results.length} checks, ${report.requests} requests, ${(report.durationMs / 1000).toFixed(1)} s against ${code(report.target.baseUrl)} (${report.target.environment}).`,
  ];
  if (report.stopped) out.push('', `**${report.stopped.kind === 'interrupted' ? 'Interrupted' : 'Stopped'}:** ${line(report.stopped.why)}`);
  const failed = report.results.filter((r) => r.status === 'failed');
  if (failed.length) {
    out.push('', `## Failures (${failed.length})`);
    for (const a of report.areas.filter((a) => a.failed > 0)) {
      out.push('', `### ${a.area}`, '', ...failed.filter((r) => r.area === a.area).flatMap(failure));
    }
  }
  out.push('', '## By area', '', '| area | passed | failed | skipped |', '|---|---:|---:|---:|');
  for (const a of report.areas) out.push(`| ${a.area} | ${a.passed} | ${a.failed} | ${a.skipped} |`);
  const reasons = new Map<string, string[]>();
  for (const r of report.results.filter((r) => r.status === 'skipped')) reasons.set(r.reason ?? '', [...(reasons.get(r.reason ?? '') ?? []), r.id]);
  if (reasons.size) {
    out.push('', '## Skipped', '');
    for (const [reason, ids] of reasons) out.push(`- ${line(reason)}: ${ids.length} check(s)${ids.length <= 5 ? ` (${ids.map(code).join(', ')})` : ''}`);
  }
  if (report.left?.items.length) {
    out.push('', '## Left behind', '', ...report.left.items.map((i) => `- ${i}`), ...report.left.problems.map((p) => `- cleanup: ${line(p)}`));
  }
  return out.join('\n') + '\n';
}
