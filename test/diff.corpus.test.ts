// Issue 9: the diff classifies each change of the corpus exactly (test/diff-corpus/cases.ts), never calls a
// non-breaking change breaking, and points at both sides with pointers that resolve.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { diffDescriptions } from '../src/diff/index.ts';
import { resolveThroughRefs } from '../src/diff/pointer.ts';
import { baselinePath, latestRelease } from '../scripts/contract/releases.ts';
import { repoRoot } from '../src/spec/index.ts';
import { corpus } from './diff-corpus/cases.ts';

// api-smart-diff merges allOf before comparing: below an `allOf` a pointer addresses the merged schema, so only the
// part before it must resolve in the document itself.
const resolvable = (document: unknown, pointer: string) => resolveThroughRefs(document, pointer.split('/allOf/')[0]);

const base = parse(readFileSync(baselinePath(repoRoot, latestRelease(repoRoot)!), 'utf8'), { maxAliasCount: -1 });

describe('diff corpus', () => {
  it('has at least 40 cases covering breaking, non-breaking and documentation in every direction', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    const rules = corpus.flatMap((c) => c.expected.map(([, rule]) => rule));
    for (const prefix of ['request.', 'response.', 'event.', 'event-reply.', 'care.filter.', 'care.sort.', 'care.operator.', 'care.environment.', 'care.env-header.', 'care.security.']) {
      expect(rules.some((rule) => rule.startsWith(prefix)), prefix).toBe(true);
    }
  });

  it('finds nothing between a description and itself', () => {
    expect(diffDescriptions(base, structuredClone(base))).toEqual([]);
  });

  for (const corpusCase of corpus) {
    it(corpusCase.name, () => {
      const from = structuredClone(base);
      corpusCase.base?.(from);
      const head = structuredClone(from);
      corpusCase.edit(head);
      const changes = diffDescriptions(from, head);
      const got = [...new Set(changes.map((c) => `${c.classification} ${c.rule}`))].sort();
      const expected = [...new Set(corpusCase.expected.map(([classification, rule]) => `${classification} ${rule}`))].sort();
      expect(got).toEqual(expected);
      for (const change of changes) {
        expect(change.basePointer ?? change.headPointer, change.id).toBeDefined();
        if (change.basePointer) expect(resolvable(from, change.basePointer), `base ${change.id}`).toBeDefined();
        if (change.headPointer) expect(resolvable(head, change.headPointer), `head ${change.id}`).toBeDefined();
      }
    });
  }
});
