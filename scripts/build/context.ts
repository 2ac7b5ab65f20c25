// What the build steps share: where to read the source, where to write, and what earlier steps produced.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Environment = 'production' | 'sandbox';

/** The repository root, from this file's place (scripts/build/), so the build works from any cwd. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface BuildContext {
  /** Repository root (holds redocly.yaml, openapi/, docs/). */
  root: string;
  /** Output directory: `generated/` of the repository, or the `--out` directory. */
  outDir: string;
  /** Documents produced by the bundle steps, as parsed objects. Steps after them may read but never change them. */
  documents: {
    complete?: any;
    production?: any;
    sandbox?: any;
  };
  /** Writes `text` to `outDir/relativePath` (LF, UTF-8), creating folders; records the file. */
  write(relativePath: string, text: string | Uint8Array): string;
  /** Files written so far, relative to `outDir`, in write order. */
  written: string[];
}

export function createContext(outDir: string, root: string = repoRoot): BuildContext {
  const context: BuildContext = {
    root,
    outDir: resolve(outDir),
    documents: {},
    written: [],
    write(relativePath, text) {
      const file = resolve(context.outDir, relativePath);
      if (relative(context.outDir, file).startsWith('..')) throw new Error(`refusing to write outside ${context.outDir}: ${relativePath}`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      context.written.push(relative(context.outDir, file));
      return file;
    },
  };
  return context;
}

/** One step of `npm run build`: a name to print and a job. */
export interface BuildStep {
  name: string;
  run(context: BuildContext): void | Promise<void>;
}
