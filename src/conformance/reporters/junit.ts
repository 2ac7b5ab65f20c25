// The JUnit XML report: one testsuite per area, one testcase per check; CI servers read it.
import type { RunReport } from '../types.ts';

const xml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
    // XML 1.0 cannot hold most control characters, even escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? 'undefined');

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
        const c = f.context;
        const compared = c && ('expected' in c || 'actual' in c) ? `expected: ${show(c.expected)}\nactual: ${show(c.actual)}${c.at ? `\nat: ${c.at}` : ''}` : '';
        const body = [f.why, compared, f.curl ? `request: ${f.curl}` : '', f.excerpt ? `response: ${f.excerpt}` : '', `statements: ${r.statements.join(', ')}`].filter(Boolean).join('\n');
        // The structured context as properties too (D-109): tools that read them sort and group failures by them.
        const props: Array<[string, string]> = [['statements', r.statements.join(', ')]];
        if (c && 'expected' in c) props.push(['expected', show(c.expected)]);
        if (c && 'actual' in c) props.push(['actual', show(c.actual)]);
        if (c?.at) props.push(['at', c.at]);
        if (c?.exchange) props.push(['request', `${c.exchange.method} ${c.exchange.url}`], ['status', String(c.exchange.status)], ['content-type', c.exchange.contentType ?? '']);
        out.push('      <properties>', ...props.map(([name, value]) => `        <property name="${xml(name)}" value="${xml(value)}"/>`), '      </properties>');
        out.push(`      <failure message="${xml(f.why)}" type="${xml(c?.at ?? 'check')}">${xml(body)}</failure>`);
      }
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}
