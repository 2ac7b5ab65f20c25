// loadSpec: read a bundled description once per file and present it as a CareSpec.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readOperations } from './operations.ts';
import { readDeliveries, type DeliverySchedule } from './deliveries.ts';
import { readLimits, type ServiceLimits } from './limits.ts';
import { readOperators } from './operators.ts';
import { resolvePointer } from './refs.ts';
import type { CareSpec, Environment } from './types.ts';

/** The repository root, from this file's place (src/spec/), so the default works from any cwd. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The bundle of one environment, or the complete one. */
export function bundlePath(environment?: Environment): string {
  const name = environment ? `care-api.${environment}.yaml` : 'care-api.yaml';
  return resolvePath(repoRoot, 'generated', name);
}

const cache = new Map<string, CareSpec>();

/** The YAML parser, loaded when a bundle is first parsed: readers of an already parsed document (the sandbox's
 * cached JSON) start without it. */
let yaml: typeof import('yaml') | undefined;
function parseYaml(text: string, options: import('yaml').ParseOptions & import('yaml').DocumentOptions & import('yaml').SchemaOptions & import('yaml').ToJSOptions): unknown {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text, options);
}

/** Build a CareSpec from an already parsed document (no cache). */
export function specFromDocument(document: any): CareSpec {
  const operators = readOperators(document);
  const operations = readOperations(document);
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  let limits: ServiceLimits | undefined;
  let deliveries: DeliverySchedule | undefined;
  return {
    document,
    operators,
    operations,
    operation(operationId: string) {
      const found = byId.get(operationId);
      if (!found) throw new Error(`No operation ${operationId} in the description`);
      return found;
    },
    resolve(ref: string) {
      return resolvePointer(document, ref);
    },
    // read when first asked: a document without x-care-limits (a test's fragment) serves everything else
    get limits() {
      limits ??= readLimits(document);
      return limits;
    },
    get deliveries() {
      deliveries ??= readDeliveries(document);
      return deliveries;
    },
  };
}

/** Load a bundle (default `generated/care-api.yaml` of this repository); cached per absolute path. */
export function loadSpec(file: string = bundlePath()): CareSpec {
  const path = resolvePath(file);
  let spec = cache.get(path);
  if (!spec) {
    spec = specFromDocument(parseYaml(readFileSync(path, 'utf8'), { maxAliasCount: -1 }));
    cache.set(path, spec);
  }
  return spec;
}
