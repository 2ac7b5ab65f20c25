// The packages' dependencies are derived from what their builds import (decision D-57): the check of
// scripts/packages/dependencies.ts, on a package.json written for each case.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDependencies, lockedVersion, packagesAmong } from '../scripts/packages/dependencies.ts';

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function packageWith(dependencies: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'care-deps-'));
  made.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@care-api/example', dependencies }));
  return dir;
}

describe('the dependency check of a package build', () => {
  const fetchVersion = lockedVersion('openapi-fetch')!;

  it('names packages, leaving out relative paths and Node built-ins', () => {
    expect([...packagesAmong(['./a.js', '../b.ts', 'node:fs', 'fs', 'ajv/dist/2020.js', '@scope/name/sub', 'yaml'])].sort()).toEqual(['@scope/name', 'ajv', 'yaml']);
  });

  it('accepts dependencies equal to the imports at the locked versions', () => {
    expect(() => checkDependencies(packageWith({ 'openapi-fetch': fetchVersion }), new Set(['openapi-fetch']))).not.toThrow();
  });

  it('asks to add an imported package, at its locked version', () => {
    expect(() => checkDependencies(packageWith({}), new Set(['openapi-fetch']))).toThrow(`add "openapi-fetch": "${fetchVersion}"`);
  });

  it('asks to remove a declared package nothing imports', () => {
    expect(() => checkDependencies(packageWith({ 'openapi-fetch': fetchVersion, busboy: '1.6.0' }), new Set(['openapi-fetch']))).toThrow('remove "busboy"');
  });

  it('refuses a version other than the one the repository installs and tests', () => {
    expect(() => checkDependencies(packageWith({ 'openapi-fetch': '0.0.1' }), new Set(['openapi-fetch']))).toThrow(`the repository installs and tests ${fetchVersion}`);
  });
});
