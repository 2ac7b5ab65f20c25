// A description to compare, from what the command line names: a bundle file, a directory (a release, generated/,
// an openapi/ tree or a repository), or a git ref (its committed bundle, else its openapi/ tree bundled). It reads
// only that (D-117): sizes and YAML aliases bounded, and a tree's `$ref`s checked before Redocly bundles it (no URL,
// nothing outside the directory named or the repository). Every refusal is a DiffRefusal with a one-line reason.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { completeBundle } from '../build/complete.ts';
import { runRedocly } from '../build/redocly.ts';
import { checkSize, checkTree, DiffRefusal, MAX_TREE_BYTES, MAX_TREE_FILES, parseBounded, readBounded, redoclyReason, shownFrom } from './bounded-read.ts';

export interface LoadedDescription {
  document: any;
  label: string;
}

/** A bundle's text parsed with sizes and aliases bounded (`label` names it in a refusal). */
export function parseDescription(text: string, label = 'the description'): any {
  return parseBounded(text, label);
}

async function bundleTree(openapiRoot: string, root: string, label: string): Promise<any> {
  // The same bundling as `npm run build` (scripts/build/bundle.ts), without the lint: a base may predate a rule.
  const result = await runRedocly(['bundle', openapiRoot, '--ext=yaml', '--lint-config=off'], root);
  if (result.code !== 0) throw new DiffRefusal(`${label}: Redocly could not bundle it: ${redoclyReason(result.stderr)}`);
  // and the bundle step's own completion (D-20, D-105), so a tree compares equal to its bundle
  const document = parseDescription(result.stdout, label);
  completeBundle(document);
  return document;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

/** The `openapi/` tree of a git ref, refused before extraction when it holds too many files or bytes. */
function checkArchive(root: string, spec: string): void {
  const listing = git(root, ['ls-tree', '-r', '-l', spec, '--', 'openapi']) ?? '';
  const sizes = listing.split('\n').filter(Boolean).map((line) => Number(line.split(/\s+/)[3]) || 0);
  if (sizes.length > MAX_TREE_FILES) throw new DiffRefusal(`${spec}:openapi/ holds ${sizes.length} files, more than the ${MAX_TREE_FILES} npm run diff reads`);
  const bytes = sizes.reduce((a, b) => a + b, 0);
  if (bytes > MAX_TREE_BYTES) throw new DiffRefusal(`${spec}:openapi/ holds ${bytes} bytes, more than the ${MAX_TREE_BYTES} npm run diff reads`);
}

export async function loadDescription(spec: string, root: string): Promise<LoadedDescription> {
  const path = resolve(root, spec);
  const show = shownFrom(root);
  const shown = show(path);
  if (existsSync(path) && statSync(path).isFile()) return { document: readBounded(path, shown), label: shown };
  if (existsSync(path) && statSync(path).isDirectory()) {
    for (const bundle of ['care-api.yaml', 'generated/care-api.yaml']) {
      if (existsSync(join(path, bundle)) && !existsSync(join(path, 'openapi.yaml')) && !existsSync(join(path, 'openapi/openapi.yaml'))) {
        return { document: readBounded(join(path, bundle), join(shown, bundle)), label: join(shown, bundle) };
      }
    }
    for (const source of ['openapi.yaml', 'openapi/openapi.yaml']) {
      if (existsSync(join(path, source))) {
        // The directory named and the repository: a $ref anywhere else is refused before Redocly follows it.
        checkTree(join(path, source), [{ path, label: shown }, { path: root, label: 'the repository' }], show);
        return { document: await bundleTree(join(path, source), root, join(shown, source)), label: join(shown, source) };
      }
    }
    throw new DiffRefusal(`${spec}: no care-api.yaml, openapi.yaml or openapi/openapi.yaml in this directory`);
  }
  const size = git(root, ['cat-file', '-s', `${spec}:generated/care-api.yaml`]);
  if (size !== undefined) {
    const label = `${spec}:generated/care-api.yaml`;
    checkSize(Number(size), label);
    return { document: parseDescription(git(root, ['show', `${spec}:generated/care-api.yaml`]) ?? '', label), label };
  }
  if (git(root, ['rev-parse', '--verify', '--quiet', `${spec}^{commit}`]) === undefined) {
    throw new DiffRefusal(`${spec} is neither a file, a directory nor a git ref`);
  }
  checkArchive(root, spec);
  const scratch = mkdtempSync(join(tmpdir(), 'care-diff-'));
  try {
    execFileSync('sh', ['-c', `git archive "$1" openapi | tar -x -C "$2"`, 'sh', spec, scratch], { cwd: root });
    const entry = join(scratch, 'openapi/openapi.yaml');
    const label = `${spec}:openapi/`;
    if (!existsSync(entry)) throw new DiffRefusal(`${label}: no openapi/openapi.yaml at that ref`);
    // Only the ref's own openapi/ tree: a $ref out of it would read this machine's files, not the ref's.
    const realScratch = realpathSync(scratch);
    const inRef = (p: string) => (p.startsWith(realScratch) ? `${spec}:${p.slice(realScratch.length + 1) || '.'}` : p);
    checkTree(entry, [{ path: join(scratch, 'openapi'), label: `${spec}:openapi/` }], inRef);
    return { document: await bundleTree(entry, root, label), label };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
