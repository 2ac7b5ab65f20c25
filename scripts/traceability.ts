// `npm run traceability`: render docs/traceability.md from the statements file and the conformance check registry.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/spec/index.ts';
import { ALL_CHECKS } from '../src/conformance/checks/index.ts';
import { readStatements, renderTraceability } from '../src/conformance/traceability.ts';

const statements = readStatements(join(repoRoot, 'docs/traceability/statements.yaml'));
const out = join(repoRoot, 'docs/traceability.md');
writeFileSync(out, renderTraceability(statements, ALL_CHECKS));
console.log(`wrote ${out}: ${statements.length} statements, ${ALL_CHECKS.length} checks`);
