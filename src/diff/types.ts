// What a comparison of two descriptions reports: one Change per difference, classified.

/** breaking: an integrator built on the base can fail against the head; non-breaking: new or wider behaviour;
 * documentation: wording, examples, annotations only. */
export type Classification = 'breaking' | 'non-breaking' | 'documentation';

/** Who reads what changed: `request` is written by the client and read by the service; `response` the reverse;
 * `event` is a webhook payload, written by the service and read by the integrator's receiver (so it behaves like
 * a response); `event-reply` is the receiver's answer to a delivery (read by the service, so like a request);
 * `document` is the description as a whole (servers, security, operators, info). */
export type Direction = 'request' | 'response' | 'event' | 'event-reply' | 'document';

export interface Change {
  /** Stable id for acknowledgements: `<rule> <pointer>` (head pointer, or base pointer for a removal). */
  id: string;
  /** The rule that classified it, e.g. `response.property.removed` or `care.filter.field.removed`. */
  rule: string;
  classification: Classification;
  direction: Direction;
  /** `GET /cases`, `webhook case.updated`, or undefined for document-wide changes. */
  operation?: string;
  /** JSON pointer in the base document (absent for an addition). */
  basePointer?: string;
  /** JSON pointer in the head document (absent for a removal). */
  headPointer?: string;
  message: string;
}

/** Rules reported by our own code take precedence over the library's findings at the same place. */
export interface RuleFindings {
  changes: Change[];
  /** Pointer prefixes (either side) whose library findings these changes replace. */
  supersedes: string[];
}
