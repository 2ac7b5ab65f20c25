// The released baselines kept in the repository (releases/<version>/care-api.yaml, readable in a fresh clone) and
// the acknowledgements of breaking changes for the next release (releases/acknowledged.yaml), D-53.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAcknowledgements, type Acknowledgement } from '../../src/diff/gate.ts';
import { readBounded } from './bounded-read.ts';

export const RELEASES_DIR = 'releases';
export const ACKNOWLEDGED_FILE = join(RELEASES_DIR, 'acknowledged.yaml');
export const BASELINE_FILE = 'care-api.yaml';

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

export function isSemver(version: string): boolean {
  return SEMVER.test(version);
}

/** Negative, zero or positive like a sort comparator; a pre-release sorts before its release. */
export function compareSemver(a: string, b: string): number {
  const [, ...x] = SEMVER.exec(a)!;
  const [, ...y] = SEMVER.exec(b)!;
  for (let i = 0; i < 3; i++) if (Number(x[i]) !== Number(y[i])) return Number(x[i]) - Number(y[i]);
  if (x[3] === y[3]) return 0;
  if (x[3] === undefined) return 1;
  if (y[3] === undefined) return -1;
  return x[3].localeCompare(y[3], 'en', { numeric: true });
}

export function releasedVersions(root: string): string[] {
  const dir = join(root, RELEASES_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((name) => isSemver(name) && existsSync(join(dir, name, BASELINE_FILE))).sort(compareSemver);
}

export function latestRelease(root: string): string | undefined {
  return releasedVersions(root).at(-1);
}

export function baselinePath(root: string, version: string): string {
  return join(root, RELEASES_DIR, version, BASELINE_FILE);
}

export function readAcknowledgements(root: string, file = ACKNOWLEDGED_FILE): Acknowledgement[] {
  const path = resolve(root, file);
  if (!existsSync(path)) return [];
  return parseAcknowledgements(readBounded(path, file), file);
}
