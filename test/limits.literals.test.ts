// The service-wide limits are declared once, in the description's x-care-limits (D-100): no module of src/ states one
// of them again, as a number or in prose. Only src/spec/limits.ts, which reads them, may name them. The scan looks
// for what such a second copy looks like: a numeric expression equal to a declared byte limit, a constant or
// property named like a limit holding a declared value, a byte size in prose (`16 KiB`), or a message with the
// number written in (`nested deeper than 32`).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../src/spec/index.ts';
import { byteSize } from '../src/spec/limits.ts';

const root = join(import.meta.dirname, '..');
const READER = 'src/spec/limits.ts';
/** The storage reads no request (the store-not-http wall): its 65,536 is a column dictionary's size, not a body's. */
const NOT_REQUEST_CODE = /^src\/sandbox\/store\//;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Comments removed (a comment may explain a limit by name, never carry its value into code). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

const NUMERIC_EXPRESSION = /(?<![\w.])\d[\d_]*(?:\s*(?:\*\*|\*|\+|<<)\s*\d[\d_]*)*(?![\w.])/g;

/** The value of digits joined by `**`, `*`, `+`, `<<` (what NUMERIC_EXPRESSION matches), by their precedence. */
function evaluate(expression: string): number {
  const text = expression.replace(/[_\s]/g, '');
  const shift = text.split('<<').map((sum) =>
    sum.split('+').reduce((total, product) => total + product.split(/(?<!\*)\*(?!\*)/).reduce((p, power) => p * power.split('**').map(Number).reduceRight((e, b) => b ** e), 1), 0),
  );
  return shift.reduce((value, by) => value * 2 ** by);
}

/** Where a text holds a copy of one of the limits, one line per copy. */
export function limitCopies(file: string, text: string, limits: ReturnType<typeof declaredLimits>): string[] {
  const found: string[] = [];
  const body = code(text);
  for (const match of body.matchAll(NUMERIC_EXPRESSION)) {
    const value = evaluate(match[0]);
    if (limits.bytes.has(value)) found.push(`${file}: ${match[0].trim()} is the declared limit ${limits.bytes.get(value)}`);
  }
  for (const match of body.matchAll(/\b(\w*(?:LIMIT|MAX|DEPTH|PARTS|NAME_?LEN|CODE_?POINTS)\w*|depth|parts|fileSize|maxHeaderSize)\s*[:=]\s*(\d[\d_]*)\b/gi)) {
    const value = Number(match[2].replace(/_/g, ''));
    if (limits.all.has(value)) found.push(`${file}: ${match[0]} is the declared limit ${limits.all.get(value)}`);
  }
  for (const size of limits.prose) {
    if (body.includes(size)) found.push(`${file}: "${size}" in prose is a declared limit`);
  }
  for (const [pattern, name] of limits.messages) {
    if (pattern.test(body)) found.push(`${file}: a message writes ${name} in (${pattern.source})`);
  }
  return found;
}

function declaredLimits() {
  const l = loadSpec().limits;
  const bytes = new Map<number, string>([
    [l.requestHeadBytes, 'requestHeadBytes'],
    ...Object.entries(l.bodyBytes).map(([type, value]): [number, string] => [value, `bodyBytes.${type}`]),
    [l.multipart.fileBytes, 'multipart.fileBytes'],
  ]);
  const all = new Map<number, string>([
    ...bytes,
    [l.jsonDepth, 'jsonDepth'],
    [l.multipart.parts, 'multipart.parts'],
    [l.multipart.fileNameCodePoints, 'multipart.fileNameCodePoints'],
  ]);
  const prose = [...bytes.keys()].map(byteSize).filter((size) => !size.endsWith('bytes'));
  const messages: Array<[RegExp, string]> = [
    [new RegExp(`deeper than ${l.jsonDepth}\\b`), 'jsonDepth'],
    [new RegExp(`more than ${l.multipart.parts} parts|first ${l.multipart.parts}\\b`), 'multipart.parts'],
    [new RegExp(`${l.multipart.fileNameCodePoints} code points`), 'multipart.fileNameCodePoints'],
  ];
  return { bytes, all, prose, messages };
}

describe('service-wide limits have one home: x-care-limits, read through src/spec (D-100)', () => {
  const limits = declaredLimits();

  it('no module of src/ but the reader holds a copy of one', () => {
    const copies = sources(join(root, 'src'))
      .map((path) => relative(root, path).split('\\').join('/'))
      .filter((file) => file !== READER && !NOT_REQUEST_CODE.test(file))
      .flatMap((file) => limitCopies(file, readFileSync(join(root, file), 'utf8'), limits));
    expect(copies).toEqual([]);
  });

  it('the scan finds each kind of copy the old code had', () => {
    const old = [
      'export const JSON_LIMIT = 1024 * 1024;',
      'const FILE_LIMIT = 10 * 1024 * 1024;',
      'const FORM_LIMIT = 64 * 1024;',
      'const JSON_DEPTH_LIMIT = 32;',
      'export const MAX_PARTS = 100;',
      'const NAME_LIMIT = 255;',
      "return [431, 'header: the request line and headers are too large (at most 16 KiB together)'];",
    ];
    for (const line of old) expect(limitCopies('old.ts', line, limits), line).not.toEqual([]);
    // what is not a limit: other numbers, and limits read from the description
    for (const line of ['const DRAIN_CAP = 64 * 1024 * 1024;', 'const limit = limits.bodyBytes[type];', '.slice(0, 200)', 'const PAGE_SIZE = 50;']) {
      expect(limitCopies('new.ts', line, limits), line).toEqual([]);
    }
  });
});
