// The check registry, in run order. docs/traceability.md takes its conformance column from here.
import type { Check } from '../check.ts';
import { authChecks } from './auth.ts';
import { operationsChecks } from './operations.ts';

export const ALL_CHECKS: Check[] = [...operationsChecks, ...authChecks];
