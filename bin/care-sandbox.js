#!/usr/bin/env node
// Start the sandbox CLI (src/sandbox/cli.ts). Fast path for cold start: a JavaScript build of it under .care/, used only
// while every source file it was built from has the size and mtime it had at build time; when there is none or it is
// stale, it is built again with esbuild (a pinned devDependency, the same version tsx uses). If building is not possible (read-only checkout, no
// esbuild) or CARE_SANDBOX_TSX=1 is set, the TypeScript runs through tsx as it is.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const cacheDir = join(root, '.care');
const manifestFile = join(cacheDir, 'sandbox-js.json');
const stamp = (file) => {
  const s = statSync(join(root, file));
  return `${s.size}:${s.mtimeMs}`;
};

/** The entry file of the current build, or undefined when there is none or any of its sources changed. */
function currentBuild() {
  try {
    const { entry, inputs } = JSON.parse(readFileSync(manifestFile, 'utf8'));
    for (const [file, expected] of Object.entries(inputs)) if (stamp(file) !== expected) return undefined;
    statSync(entry);
    return entry;
  } catch {
    return undefined;
  }
}

async function build() {
  const { build: esbuild } = await import('esbuild');
  const started = Date.now();
  const tmp = join(cacheDir, `sandbox-js-tmp-${process.pid}-${started}`);
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: ['src/sandbox/cli.ts'],
    outdir: tmp,
    bundle: true,
    splitting: true, // dynamic imports stay lazy (loaded when first needed, as under tsx)
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = {};
  for (const file of Object.keys(result.metafile.inputs)) {
    // a source saved while esbuild was reading it: this build may hold the old text, so it is not recorded
    if (statSync(join(root, file)).mtimeMs >= started - 1) {
      rmSync(tmp, { recursive: true, force: true });
      return undefined;
    }
    inputs[file] = stamp(file);
  }
  // Two levels below the root, as in src/: src/spec/load.ts finds the repository root from its own URL ('../../').
  const dir = join(cacheDir, `sandbox-js-${createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 16)}`);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process built the same sources first: use its build
  }
  const manifestTmp = `${manifestFile}.${process.pid}`;
  writeFileSync(manifestTmp, JSON.stringify({ entry: join(dir, 'cli.js'), inputs }));
  renameSync(manifestTmp, manifestFile);
  // builds of older sources, left by earlier runs (an hour's grace for processes that may still be loading one)
  for (const name of readdirSync(cacheDir)) {
    const old = join(cacheDir, name);
    if (name.startsWith('sandbox-js-') && old !== dir && !name.endsWith('.json') && statSync(old).mtimeMs < started - 3_600_000) rmSync(old, { recursive: true, force: true });
  }
  return join(dir, 'cli.js');
}

let entry;
if (process.env.CARE_SANDBOX_TSX !== '1') {
  try {
    mkdirSync(cacheDir, { recursive: true });
    entry = currentBuild() ?? (await build());
  } catch {
    entry = undefined;
  }
}
if (entry) {
  await import(pathToFileURL(entry).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/sandbox/cli.ts');
}
