// Step: bundle the modular source into one document, generated/care-api.yaml (both servers, every path).
import { parse } from 'yaml';
import type { BuildStep } from './context.ts';
import { completeBundle } from './complete.ts';
import { runRedocly } from './redocly.ts';
import { toYaml } from './yaml-out.ts';

export const COMPLETE_BUNDLE = 'care-api.yaml';

export const bundleStep: BuildStep = {
  name: `bundle ${COMPLETE_BUNDLE}`,
  async run(context) {
    const result = await runRedocly(['bundle', 'openapi/openapi.yaml', '--ext=yaml', '--lint-config=error', '--component-renaming-conflicts-severity=error'], context.root);
    if (result.code !== 0) throw new Error(`redocly bundle failed (exit ${result.code}):\n${result.stderr}`);
    const document = parse(result.stdout, { maxAliasCount: -1 });
    if (!document?.openapi) throw new Error(`redocly bundle printed no document:\n${result.stderr}`);
    completeBundle(document);
    context.documents.complete = document;
    context.write(COMPLETE_BUNDLE, toYaml(document));
  },
};
