// `npx tsx bench/diff.ts`: time to compare two full descriptions (target: under 3 s, issue 9). Compares the last
// release with the current bundle, and with a copy carrying a change in every area the rules cover; prints, never
// asserts.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { diffDescriptions } from '../src/diff/index.ts';
import { latestRelease, baselinePath } from '../scripts/contract/releases.ts';
import { bundlePath, repoRoot } from '../src/spec/index.ts';

const read = (file: string) => parse(readFileSync(file, 'utf8'), { maxAliasCount: -1 });
const latest = latestRelease(repoRoot);
const base = read(latest ? baselinePath(repoRoot, latest) : bundlePath());
const current = read(bundlePath());
const changed = structuredClone(current);
const schemas = changed.components.schemas;
delete schemas.Case.properties.incident;
schemas.CaseCreate.required.push('priority');
delete schemas.CaseFilter.properties.contact;
schemas.FilterOperator['x-care-operators'].between.arity = 'list';
delete changed.paths['/cases/{caseId}'].patch;
changed.security = [{ bearerAuth: [] }];
delete schemas.CaseUpdatedEvent.properties.meta;

for (const [label, head] of [['release vs current', current], ['release vs changed', changed]] as const) {
  const runs: number[] = [];
  let count = 0;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    count = diffDescriptions(base, head).length;
    runs.push(performance.now() - started);
  }
  console.log(`${label}: ${count} changes; first ${(runs[0] / 1000).toFixed(2)} s, then ${runs.slice(1).map((ms) => (ms / 1000).toFixed(2)).join(' ')} s`);
}
