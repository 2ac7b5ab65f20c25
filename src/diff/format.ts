// The diff as human text, Markdown (also the CHANGELOG sections) and JSON.
import { countByClassification } from './index.ts';
import type { GateResult } from './gate.ts';
import type { Change, Classification } from './types.ts';

export type Format = 'text' | 'markdown' | 'json';

const HEADINGS: Record<Classification, string> = {
  breaking: 'Breaking changes',
  'non-breaking': 'Additions and other non-breaking changes',
  documentation: 'Documentation',
};

function group(changes: Change[]): Array<[Classification, Change[]]> {
  return (['breaking', 'non-breaking', 'documentation'] as Classification[])
    .map((c): [Classification, Change[]] => [c, changes.filter((change) => change.classification === c)])
    .filter(([, list]) => list.length > 0);
}

function summary(changes: Change[]): string {
  const counts = countByClassification(changes);
  return `${counts.breaking} breaking, ${counts['non-breaking']} non-breaking, ${counts.documentation} documentation`;
}

export function formatText(changes: Change[], labels: { base: string; head: string }, result?: GateResult): string {
  const lines = [`${labels.base} → ${labels.head}: ${summary(changes)}`];
  for (const [classification, list] of group(changes)) {
    lines.push('', classification.toUpperCase());
    for (const change of list) {
      lines.push(`  [${change.rule}] ${change.operation ? `${change.operation}: ` : ''}${change.message}`);
      lines.push(`      base ${change.basePointer ?? '-'}`, `      head ${change.headPointer ?? '-'}`);
    }
  }
  if (result) lines.push('', ...gateLines(result));
  return lines.join('\n') + '\n';
}

export function gateLines(result: GateResult): string[] {
  const lines: string[] = [];
  for (const verdict of result.verdicts) {
    lines.push(verdict.problem
      ? `REFUSED ${verdict.change.id}: ${verdict.problem}`
      : `accepted ${verdict.change.id}: ${verdict.route} (reason: ${verdict.acknowledged?.reason})`);
  }
  for (const unused of result.unused) lines.push(`note: acknowledgement names no change of this comparison: ${unused.change}`);
  lines.push(result.ok ? 'gate: passed' : 'gate: FAILED (acknowledge each breaking change in releases/acknowledged.yaml with a reason, and follow D-33)');
  return lines;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Markdown sections, breaking first; `heading` is the level of each section title (`###` in the changelog). */
export function formatMarkdown(changes: Change[], options: { heading?: string; pointers?: boolean } = {}): string {
  const heading = options.heading ?? '##';
  if (changes.length === 0) return 'No changes to the description.\n';
  const parts: string[] = [];
  for (const [classification, list] of group(changes)) {
    parts.push(`${heading} ${HEADINGS[classification]}`, '');
    for (const change of list) {
      const where = options.pointers === false ? '' : ` (\`${change.headPointer ?? change.basePointer ?? ''}\`)`;
      parts.push(`- ${change.operation ? `**${change.operation}**: ` : ''}${escapeCell(change.message)} — \`${change.rule}\`${where}`);
    }
    parts.push('');
  }
  return parts.join('\n');
}

export function formatJson(changes: Change[], labels: { base: string; head: string }, result?: GateResult): string {
  return JSON.stringify({ base: labels.base, head: labels.head, summary: countByClassification(changes), changes, ...(result ? { gate: { ok: result.ok, verdicts: result.verdicts.map((v) => ({ change: v.change.id, acknowledged: v.acknowledged?.reason ?? null, route: v.route ?? null, problem: v.problem ?? null })), unused: result.unused } } : {}) }, null, 2) + '\n';
}
