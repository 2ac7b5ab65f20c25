// The steps of `npm run build`, in order. To add one, write a module exporting a BuildStep (see context.ts:
// read `context.documents`, write with `context.write`, never into the repository's generated/ directly) and
// add it to this list.
import type { BuildStep } from './context.ts';
import { lintStep } from './lint.ts';
import { bundleStep } from './bundle.ts';
import { spectralStep } from './spectral.ts';
import { environmentsStep } from './environments.ts';
import { typesStep } from './typescript-types.ts';
import { filterTypesStep } from './filter-types.ts';
import { docsStep } from './docs.ts';
import { versionStep } from './version.ts';

export const steps: BuildStep[] = [
  lintStep,
  bundleStep,
  spectralStep,
  environmentsStep,
  typesStep,
  filterTypesStep,
  versionStep,
  docsStep,
];
