// Issue 9, releases (D-55): the version is stamped on every artifact, the changelog is the diff (breaking first,
// then additions, then documentation), semver steps are enforced. The end-to-end case runs `npm run release` in a
// scratch copy of the repository.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CARE_API_VERSION } from '../src/client/index.ts';
import { makeChange } from '../src/diff/pointer.ts';
import { releaseSection, withSection } from '../scripts/contract/changelog.ts';
import { latestRelease } from '../scripts/contract/releases.ts';
import { bumpProblem } from '../scripts/contract/semver-bump.ts';
import { loadSpec, repoRoot } from '../src/spec/index.ts';

const version = loadSpec().document.info.version;
const read = (file: string) => readFileSync(join(repoRoot, file), 'utf8');

describe('the released version on every artifact', () => {
  it('is the last release, the bundles, care-api.d.ts, the client, package.json and the docs', () => {
    expect(latestRelease(repoRoot)).toBe(version);
    for (const bundle of ['care-api.yaml', 'care-api.production.yaml', 'care-api.sandbox.yaml']) {
      expect(read(`generated/${bundle}`)).toContain(`\n  version: ${version}\n`);
    }
    expect(read('generated/care-api.d.ts')).toContain(`// Care API description version ${version} (info.version).`);
    expect(CARE_API_VERSION).toBe(version);
    expect(JSON.parse(read('package.json')).version).toBe(version);
    expect(read('generated/docs/description.js')).toContain(`Description version ${version}.`); // the docs' description, beside index.html
    expect(read('CHANGELOG.md')).toContain(`## ${version} (`);
  });
});

describe('changelog and semver', () => {
  const change = (classification: 'breaking' | 'non-breaking' | 'documentation', rule: string, message: string) =>
    makeChange({ rule, classification, direction: 'response', operation: 'GET /contracts', headPointer: `/x/${rule}`, message });

  it('lists breaking changes first with their acknowledged reason, then additions, then documentation', () => {
    const changes = [
      change('documentation', 'response.description.changed', 'reworded'),
      change('non-breaking', 'response.body.property.added', 'field region added'),
      change('breaking', 'response.body.property.removed', 'field name removed'),
    ];
    const section = releaseSection('1.0.0', '2026-12-01', '0.1.0', changes, [{ change: changes[2].id, reason: 'replaced by title' }]);
    const order = ['### Breaking changes', 'field name removed (acknowledged: replaced by title)', '### Additions', 'field region added', '### Documentation', 'reworded'];
    const positions = order.map((text) => section.indexOf(text));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const changelog = withSection(withSection(undefined, '0.1.0', '## 0.1.0 (2026-11-23)\n\nFirst.\n'), '1.0.0', section);
    expect(changelog.indexOf('## 1.0.0')).toBeLessThan(changelog.indexOf('## 0.1.0'));
  });

  it('needs a major step for breaking changes (minor while 0.x), a minor one for additions', () => {
    expect(bumpProblem('1.2.0', '1.3.0', 'major')).toMatch(/new major/);
    expect(bumpProblem('1.2.0', '2.0.0', 'major')).toBeUndefined();
    expect(bumpProblem('0.1.0', '0.2.0', 'major')).toBeUndefined();
    expect(bumpProblem('0.1.0', '0.1.1', 'minor')).toMatch(/at least a new minor/);
    expect(bumpProblem('0.1.0', '0.1.1', 'patch')).toBeUndefined();
    expect(bumpProblem('0.1.0', '0.1.0', 'patch')).toMatch(/not after/);
  });
});

describe('npm run release (in a scratch copy)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'care-release-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  for (const entry of ['openapi', 'scripts', 'src', 'plugins', 'docs', 'releases', 'generated', 'redocly.yaml', '.spectral.yaml', 'package.json', 'CHANGELOG.md', 'tsconfig.json']) {
    cpSync(join(repoRoot, entry), join(scratch, entry), { recursive: true });
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(scratch, 'node_modules'));
  // the scratch's last release is the description as it stands, so the step judged is the test's own change alone
  // (main may hold acknowledged changes since the last release: they would need their own step)
  cpSync(join(repoRoot, 'generated/care-api.yaml'), join(scratch, `releases/${version}/care-api.yaml`));
  const release = (version: string) => new Promise<{ code: number; output: string }>((done) => {
    execFile(process.execPath, ['--import', 'tsx', join(scratch, 'scripts/release.ts'), version, '--date', '2026-12-01'], { cwd: scratch, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: typeof error?.code === 'number' ? error.code : 0, output: stdout + stderr });
    });
  });

  it('refuses too small a step, then releases an addition as a minor version and stamps it everywhere', async () => {
    const contract = join(scratch, 'openapi/components/schemas/Contract.yaml');
    writeFileSync(contract, readFileSync(contract, 'utf8').replace(/\nproperties:\n/, '\nproperties:\n  region:\n    type: string\n    maxLength: 32\n    description: Region of the contract.\n    example: EU\n'));
    const refused = await release(`${version.split('.')[0]}.${version.split('.')[1]}.${Number(version.split('.')[2]) + 1}`);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/additions need at least a new minor version/);
    expect(readFileSync(join(scratch, 'openapi/openapi.yaml'), 'utf8')).toContain(`\n  version: ${version}\n`);

    const next = `${version.split('.')[0]}.${Number(version.split('.')[1]) + 1}.0`;
    const released = await release(next);
    expect(released.output).toContain(`released ${next}`);
    expect(released.code).toBe(0);
    const at = (file: string) => readFileSync(join(scratch, file), 'utf8');
    expect(existsSync(join(scratch, `releases/${next}/care-api.yaml`))).toBe(true);
    expect(at(`releases/${next}/care-api.yaml`)).toContain(`  version: ${next}\n`);
    expect(at('generated/care-version.ts')).toContain(`CARE_API_VERSION = "${next}"`);
    expect(at('generated/care-api.d.ts')).toContain(`description version ${next}`);
    expect(JSON.parse(at('package.json')).version).toBe(next);
    const changelog = at('CHANGELOG.md');
    expect(changelog.indexOf(`## ${next} (2026-12-01)`)).toBeLessThan(changelog.indexOf(`## ${version} (`));
    expect(changelog).toMatch(/### Additions and other non-breaking changes\n\n- \*\*GET \/contracts\*\*: .*region.*`response.body.property.added`/);
    expect(changelog).not.toContain('### Breaking changes');
    expect(at('generated/docs/description.js')).toContain(`Description version ${next}.`);
  }, 180_000);
});
