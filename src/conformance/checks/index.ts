// The check registry, in run order. docs/traceability.md takes its conformance column from here.
import type { Check } from '../check.ts';
import { authChecks } from './auth.ts';
import { coercionChecks } from './coercion.ts';
import { deprecationChecks } from './deprecation.ts';
import { filterChecks } from './filters.ts';
import { hardeningHttpChecks } from './hardening-http.ts';
import { hardeningDomainChecks } from './hardening-domain.ts';
import { operationsChecks } from './operations.ts';
import { paginationChecks } from './pagination.ts';
import { resourceChecks } from './resources.ts';
import { scopingChecks } from './scoping.ts';
import { sortingChecks } from './sorting.ts';
import { validationChecks } from './validation.ts';
import { webhookChecks } from './webhooks.ts';

export const ALL_CHECKS: Check[] = [
  ...operationsChecks,
  ...deprecationChecks,
  ...authChecks,
  ...paginationChecks,
  ...filterChecks,
  ...sortingChecks,
  ...coercionChecks,
  ...validationChecks,
  ...scopingChecks,
  ...resourceChecks,
  ...webhookChecks,
  ...hardeningHttpChecks,
  ...hardeningDomainChecks,
];
