// The description as the sandbox reads it: the bundle, parsed once and cached as JSON by content hash.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { bundlePath, repoRoot, specFromDocument } from '../spec/load.ts';
import type { CareSpec } from '../spec/types.ts';

/**
 * The bundle's spec (a new object, so its ajv, made on the first body validated, keeps the sandbox's e-mail format
 * of D-08 to itself: src/sandbox/validate.ts). The parsed document is
 * cached as JSON under .care/ by content hash: parsing the YAML is the largest part of a cold start.
 */
export function sandboxSpec(bundle = bundlePath()): CareSpec {
  const text = readFileSync(bundle, 'utf8');
  const cacheFile = join(repoRoot, '.care', 'bundle-cache', `${createHash('sha256').update(text).digest('hex').slice(0, 32)}.json`);
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(cacheFile, 'utf8'));
  } catch {
    // parsed from the text that was hashed: a rebuild landing between two reads cannot be cached under this hash
    document = parseYaml(text, { maxAliasCount: -1 });
    try {
      mkdirSync(dirname(cacheFile), { recursive: true });
      writeFileSync(cacheFile, JSON.stringify(document));
    } catch {
      // a read-only checkout: no cache, same result
    }
  }
  return specFromDocument(document);
}
