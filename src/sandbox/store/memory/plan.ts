// The plan of one list request through the engine (README.md, "A list request through the engine"): where the scope
// comes from, how the clauses are answered, where the count comes from and how the page is made. The engine decides
// the clauses' part before any pass over the slots, and the page's part once the count is known (the count decides
// between walking and sorting); a walk that spends its budget gives way to a walk through the mask, and the plan
// says so. `--explain-lists` prints it per request; test/sandbox.list-plans.test.ts pins it for representative
// queries, so a change that moves a class of queries to another path fails a test that names the class.
import type { PageWay } from './page.ts';

/** How the clauses are answered. */
export type ClauseWay =
  /** No filter: the scope's mask is the matches. */
  | 'none'
  /** One clause on a few-valued column, or `null`: its total a sum of the scope's counts per value. */
  | 'scope counts'
  /** One `sameas` clause: its total from the pair's counts per scope. */
  | 'same counts'
  /** One clause selecting stretches of its field's permutation: the shorter side visited, marking and counting. */
  | 'stretch visit'
  /** One clause of one stretch too long to visit: its total from the scope's counts per block of the permutation. */
  | 'stretch block counts'
  /** The scope's mask, then one pass over the slots per clause. */
  | 'passes';

/** How the page's walk tells a match. */
export type MatchTest =
  /** The mask of the matches (made by the visit or the passes). */
  | 'mask'
  /** Each slot's values read (the clause's answer per code, or the stretch it must lie in): no mask is made. */
  | 'values'
  /** As `values`, but a walk that tests more slots than its budget gives way to the passes and the mask. */
  | 'values within a budget';

/** Blocks of the walked permutation skipped or counted whole. */
export type Zones =
  | 'none'
  /** Per block, the scope's slots per code of the clause's column (or per null, or per same/not same). */
  | 'code blocks'
  /** Per block, the least and greatest value of the clause's column, and the scope's slots there. */
  | 'zone bounds'
  /** Per block, the least and greatest value of the clause's column: blocks without a match skipped. */
  | 'zone skips'
  /** Per block, the scope's slots (a list without filters whose scope lies far along the sort). */
  | 'scope blocks';

export interface ListPlan {
  /** The kept mask of the account's scope: its column, how many values, how many cases. */
  scope: { by: string; values: number; cases: number };
  clauses: ClauseWay;
  /** The field whose permutation a stretch way reads. */
  stretchOf?: string;
  /** Where the totalCount comes from: the clauses' way (its counts, its visit), the scope's count, or a count of the mask. */
  count: Exclude<ClauseWay, 'none' | 'passes'> | 'scope' | 'mask';
  totalCount: number;
  test: MatchTest;
  zones: Zones;
  page: PageWay;
  /** The budget of a `values within a budget` walk was spent: the page was walked through the mask instead. */
  fallback?: 'budget spent: mask walk';
}

const s = (n: number) => n.toLocaleString('en-US');

/** One line: what `--explain-lists` prints. */
export function describePlan(plan: ListPlan): string {
  const { scope, page } = plan;
  const clauses = plan.stretchOf ? `${plan.clauses} of ${plan.stretchOf}` : plan.clauses;
  const zones = plan.zones === 'none' ? '' : `, skipping blocks by ${ZONES[plan.zones]}`;
  const test = page.how === 'past the end' ? '' : `, test ${plan.test}${plan.fallback ? ` (${plan.fallback})` : ''}`;
  return [
    `scope: ${scope.by} mask (${scope.values} value${scope.values === 1 ? '' : 's'}, ${s(scope.cases)} cases)`,
    `clauses: ${clauses}`,
    `count: ${plan.count} = ${s(plan.totalCount)}`,
    `page: ${pageText(page)}${zones}${test}`,
  ].join('; ');
}

const ZONES: Record<Exclude<Zones, 'none'>, string> = {
  'code blocks': 'counts per code',
  'zone bounds': 'value bounds and counts',
  'zone skips': 'value bounds',
  'scope blocks': 'the scope\'s counts',
};

function pageText(page: PageWay): string {
  switch (page.how) {
    case 'past the end':
      return 'past the end';
    case 'sort':
      return `sort the matches by ${page.keys.join(',')}`;
    case 'walk':
      return `walk ${page.along} ${page.descending ? 'desc' : 'asc'} from the ${page.back ? 'end' : 'start'}${page.within ? ' within its stretch' : ''}`;
    case 'counted buckets':
      return `counted buckets of ${page.lead} along ${page.along}`;
    case 'buckets':
      return `buckets of ${page.lead.join(',')} along ${page.along}`;
    case 'runs':
      return `runs of ${page.of} sorted by ${page.then.join(',')}`;
  }
}
