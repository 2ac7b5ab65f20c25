// Third-party notices of a bundled CLI: the licence text of every package esbuild copied into the output.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.ts';

/** Write `file` with the name, version and licence text of each package under node_modules/ among `inputs`. */
export function writeNotices(inputs: Iterable<string>, file: string): void {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) dirs.add(match[1]);
  }
  const sections = [...dirs].sort().map((dir) => {
    const abs = join(repoRoot, dir);
    const manifest = JSON.parse(readFileSync(join(abs, 'package.json'), 'utf8'));
    const { name, version } = manifest;
    const license: string = manifest.license ?? manifest.licenses?.map((l: { type: string }) => l.type).join(', ') ?? 'no licence field';
    const licenseFile = existsSync(abs) ? readdirSync(abs).find((f) => /^(licen[cs]e|copying)/i.test(f)) : undefined;
    const text = licenseFile ? readFileSync(join(abs, licenseFile), 'utf8').trim() : `(no licence file; package.json says ${license})`;
    return `${name}@${version} (${license})\n\n${text}\n`;
  });
  writeFileSync(file, `This package bundles the following third-party packages.\n\n${sections.join('\n' + '-'.repeat(72) + '\n\n')}`);
}
