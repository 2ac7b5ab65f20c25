// A package's `dependencies` are derived from what its build output imports: every bare import left in the output
// must be declared, nothing else may be, and each at the exact version the repository installs and tests
// (package-lock.json). A build whose imports and declaration disagree fails and says what to change.
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from './paths.ts';

/** 'ajv/dist/2020.js' -> 'ajv'; '@scope/name/x' -> '@scope/name'. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The package names among import specifiers (relative paths and Node built-ins left out). */
export function packagesAmong(specifiers: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const s of specifiers) if (!s.startsWith('.') && !s.startsWith('/') && !isBuiltin(s)) names.add(packageNameOf(s));
  return names;
}

/** The version of a package installed at the repository root, from package-lock.json. */
export function lockedVersion(name: string): string | undefined {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8'));
  return lock.packages[`node_modules/${name}`]?.version;
}

/** Throws when `packageDir/package.json` `dependencies` differ from `imported` (names, or versions vs the lock). */
export function checkDependencies(packageDir: string, imported: Set<string>): void {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const declared: Record<string, string> = manifest.dependencies ?? {};
  const problems: string[] = [];
  for (const name of [...imported].sort()) {
    const version = lockedVersion(name);
    if (!(name in declared)) problems.push(`add "${name}": "${version ?? '?'}" to dependencies (the build output imports it)`);
    else if (declared[name] !== version) problems.push(`"${name}" is "${declared[name]}"; the repository installs and tests ${version ?? 'no version of it'}`);
  }
  for (const name of Object.keys(declared)) if (!imported.has(name)) problems.push(`remove "${name}" from dependencies (nothing in the build output imports it)`);
  if (problems.length) throw new Error(`${manifest.name}: package.json dependencies disagree with the build:\n  ${problems.join('\n  ')}`);
}
