// The check registry, in run order. docs/traceability.md takes its conformance column from here.
import { AREAS, type Check } from '../check.ts';
import { preflightCheck } from '../preflight.ts';
import { authChecks } from './auth.ts';
import { coercionChecks } from './coercion.ts';
import { deprecationChecks } from './deprecation.ts';
import { discriminationChecks } from './discrimination.ts';
import { filterChecks } from './filters.ts';
import { hardeningDomainChecks } from './hardening-domain.ts';
import { hardeningHttpChecks } from './hardening-http.ts';
import { hostileChecks } from './hostile.ts';
import { limitsChecks } from './limits.ts';
import { naiveDatetimeChecks } from './naive-datetime.ts';
import { observableChecks } from './observable.ts';
import { operationsChecks } from './operations.ts';
import { paginationChecks } from './pagination.ts';
import { promiseChecks } from './promises.ts';
import { rateLimitFieldChecks } from './rate-limit-fields.ts';
import { resourceChecks } from './resources.ts';
import { retryChecks } from './retries.ts';
import { scopingChecks } from './scoping.ts';
import { sortingChecks } from './sorting.ts';
import { validationChecks } from './validation.ts';
import { webhookChecks } from './webhooks.ts';

export const ALL_CHECKS: Check[] = [
  preflightCheck, // run first by the runner, whatever the areas
  ...operationsChecks,
  ...deprecationChecks,
  ...authChecks,
  ...paginationChecks,
  ...filterChecks,
  ...discriminationChecks,
  ...sortingChecks,
  ...coercionChecks,
  ...validationChecks,
  ...scopingChecks,
  ...resourceChecks,
  ...webhookChecks,
  ...naiveDatetimeChecks,
  ...observableChecks,
  ...hardeningHttpChecks,
  ...hardeningDomainChecks,
  ...hostileChecks,
  ...limitsChecks,
  ...promiseChecks,
  ...rateLimitFieldChecks,
  ...retryChecks,
  // Grouped by area in the order of AREAS (a stable sort keeps each area's own order).
].sort((a, b) => AREAS.indexOf(a.area) - AREAS.indexOf(b.area));
