// Every check names seed statements that exist, and docs/traceability.md is what the generator renders now.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';
import { ALL_CHECKS } from '../src/conformance/checks/index.ts';
import type { Check } from '../src/conformance/check.ts';
import { decisionsWithoutStatement, readStatements, renderTraceability, unaccounted, unknownStatementIds } from '../src/conformance/traceability.ts';

const statements = readStatements(join(repoRoot, 'docs/traceability/statements.yaml'));

describe('traceability', () => {
  it('every check names at least one statement, and only known ones', () => {
    expect(ALL_CHECKS.filter((c) => c.statements.length === 0).map((c) => c.id)).toEqual([]);
    expect(unknownStatementIds(statements, ALL_CHECKS)).toEqual([]);
  });

  it('an unknown statement id is refused by the generator', () => {
    const bogus: Check = { id: 'x.y', area: 'auth', title: 't', statements: ['S9.no-such-statement'], run: async () => {} };
    expect(unknownStatementIds(statements, [bogus])).toEqual([{ check: 'x.y', id: 'S9.no-such-statement' }]);
    expect(() => renderTraceability(statements, [bogus])).toThrow(/S9\.no-such-statement/);
  });

  it('every decision of docs/decisions.md has a statement, and each is checked or says why it cannot be', () => {
    expect(decisionsWithoutStatement(readFileSync(join(repoRoot, 'docs/decisions.md'), 'utf8'), statements)).toEqual([]);
    expect(unaccounted(statements, ALL_CHECKS)).toEqual([]);
    // The rule bites: a decision heading without a statement, and a statement without check or reason, are reported.
    expect(decisionsWithoutStatement('### D-99 Something new\n', statements)).toEqual(['D-99']);
    expect(unaccounted([{ id: 'D-99.x', section: 'decisions', text: 't', description: '' }], ALL_CHECKS)).toEqual(['D-99.x']);
  });

  it('check ids are unique', () => {
    expect(new Set(ALL_CHECKS.map((c) => c.id)).size).toBe(ALL_CHECKS.length);
  });

  it('docs/traceability.md is up to date (npm run traceability)', () => {
    expect(readFileSync(join(repoRoot, 'docs/traceability.md'), 'utf8')).toBe(renderTraceability(statements, ALL_CHECKS));
  });
});
