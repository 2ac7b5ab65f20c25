// A description to compare, from what the command line names: a bundle file, a directory (a release, generated/,
// an openapi/ tree or a repository), or a git ref (its committed bundle, else its openapi/ tree bundled).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { fillFieldEnums } from '../build/field-enums.ts';
import { runRedocly } from '../build/redocly.ts';

export interface LoadedDescription {
  document: any;
  label: string;
}

export function parseDescription(text: string): any {
  return parse(text, { maxAliasCount: -1 });
}

async function bundleTree(openapiRoot: string, root: string): Promise<any> {
  // The same bundling as `npm run build` (scripts/build/bundle.ts), without the lint: a base may predate a rule.
  const result = await runRedocly(['bundle', openapiRoot, '--ext=yaml', '--lint-config=off'], root);
  if (result.code !== 0) throw new Error(`redocly bundle of ${openapiRoot} failed:\n${result.stderr}`);
  // and the bundle step's own completion (field-name enums, D-20), so a tree compares equal to its bundle
  const document = parseDescription(result.stdout);
  fillFieldEnums(document);
  return document;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

export async function loadDescription(spec: string, root: string): Promise<LoadedDescription> {
  const path = resolve(root, spec);
  const shown = relative(root, path).startsWith('..') ? path : relative(root, path);
  if (existsSync(path) && statSync(path).isFile()) return { document: parseDescription(readFileSync(path, 'utf8')), label: shown };
  if (existsSync(path) && statSync(path).isDirectory()) {
    for (const bundle of ['care-api.yaml', 'generated/care-api.yaml']) {
      if (existsSync(join(path, bundle)) && !existsSync(join(path, 'openapi.yaml')) && !existsSync(join(path, 'openapi/openapi.yaml'))) {
        return { document: parseDescription(readFileSync(join(path, bundle), 'utf8')), label: join(shown, bundle) };
      }
    }
    for (const source of ['openapi.yaml', 'openapi/openapi.yaml']) {
      if (existsSync(join(path, source))) return { document: await bundleTree(join(path, source), root), label: join(shown, source) };
    }
    throw new Error(`${spec}: no care-api.yaml, openapi.yaml or openapi/openapi.yaml in this directory`);
  }
  const committed = git(root, ['show', `${spec}:generated/care-api.yaml`]);
  if (committed !== undefined) return { document: parseDescription(committed), label: `${spec}:generated/care-api.yaml` };
  if (git(root, ['rev-parse', '--verify', '--quiet', `${spec}^{commit}`]) === undefined) {
    throw new Error(`${spec} is neither a file, a directory nor a git ref`);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'care-diff-'));
  try {
    execFileSync('sh', ['-c', `git archive "$1" openapi | tar -x -C "$2"`, 'sh', spec, scratch], { cwd: root });
    return { document: await bundleTree(join(scratch, 'openapi/openapi.yaml'), root), label: `${spec}:openapi/` };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
