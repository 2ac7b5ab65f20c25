// The JUnit XML report: one testsuite per area, one testcase per check; CI servers read it.
import type { RunReport } from '../types.ts';

const xml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
    // XML 1.0 cannot hold most control characters, even escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function renderJunit(report: RunReport): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = report.results.filter((r) => r.status === 'failed').length;
  const skipped = report.results.filter((r) => r.status === 'skipped').length;
  out.push(`<testsuites name="care-conformance" tests="${report.results.length}" failures="${failures}" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}">`);
  for (const a of report.areas) {
    const mine = report.results.filter((r) => r.area === a.area);
    out.push(`  <testsuite name="${xml(a.area)}" tests="${mine.length}" failures="${a.failed}" skipped="${a.skipped}" time="${(a.durationMs / 1000).toFixed(3)}">`);
    for (const r of mine) {
      out.push(`    <testcase classname="${xml(`conformance.${r.area}`)}" name="${xml(r.id)}" time="${(r.durationMs / 1000).toFixed(3)}">`);
      if (r.status === 'skipped') out.push(`      <skipped message="${xml(r.reason ?? '')}"/>`);
      if (r.status === 'failed') {
        const f = r.failure!;
        const body = [f.why, f.curl ? `request: ${f.curl}` : '', f.excerpt ? `response: ${f.excerpt}` : '', `statements: ${r.statements.join(', ')}`].filter(Boolean).join('\n');
        out.push(`      <failure message="${xml(f.why)}">${xml(body)}</failure>`);
      }
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}
