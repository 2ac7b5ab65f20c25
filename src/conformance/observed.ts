// What the run keeps of the exchanges it made: each is judged against its operation as it arrives, and only a
// count and the first non-conforming answer per operation are kept, that one trimmed. Memory stays bounded however
// many answers the run gets and however large they are. The RateLimit fields are tallied the same way (D-102).
import type { CareSpec, OperationSpec } from '../spec/types.ts';
import type { Exchange } from './http.ts';
import { judge, operationOf } from './judge.ts';
import { rateLimitFieldNames } from '../spec/rate-limit-fields.ts';

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
  /** The RateLimit fields of the answers of every operation (D-102). */
  readonly rateLimit: RateLimitFields;

  constructor(
    private readonly spec: CareSpec,
    private readonly operations: () => OperationSpec[],
    private readonly envHeader: () => string,
  ) {
    this.rateLimit = new RateLimitFields(spec);
  }

  observe(x: Exchange): void {
    const op = operationOf(this.operations(), x.method, x.path);
    if (!op) return;
    const record = this.byOperation.get(op.operationId) ?? { judged: 0 };
    this.byOperation.set(op.operationId, record);
    record.judged++;
    this.rateLimit.observe(x);
    if (record.failure) return;
    const problems = judge(this.spec, op, x, this.envHeader());
    if (problems.length) record.failure = { problems, exchange: trimmed(x) };
  }
}

/**
 * The RateLimit fields of the answers (D-102): a deployment that limits the rate tells its quota on every answer that
 * passed its limiter (every 2xx) and on its 429s, both fields in the form the description declares; one that does not
 * limit sends neither.
 */
export class RateLimitFields {
  /** Answers that carried both fields. */
  carried = 0;
  /** The first answer that carried a field in another form than declared, or only one of the two. */
  malformed?: { why: string; exchange: Exchange };
  /** The first 2xx or 429 without the fields (a fault only when some answer shows the deployment limits). */
  without?: Exchange;
  /** The fields the description declares (D-102). */
  readonly names: string[];
  /** The declared pattern of each field, from the description (absent when it declares none). */
  readonly patterns: Record<string, RegExp>;

  constructor(spec: CareSpec) {
    const headers = spec.document.components?.headers ?? {};
    this.names = rateLimitFieldNames(spec);
    this.patterns = Object.fromEntries(this.names.flatMap((name) => {
      const pattern = headers[name]?.schema?.pattern;
      return typeof pattern === 'string' ? [[name, new RegExp(pattern)]] : [];
    }));
  }

  observe(x: Exchange): void {
    const values = this.names.map((name) => [name, x.headers[name.toLowerCase()]] as const);
    const present = values.filter(([, v]) => v !== undefined);
    if (present.length === 0) {
      if (!this.without && ((x.status >= 200 && x.status < 300) || x.status === 429)) this.without = trimmed(x);
      return;
    }
    if (present.length === 1 && !this.malformed) this.malformed = { why: `the answer carries ${present[0][0]} without ${values.find(([, v]) => v === undefined)![0]}`, exchange: trimmed(x) };
    for (const [name, value] of present) {
      const pattern = this.patterns[name];
      if (pattern && !pattern.test(value!) && !this.malformed) this.malformed = { why: `${name}: ${value} is not in the declared form ${pattern.source}`, exchange: trimmed(x) };
    }
    if (present.length === this.names.length) this.carried++;
  }
}
