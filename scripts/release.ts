// `npm run release -- <version> [--date YYYY-MM-DD]`: cuts a release of the description (D-55).
// 1. stamps <version> as info.version in openapi/openapi.yaml and as the version of package.json and of every
//    packages/*/package.json;
// 2. compares the description with the last release: the gate must pass (D-53) and the version step must fit
//    the changes (semver);
// 3. writes the CHANGELOG.md section, rebuilds generated/ (bundles, care-api.d.ts header, care-version.ts, the
//    docs' Changelog page), keeps the bundle as releases/<version>/care-api.yaml and empties the acknowledgements.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './build/context.ts';
import { formatTiming, runBuild } from './build/run.ts';
import { removeStaleFiles } from './build/stale.ts';
import { diffDescriptions } from '../src/diff/index.ts';
import { gateLines, formatText } from '../src/diff/format.ts';
import { gate } from '../src/diff/gate.ts';
import { releaseSection, withSection, newsworthy } from './contract/changelog.ts';
import { loadDescription, parseDescription } from './contract/load.ts';
import { ACKNOWLEDGED_FILE, baselinePath, isSemver, latestRelease, readAcknowledgements } from './contract/releases.ts';
import { bumpProblem, requiredBump } from './contract/semver-bump.ts';

const EMPTY_ACKNOWLEDGEMENTS = `# Breaking changes acknowledged for the next release (docs/decisions.md D-53): each entry names a change id as
# \`npm run diff\` prints it and the reason. A breaking change must also follow D-33 (the operation kept deprecated
# with a sunset, or a new path version). \`npm run release\` records them in CHANGELOG.md and empties this list.
acknowledged: []
`;

function stampJsonVersion(file: string, version: string): void {
  const text = readFileSync(file, 'utf8');
  if (!/"version":\s*"[^"]*"/.test(text)) throw new Error(`${file} has no "version"`);
  writeFileSync(file, text.replace(/"version":\s*"[^"]*"/, `"version": "${version}"`));
}

function stampDescription(file: string, version: string): void {
  const text = readFileSync(file, 'utf8');
  const info = /^info:\n(?:[ \t]+.*\n|\n)*?  version: .*$/m;
  if (!info.test(text)) throw new Error(`${file}: no info.version line`);
  writeFileSync(file, text.replace(info, (block) => block.replace(/  version: .*$/, `  version: ${version}`)));
}

function packageFiles(root: string): string[] {
  const files = [join(root, 'package.json')];
  const packagesDir = join(root, 'packages');
  if (existsSync(packagesDir)) {
    for (const name of readdirSync(packagesDir).sort()) {
      if (existsSync(join(packagesDir, name, 'package.json'))) files.push(join(packagesDir, name, 'package.json'));
    }
  }
  return files;
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { date: { type: 'string' } } });

const descriptionFile = resolve(repoRoot, 'openapi/openapi.yaml');
const originalDescription = readFileSync(descriptionFile, 'utf8');
let stamped = false;

try {
  const version = positionals[0];
  if (!version || !isSemver(version)) throw new Error('usage: npm run release -- <version> (semver, e.g. 1.2.0)');
  const date = values.date ?? new Date().toISOString().slice(0, 10);
  const previous = latestRelease(repoRoot);

  stampDescription(descriptionFile, version);
  stamped = true;
  const head = await loadDescription('openapi', repoRoot);
  const acknowledged = readAcknowledgements(repoRoot);
  let changes = [] as ReturnType<typeof diffDescriptions>;
  if (previous) {
    const base = parseDescription(readFileSync(baselinePath(repoRoot, previous), 'utf8'));
    changes = newsworthy(diffDescriptions(base, head.document));
    const result = gate(changes, acknowledged, base, head.document);
    if (!result.ok) {
      process.stderr.write(formatText(changes, { base: previous, head: version }, result));
      throw new Error('the gate refuses this release');
    }
    for (const line of gateLines(result)) console.log(line);
    const problem = bumpProblem(previous, version, requiredBump(changes));
    if (problem) throw new Error(problem);
  }

  stamped = false; // from here on the release is written whole
  for (const file of packageFiles(repoRoot)) stampJsonVersion(file, version);
  const changelogPath = resolve(repoRoot, 'CHANGELOG.md');
  const section = releaseSection(version, date, previous, changes, acknowledged);
  writeFileSync(changelogPath, withSection(existsSync(changelogPath) ? readFileSync(changelogPath, 'utf8') : undefined, version, section));

  const generatedDir = resolve(repoRoot, 'generated');
  const build = await runBuild(generatedDir, { onStep: (timing) => console.log(formatTiming(timing)) });
  removeStaleFiles(generatedDir, build.context.written);

  mkdirSync(resolve(repoRoot, 'releases', version), { recursive: true });
  copyFileSync(resolve(generatedDir, 'care-api.yaml'), baselinePath(repoRoot, version));
  writeFileSync(resolve(repoRoot, ACKNOWLEDGED_FILE), EMPTY_ACKNOWLEDGEMENTS);
  console.log(`released ${version}${previous ? ` (after ${previous}: ${changes.length} changes)` : ' (first release)'}: releases/${version}/care-api.yaml, CHANGELOG.md, generated/`);
} catch (error) {
  // A refused release leaves the description as it was.
  if (stamped) writeFileSync(descriptionFile, originalDescription);
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
