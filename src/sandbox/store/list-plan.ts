// The description of a list's plan, as the storage interface names it (types.ts ListAnswer): where the scope comes
// from, how the clauses are answered, where the count comes from and how the page is made, and what the run did where
// the plan left it a choice. An engine fills it (the column engine: store/memory/list.ts plans, then runs; its
// README.md has the picture); `--explain-lists` prints it (describePlan); test/sandbox.list-plans.test.ts pins it
// for representative queries, so a change that moves a class of queries to another path fails a test that names it.
// The plan is complete before the page is made and its run never writes to it.

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
  /** As `values`, but a walk that tests more slots than its budget gives way to the passes and the mask (`ifSpent`). */
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

/**
 * How a page is made, chosen from the count and the costs before any slot is walked:
 * - `past the end`: the page starts at or after the last match;
 * - `sort`: the matches sorted as far as the page needs;
 * - `walk`: one key's permutation walked (`back`: from the end), within a stretch or skipping blocks by zones;
 * - `counted buckets`: two keys, the leading one's values counted (a status): only the buckets the page needs walked;
 * - `buckets`: the matches split by the leading keys' values, each needed bucket walked along the last key (runs when
 *   there are more than the engine keeps apart: the run says so);
 * - `runs`: runs of equal first key along its permutation, each sorted by the other keys.
 */
export type PageWay =
  | { how: 'past the end' }
  | { how: 'sort'; keys: string[] }
  | { how: 'walk'; along: string; descending: boolean; back: boolean; within: boolean; zones: boolean }
  | { how: 'counted buckets'; lead: string; along: string }
  | { how: 'buckets'; lead: string[]; along: string }
  | { how: 'runs'; of: string; then: string[] };

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
  /** A `values within a budget` walk: the page made through the mask if the walk spends its budget. */
  ifSpent?: { zones: Zones; page: PageWay };
}

/** What a run did where its plan left it a choice: nothing, or which way it gave way to. */
export type PlanOutcome =
  | 'as planned'
  /** The walk within a budget spent it: the page was made as the plan's `ifSpent` says. */
  | 'budget spent: mask walk'
  /** A `buckets` page found more buckets than it keeps apart: runs made it. */
  | 'too many buckets: runs';

const s = (n: number) => n.toLocaleString('en-US');

/** One line: what `--explain-lists` prints. */
export function describePlan(plan: ListPlan, outcome: PlanOutcome = 'as planned'): string {
  const { scope, page } = plan;
  const clauses = plan.stretchOf ? `${plan.clauses} of ${plan.stretchOf}` : plan.clauses;
  const test = page.how === 'past the end' ? '' : `, test ${plan.test}`;
  const ran = outcome === 'as planned' ? '' : outcome === 'budget spent: mask walk' && plan.ifSpent ? `; ${outcome}: ${pageText(plan.ifSpent.page)}${zonesText(plan.ifSpent.zones)}` : `; ${outcome}`;
  return [
    `scope: ${scope.by} mask (${scope.values} value${scope.values === 1 ? '' : 's'}, ${s(scope.cases)} cases)`,
    `clauses: ${clauses}`,
    `count: ${plan.count} = ${s(plan.totalCount)}`,
    `page: ${pageText(page)}${zonesText(plan.zones)}${test}`,
  ].join('; ') + ran;
}

const zonesText = (zones: Zones) => (zones === 'none' ? '' : `, skipping blocks by ${ZONES[zones]}`);

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
