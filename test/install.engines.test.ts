// No false alarms on install (issue 36): every package `npm ci` installs for this repository declares engines that
// include each supported Node line's first release (else npm prints EBADENGINE), and every install script in the
// lock is decided in package.json's allowScripts (else npm 11 warns about it).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';

// npm's own range matching (semver, hoisted into node_modules by the toolchain; untyped here on purpose)
const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean; minVersion(range: string): { version: string } };
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8'));

/** The first release of each line of our engines range: ^20.19.0 || ^22.12.0 || … gives 20.19.0, 22.12.0, … */
const supported: string[] = String(manifest.engines.node).split('||').map((range) => semver.minVersion(range.trim()).version);

describe('npm ci prints no EBADENGINE and no install-script warning', () => {
  it('our engines name the lines we test (20 and 26)', () => {
    expect(supported).toEqual(expect.arrayContaining(['20.19.0', '26.0.0']));
  });

  it.each(supported)('every installed package takes Node %s', (node) => {
    const refusing = Object.entries<any>(lock.packages)
      // optional ones for other platforms (wasm, other CPUs) are skipped by npm, never installed nor checked
      .filter(([path, entry]) => path && !entry.optional && entry.engines?.node && !semver.satisfies(node, entry.engines.node))
      .map(([path, entry]) => `${path}@${entry.version} wants node ${entry.engines.node}`);
    expect(refusing).toEqual([]);
  });

  it('every install script in the lock is allowed or denied in allowScripts', () => {
    const decided = Object.keys(manifest.allowScripts ?? {}).map((key) => key.replace(/(?<=.)@.*$/, ''));
    const undecided = Object.entries<any>(lock.packages)
      .filter(([path, entry]) => path.includes('node_modules/') && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .filter((name) => !decided.includes(name));
    expect(undecided).toEqual([]);
  });
});
