// The lists of cases the column engine answers for the SQLite storage (D-84): its answer as a ListResult, its page's
// JSON as the engine wrote it or as SQLite writes the records read back by rowid; SQL answers when the engine refuses,
// and from then on should it ever throw (a list must not become a 500), said once. Who answered is told to `explain`.
import type Database from 'better-sqlite3';
import type { ListQuery } from '../../grammar/types.ts';
import { JsonText } from '../json-text.ts';
import { recordJsonSql } from './columns.ts';
import type { Column } from './columns.ts';
import { writtenListResult } from './list-result.ts';
import type { CaseMemory } from './memory/engine.ts';
import type { ListAnswer, ListResult, Scope } from './types.ts';

type Explain = (answer: ListAnswer, env: string, scope: Scope, query: ListQuery) => void;

export class EngineCaseLists {
  /** The engine threw once: SQL answers from then on. */
  private failed = false;

  constructor(
    private readonly memory: CaseMemory,
    /** `--case-lists memory-only` (tests): a refusal or a failure throws, to prove the engine answered. */
    private readonly only: boolean,
    private readonly readBack: (ids: string[], rowids: number[]) => JsonText,
  ) {}

  /** A cases list answered by the engine, keyed by the query itself: no SQL is written for it. Undefined: SQL answers. */
  list(env: string, scope: Scope, query: ListQuery, explain: Explain): ListResult | undefined {
    const answer = this.answer(env, scope, query);
    if ('refused' in answer) {
      if (this.only) throw new Error(`the case column engine did not answer: ${answer.refused}`);
      explain({ by: 'sql', why: `the engine refused: ${answer.refused}` }, env, scope, query);
      return undefined;
    }
    explain({ by: 'engine', plan: answer.plan, outcome: answer.outcome }, env, scope, query);
    const json = answer.json === undefined ? this.readBack(answer.ids, answer.rowids) : new JsonText(answer.json, answer.ids.length);
    return writtenListResult(json, answer.totalCount);
  }

  /** The engine's answer, or why SQL answers. */
  private answer(env: string, scope: Scope, query: ListQuery): ReturnType<CaseMemory['list']> {
    if (this.failed && !this.only) return { refused: 'it failed earlier (its error was printed then)' };
    try {
      return this.memory.list(env, scope, query);
    } catch (error) {
      if (this.only) throw error;
      this.failed = true;
      process.stderr.write(`care-sandbox: the case column engine failed, SQL answers lists from now on (D-84): ${(error as Error).stack}\n`);
      return { refused: 'it failed (its error is printed above)' };
    }
  }
}

/**
 * The page's records by rowid (one lookup each, no index), in the order given, as JSON text that SQLite writes (the
 * same JSON as the records' own, see recordJsonSql); `ids` checks each is the case meant.
 */
export function casesJsonByRowid(prepare: (sql: string) => Database.Statement, columns: Column[], ids: string[], rowids: number[]): JsonText {
  if (ids.length === 0) return new JsonText('[]', 0);
  const rows = prepare(`SELECT seq, "id", ${recordJsonSql(columns)} FROM cases WHERE seq IN (SELECT value FROM json_each(?))`)
    .raw(true)
    .all(JSON.stringify(rowids)) as Array<[number, string, string]>;
  const bySeq = new Map(rows.map((row) => [Number(row[0]), row]));
  const records = rowids.map((rowid, i) => {
    const row = bySeq.get(rowid);
    if (!row || row[1] !== ids[i]) throw new Error(`case ${ids[i]} of a memory page is not in the database as rowid ${rowid}`);
    return row[2];
  });
  return new JsonText(`[${records.join(',')}]`, records.length);
}
