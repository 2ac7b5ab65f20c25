// `npm run build` into a fresh directory reproduces the committed generated/ byte for byte: the build is
// deterministic and nobody edited or forgot to regenerate generated/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../scripts/build/context.ts';

const HINT = 'generated/ is out of date: run `npm run build` and commit generated/';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const visit = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) visit(path);
      else out.push(relative(dir, path));
    }
  };
  visit(dir);
  return out;
}

let outDir: string;

beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'care-generated-'));
  execFileSync(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'scripts/build.ts'), '--out', outDir], {
    cwd: repoRoot,
    stdio: 'pipe',
  });
});

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('generated/', () => {
  it('holds exactly the files the build writes', () => {
    expect(filesUnder(resolve(repoRoot, 'generated')), HINT).toEqual(filesUnder(outDir));
  });

  it('matches a fresh build byte for byte', () => {
    const stale = filesUnder(outDir).filter((file) => {
      const committed = resolve(repoRoot, 'generated', file);
      try {
        return !readFileSync(committed).equals(readFileSync(join(outDir, file)));
      } catch {
        return true;
      }
    });
    expect(stale, `${HINT} (differs: ${stale.join(', ')})`).toEqual([]);
  });
});
