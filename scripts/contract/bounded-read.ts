// What `npm run diff` agrees to read (D-117): files of bounded size, YAML whose aliases are bounded, and, for a tree
// to bundle, only the files its `$ref`s reach inside the roots it was given: no URL, nothing outside. Each refusal is
// a DiffRefusal with a one-line reason (the command prints it and exits 2).
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { parse } from 'yaml';

/** Largest file the differ reads: a bundle of this description is under 200 KB. */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Most files, and most bytes in all, one tree to bundle may reach through its `$ref`s. */
export const MAX_TREE_FILES = 2_000;
export const MAX_TREE_BYTES = 32 * 1024 * 1024;
/**
 * Bound of YAML alias expansion, as the yaml parser counts it (aliases × what each expands to). The description's
 * files and bundles use no alias at all; a "billion laughs" file of 1.5 KB needs millions.
 */
export const MAX_ALIAS_COUNT = 100;

/** A refusal of the differ: it cannot judge, and says why in one line. */
export class DiffRefusal extends Error {
  constructor(message: string) {
    super(oneLine(message));
  }
}

/** Several lines (a YAML error's code frame, a tool's output) as one. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 0)} MiB`;
}

/** Refuses a size over MAX_FILE_BYTES before the file is read. */
export function checkSize(bytes: number, label: string): void {
  if (bytes > MAX_FILE_BYTES) throw new DiffRefusal(`${label}: ${mib(bytes)}, more than the ${mib(MAX_FILE_BYTES)} npm run diff reads`);
}

/** YAML (or JSON) text parsed with aliases bounded; a parse error is a refusal naming `label`. */
export function parseBounded(text: string, label: string): any {
  checkSize(Buffer.byteLength(text), label);
  try {
    return parse(text, { maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/alias/i.test(message) && /excessive|resource exhaustion/i.test(message)) {
      throw new DiffRefusal(`${label}: its YAML aliases expand too much (more than ${MAX_ALIAS_COUNT}); refused as a resource exhaustion attack`);
    }
    throw new DiffRefusal(`${label}: not readable as YAML: ${message.split('\n')[0]}`);
  }
}

/** A file read whole, after its size is checked, then parsed bounded. */
export function readBounded(path: string, label: string): any {
  checkSize(statSync(path).size, label);
  return parseBounded(readFileSync(path, 'utf8'), label);
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function refsOf(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsOf(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else refsOf(value, found);
    }
  }
  return found;
}

/** A `$ref` that names a URL (`https:`, `file:`, `//host`...): the differ never goes on the network. */
const URL_REF = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/**
 * Walks the tree from `entry` through every `$ref` to another file, before anything bundles it: each file within
 * `roots` (symbolic links resolved; `label` names a root in messages), of bounded size, parsed with aliases bounded; no `$ref` to a URL. `shown` turns
 * a path into what messages print.
 */
export function checkTree(entry: string, roots: Array<{ path: string; label: string }>, shown: (path: string) => string): void {
  const realRoots = roots.map((root) => realpathSync(root.path));
  const within = (path: string) => realRoots.some((root) => inside(path, root));
  const where = [...new Set(roots.map((root) => root.label))].join(' or ');
  const start = realpathSync(entry);
  if (!within(start)) throw new DiffRefusal(`${shown(entry)} leads outside ${where}`);
  const seen = new Set<string>([start]);
  const queue = [start];
  let bytes = 0;
  while (queue.length > 0) {
    const file = queue.shift()!;
    const size = statSync(file).size;
    bytes += size;
    if (bytes > MAX_TREE_BYTES) throw new DiffRefusal(`${shown(entry)}: its files hold more than ${mib(MAX_TREE_BYTES)}, more than npm run diff reads`);
    const document = readBounded(file, shown(file));
    for (const ref of refsOf(document)) {
      const target = ref.split('#')[0];
      if (target === '') continue;
      if (URL_REF.test(target)) {
        throw new DiffRefusal(`${shown(file)}: $ref ${ref} is a URL; npm run diff reads no URL (bundle the description first, or copy that file in)`);
      }
      let decoded: string;
      try {
        decoded = decodeURIComponent(target);
      } catch {
        throw new DiffRefusal(`${shown(file)}: $ref ${ref} is not a valid file reference`);
      }
      const path = resolve(dirname(file), decoded);
      const outside = () => new DiffRefusal(`${shown(file)}: $ref ${ref} leads outside ${where}; npm run diff reads nothing else unless --base or --head names it`);
      // Outside is refused before asking whether the file exists: the answer would tell what is there.
      if (!within(path)) throw outside();
      if (!existsSync(path)) throw new DiffRefusal(`${shown(file)}: $ref ${ref}: no such file`);
      const real = realpathSync(path);
      if (!within(real)) throw outside();
      if (!statSync(real).isFile()) throw new DiffRefusal(`${shown(file)}: $ref ${ref} is not a file`);
      if (seen.has(real)) continue;
      seen.add(real);
      if (seen.size > MAX_TREE_FILES) throw new DiffRefusal(`${shown(entry)}: its $refs reach more than ${MAX_TREE_FILES} files, more than npm run diff reads`);
      queue.push(real);
    }
  }
}

/** A path as messages show it: relative to `root` when inside it, else absolute. */
export function shownFrom(root: string): (path: string) => string {
  return (path) => {
    const rel = relative(root, path);
    return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
  };
}

/** Redocly's reason from its error output: the first problem and where it is, not its banner. */
export function redoclyReason(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim());
  const at = lines.findIndex((line) => /^\[\d+\]\s/.test(line));
  if (at >= 0) {
    const reason = lines.slice(at + 1).find((line) => line !== '');
    return `${reason ?? 'an error'} (${lines[at].replace(/^\[\d+\]\s*/, '')})`;
  }
  const error = lines.find((line) => /error|can't|cannot|failed/i.test(line) && !/deprecation/i.test(line));
  return error ?? lines.filter(Boolean).at(-1) ?? 'no reason given';
}
