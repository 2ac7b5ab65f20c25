// Bundle a command-line entry of src/ with esbuild into a package's dist/, in the repository's layout
// (dist/src/<part>/cli.js): src/spec/load.ts finds the bundles two directories above its own module, so the copies
// in dist/generated/ are the ones read, as generated/ is in the repository. Pure-JavaScript dependencies are bundled;
// only `external` ones (native code) and those loaded by createRequire stay imports, and become `dependencies`.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { packagesAmong } from './dependencies.ts';
import { writeNotices } from './notices.ts';
import { repoRoot } from './paths.ts';

export interface CliBundle {
  /** The packages the output imports at run time (its `dependencies`). */
  imports: Set<string>;
}

/** `createRequire(import.meta.url)('name')`: a load esbuild cannot see; found in our own sources. */
function createRequireLoads(sourceFiles: string[]): string[] {
  const found: string[] = [];
  for (const file of sourceFiles) {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    for (const m of text.matchAll(/createRequire\([^)]*\)\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]);
  }
  return found;
}

export async function bundleCli(options: { packageDir: string; entry: string; external: string[] }): Promise<CliBundle> {
  const part = options.entry.split('/')[1]; // src/<part>/cli.ts
  const dist = join(options.packageDir, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: [options.entry],
    outfile: join(dist, 'src', part, 'cli.js'),
    bundle: true,
    // One file, no splitting: a split-off chunk of a CommonJS package exports only `default`, so
    // `const { Webhook } = await import('standardwebhooks')` would find nothing (the sandbox's deliveries failed so).
    // Unsplit, esbuild wraps it with its named exports, as Node's own import() does; CommonJS stays lazy either way.
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: options.external,
    metafile: true,
    legalComments: 'eof',
    logLevel: 'warning',
    // bundled CommonJS (ajv, busboy, …) calls require() for Node built-ins: ESM has no require, so give it one
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __careRequire } from 'node:module';\nconst require = __careRequire(import.meta.url);" },
  });
  const inputs = Object.keys(result.metafile.inputs);
  const externalImports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
  const ownSources = inputs.filter((f) => !f.includes('node_modules/'));
  writeNotices(inputs, join(dist, 'THIRD-PARTY-NOTICES.txt'));
  return { imports: packagesAmong([...externalImports, ...createRequireLoads(ownSources)]) };
}
