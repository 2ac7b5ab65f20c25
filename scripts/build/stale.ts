// Files of an output directory that the last build did not write, removed so the directory holds exactly
// what the build produces.
import { readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function removeStaleFiles(dir: string, written: string[]): string[] {
  const keep = new Set(written.map((file) => file.split('\\').join('/')));
  const removed: string[] = [];
  const visit = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) {
        visit(path);
        if (readdirSync(path).length === 0) rmdirSync(path);
      } else {
        const file = relative(dir, path).split('\\').join('/');
        if (!keep.has(file)) {
          rmSync(path);
          removed.push(file);
        }
      }
    }
  };
  visit(dir);
  return removed.sort();
}
