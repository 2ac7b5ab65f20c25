// diffDescriptions(base, head): every change between two bundled descriptions, classified (docs/decisions.md D-52).
// The generic OpenAPI part comes from api-smart-diff (library.ts); our rules (care-*.ts) add what only this
// description means and replace the library's finding where both speak of the same place.
import { contractRules } from './care-contract.ts';
import { listRules } from './care-lists.ts';
import { libraryChanges } from './library.ts';
import { isUnder } from './pointer.ts';
import type { Change, Classification } from './types.ts';

export type * from './types.ts';

const ORDER: Classification[] = ['breaking', 'non-breaking', 'documentation'];

export function diffDescriptions(base: any, head: any): Change[] {
  const findings = [listRules(base, head), contractRules(base, head)];
  const supersedes = findings.flatMap((f) => f.supersedes);
  const replaced = (change: Change) => supersedes.some((prefix) => isUnder(change.basePointer, prefix) || isUnder(change.headPointer, prefix));
  const generic = libraryChanges(base, head).filter((change) => !replaced(change));
  const seen = new Set<string>();
  return [...findings.flatMap((f) => f.changes), ...generic]
    .filter((change) => (seen.has(change.id) ? false : (seen.add(change.id), true)))
    .sort((a, b) => ORDER.indexOf(a.classification) - ORDER.indexOf(b.classification) || a.id.localeCompare(b.id));
}

export function countByClassification(changes: Change[]): Record<Classification, number> {
  const counts: Record<Classification, number> = { breaking: 0, 'non-breaking': 0, documentation: 0 };
  for (const change of changes) counts[change.classification] += 1;
  return counts;
}
