// The smallest version step a set of changes allows (D-55): a breaking change needs a new major version (a new
// minor while the major is 0, as semver allows for 0.y.z), an addition a new minor, anything else a patch.
import type { Change } from '../../src/diff/types.ts';
import { compareSemver } from './releases.ts';

export type Bump = 'major' | 'minor' | 'patch';

export function requiredBump(changes: Change[]): Bump {
  if (changes.some((c) => c.classification === 'breaking')) return 'major';
  if (changes.some((c) => c.classification === 'non-breaking')) return 'minor';
  return 'patch';
}

function parts(version: string): number[] {
  return version.split(/[.-]/).slice(0, 3).map(Number);
}

/** Why `next` is too small a step from `previous` for `bump`, or undefined when it is enough. */
export function bumpProblem(previous: string, next: string, bump: Bump): string | undefined {
  if (compareSemver(next, previous) <= 0) return `${next} is not after the last release ${previous}`;
  const [major0, minor0] = parts(previous);
  const [major1, minor1] = parts(next);
  const majorStep = major1 > major0;
  const minorStep = majorStep || minor1 > minor0;
  if (bump === 'major' && !(majorStep || (major0 === 0 && minorStep))) return `breaking changes need a new major version (a new minor while the major is 0): ${next} after ${previous}`;
  if (bump === 'minor' && !minorStep) return `additions need at least a new minor version: ${next} after ${previous}`;
  return undefined;
}
