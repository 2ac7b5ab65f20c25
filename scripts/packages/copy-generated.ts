// Copy files of generated/ (bundles, the docs site, the types) into a package.
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { generatedDir } from './paths.ts';

/** Copy each named file or directory of generated/ to the same name under `into`. */
export function copyGenerated(names: readonly string[], into: string): void {
  for (const name of names) {
    const from = join(generatedDir, name);
    if (!existsSync(from)) throw new Error(`generated/${name} is missing: run \`npm run build\` first`);
    cpSync(from, join(into, name), { recursive: true });
  }
}
