// Step: lint the complete bundle with the OWASP API Security ruleset (.spectral.yaml extends
// @stoplight/spectral-owasp-ruleset, decision D-104). Any error fails the build; warnings are printed, not fatal.
// Runs right after the bundle step, on the file it wrote: the ruleset judges the description tools receive.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { BuildStep } from './context.ts';
import { COMPLETE_BUNDLE } from './bundle.ts';

const require = createRequire(import.meta.url);
const cliPath = resolve(dirname(require.resolve('@stoplight/spectral-cli/package.json')), 'dist/index.js');

export const SPECTRAL_RULESET = '.spectral.yaml';

interface SpectralFinding {
  code: string;
  message: string;
  severity: number; // 0 error, 1 warning, 2 info, 3 hint
  path: string[];
}

/** Every finding of the root ruleset on one file (spectral's JSON output). */
export function spectralLint(file: string, root: string): Promise<SpectralFinding[]> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      process.execPath,
      [cliPath, 'lint', file, '--ruleset', join(root, SPECTRAL_RULESET), '--format', 'json', '--quiet', '--fail-severity', 'error'],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        const text = stdout.trim();
        if (!text.startsWith('[')) return reject(new Error(`spectral printed no report (exit ${error?.code ?? 0}):\n${stderr}${stdout}`));
        resolvePromise(JSON.parse(text) as SpectralFinding[]);
      },
    );
  });
}

export const spectralStep: BuildStep = {
  name: `lint ${COMPLETE_BUNDLE} (Spectral, OWASP ruleset)`,
  async run(context) {
    const findings = await spectralLint(join(context.outDir, COMPLETE_BUNDLE), context.root);
    const errors = findings.filter((finding) => finding.severity === 0);
    if (errors.length > 0) {
      const lines = errors.map((e) => `  ${e.code} ${e.path.join('.')}: ${e.message}`);
      throw new Error(`spectral (${SPECTRAL_RULESET}) found ${errors.length} error(s); zero are allowed:\n${lines.join('\n')}`);
    }
  },
};
