// The plan of one list request through the engine: its description is the storage's (../list-plan.ts, named by the
// interface in types.ts), so the engine's words for it are those. list.ts fills it before the page is made and its
// run never writes to it.
export type { ClauseWay, ListPlan, MatchTest, PlanOutcome, Zones } from '../list-plan.ts';
export { describePlan } from '../list-plan.ts';
