// What the run keeps of the exchanges it made: each is judged against its operation as it arrives, and only a
// count and the first non-conforming answer per operation are kept, that one trimmed. Memory stays bounded however
// many answers the run gets and however large they are.
import type { CareSpec, OperationSpec } from '../spec/types.ts';
import type { Exchange } from './http.ts';
import { judge, operationOf } from './judge.ts';

/** What a report shows of an answer: the head and the first bytes of the body. */
const KEPT_TEXT = 2048;

export interface OperationRecord {
  /** Answers of this operation the run judged. */
  judged: number;
  /** The first answer that did not conform, and why. */
  failure?: { problems: string[]; exchange: Exchange };
}

/** A copy of an exchange small enough to keep: the body cut to its first bytes, not parsed. */
export function trimmed(x: Exchange): Exchange {
  return { ...x, bytes: Buffer.alloc(0), json: undefined, text: x.text.length > KEPT_TEXT ? `${x.text.slice(0, KEPT_TEXT)}…` : x.text };
}

export class ObservedAnswers {
  /** By operationId, in the order the operations were first called. */
  readonly byOperation = new Map<string, OperationRecord>();

  constructor(
    private readonly spec: CareSpec,
    private readonly operations: () => OperationSpec[],
    private readonly envHeader: () => string,
  ) {}

  observe(x: Exchange): void {
    const op = operationOf(this.operations(), x.method, x.path);
    if (!op) return;
    const record = this.byOperation.get(op.operationId) ?? { judged: 0 };
    this.byOperation.set(op.operationId, record);
    record.judged++;
    if (record.failure) return;
    const problems = judge(this.spec, op, x, this.envHeader());
    if (problems.length) record.failure = { problems, exchange: trimmed(x) };
  }
}
