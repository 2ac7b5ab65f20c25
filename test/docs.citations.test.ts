// Every file the decisions and the traceability statements cite can be opened by a reader of this repository: paths
// are taken from the repository root or, as the description's own references are written, from openapi/ (or its
// components/).
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/load.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === '.git') return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? [path, ...filesUnder(path)] : [path];
  });
}

const files = filesUnder(repoRoot).map((path) => relative(repoRoot, path));

/** Does a cited path (maybe with `*`, maybe a folder ending in `/`) name something in the repository? */
function exists(cited: string): boolean {
  const path = cited.replace(/\/$/, '');
  const pattern = new RegExp(`^(?:openapi/|openapi/components/)?${path.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  return files.some((file) => pattern.test(file));
}

const PATH = /^[\w.*{}-]+(\/[\w.*{}-]+)*\/([\w.*{}-]+\.(md|ya?ml|ts|js|json|txt|html)|)$/;

/** Tokens that look like file paths (a folder and a file extension, or a folder ending in `/`): backticked in
 * Markdown, any word in YAML. */
function citedPaths(text: string, markdown: boolean): string[] {
  const tokens = markdown ? [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]) : text.split(/[\s,;()]+/);
  return tokens.filter((token) => PATH.test(token));
}

describe('citations point to files in the repository', () => {
  it.each(['docs/decisions.md', 'docs/traceability/statements.yaml', 'README.md'])('%s', (doc) => {
    const text = readFileSync(join(repoRoot, doc), 'utf8');
    const cited = citedPaths(text, doc.endsWith('.md'));
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter((path) => !exists(path))).toEqual([]);
  });

  it('the seed is in the repository, verbatim under a one-line header', () => {
    const seed = readFileSync(join(repoRoot, 'docs/seed.md'), 'utf8').split('\n');
    expect(seed[0]).toMatch(/^<!-- .*requirements text.* -->$/);
    expect(seed[2]).toBe('# Care Service Interface Specification (ITSM e-bonding)');
  });
});
