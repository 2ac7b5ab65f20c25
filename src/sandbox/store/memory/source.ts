// The engine's port: where it reads the cases it holds. The store implements it (store/sqlite-case-rows.ts over
// SQLite; a test may give rows of its own); the engine knows nothing of tables, triggers or pragmas behind it.
//
// A row is an array, not an object (the fill reads a million of them): [env, ...the values of the fields asked for,
// in that order, as a record holds them (null, numbers, strings, booleans, arrays), the case's customer organisation
// (null if none), its rowid (a number the store reads a record back by)].

/** One case as `CaseRowReader` gives it: see the layout above. */
export type CaseRow = unknown[];

export interface CaseRowSource {
  /** The fields of a case record, in the record's order: a page's JSON writes them in this order. */
  readonly recordFields: readonly string[];
  /** The exact number of cases per environment (the fill sizes each table once). */
  countsByEnv(): Iterable<readonly [env: string, count: number]>;
  /** A cheap upper bound of the number of cases (whether a fill may run synchronously). */
  maxCases(): number;
  /** Whether a write is open and not yet committed: its rows may still roll back. */
  writing(): boolean;
  /** The reads of rows carrying `fields` (some of recordFields, `id` among them). */
  reader(fields: readonly string[]): CaseRowReader;
}

export interface CaseRowReader {
  /**
   * Every case in (env, id) order (ids compared by code point), `chunk` rows per step: the engine yields to requests
   * between steps. The store may tune itself for one pass over everything while it runs (returned early or not).
   */
  scan(chunk: number): Iterator<readonly CaseRow[], void>;
  /** The current row of case `id` in `env`, undefined when there is none. */
  row(env: string, id: string): CaseRow | undefined;
}
