// Prism's answers, rewritten into the error envelope of seed section 7 (one error object per problem).
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { components } from '../../generated/care-api.d.ts';
import type { GrammarError } from '../grammar/index.ts';

/** One error object of the error envelope, as the description declares it. */
export type ErrorObject = components['schemas']['ErrorObject'];

export interface ErrorEnvelope {
  meta: Record<string, unknown>;
  errors: ErrorObject[];
}

/** An answer the front gives itself instead of asking Prism. */
export interface Refusal {
  status: number;
  body: ErrorEnvelope;
  headers?: Record<string, string>;
}

/** A request body as it is passed to Prism. */
export interface ForwardBody {
  bytes?: Buffer;
  contentType?: string;
}

/** Reason phrases of RFC 9110 where Node still writes the older ones (413 was "Payload Too Large"), as the service. */
const RFC_9110_TITLES: Record<number, string> = { 413: 'Content Too Large', 422: 'Unprocessable Content' };

export function errorObject(status: number, detail: string, code: string): ErrorObject {
  return { status: String(status), title: RFC_9110_TITLES[status] ?? STATUS_CODES[status] ?? 'Error', detail, code };
}

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A request id as the service writes them (`req_` and 26 characters of Crockford's base 32), new for each answer. */
export function newRequestId(): string {
  let out = 'req_';
  for (const byte of randomBytes(26)) out += ALPHABET[byte % 32];
  return out;
}

export function envelope(errors: ErrorObject[]): ErrorEnvelope {
  return { meta: {}, errors };
}

export function fromGrammarErrors(errors: GrammarError[]): ErrorEnvelope {
  return envelope(errors.map((e) => errorObject(400, `${e.location}: ${e.problem}`, e.code)));
}

/** One entry of Prism's `sl-violations` header. */
interface PrismViolation {
  location?: string[];
  code?: string | number;
  message?: string;
}

// Prism reports JSON Schema keywords; the service's codes are pydantic error types (decision D-25).
const KEYWORD_CODES: Record<string, string> = {
  required: 'missing',
  type: 'type_error',
  maximum: 'less_than_equal',
  exclusiveMaximum: 'less_than',
  minimum: 'greater_than_equal',
  exclusiveMinimum: 'greater_than',
  maxLength: 'string_too_long',
  minLength: 'string_too_short',
  maxItems: 'too_long',
  minItems: 'too_short',
  minProperties: 'too_short',
  pattern: 'string_pattern_mismatch',
  enum: 'enum',
  const: 'literal_error',
  format: 'value_error',
  additionalProperties: 'extra_forbidden',
  oneOf: 'value_error',
  anyOf: 'value_error',
};

const STATUS_CODE_NAMES: Record<number, string> = {
  400: 'value_error',
  401: 'unauthorized',
  403: 'contract_forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/** Prism answers 422 where the service answers 400 (facts: a pydantic service that never sends 422). */
export function serviceStatus(prismStatus: number): number {
  return prismStatus === 422 ? 400 : prismStatus;
}

export function fromViolations(status: number, header: string): ErrorEnvelope | undefined {
  let violations: PrismViolation[];
  try {
    violations = JSON.parse(header);
  } catch {
    return undefined;
  }
  if (!Array.isArray(violations) || violations.length === 0) return undefined;
  const objects = violations.map((violation) => {
      const where = (violation.location ?? []).filter((part, i) => !(i === 0 && part === 'request'));
      let problem = String(violation.message ?? 'invalid request').replace(/^Request (?:query parameter |header |path parameter |body )?/, '');
      // Say it as the service does (pydantic, decision D-24): the missing field in the location, "Field required".
      const missing = violation.code === 'required' ? /required property '([^']+)'/.exec(problem) : null;
      if (missing) {
        where.push(missing[1]);
        problem = 'Field required';
      }
      const wrongType = violation.code === 'type' ? /must be (\w+)/.exec(problem) : null;
      if (wrongType) problem = `Input should be a valid ${wrongType[1]}`;
      problem = problem.replace(/^property \S+ /, '');
      const location = where.length > 0 ? where.join('.') : 'request';
      const code = wrongType
        ? TYPE_CODES[wrongType[1]] ?? 'type_error'
        : typeof violation.code === 'string'
          ? KEYWORD_CODES[violation.code] ?? violation.code
          : STATUS_CODE_NAMES[status] ?? '';
      return errorObject(status, `${location}: ${problem}`, code);
  });
  // Prism reports every failing keyword of a value (type and enum, say); the service reports one problem per location.
  const seen = new Set<string>();
  return envelope(objects.filter((error) => {
    const location = error.detail.slice(0, error.detail.indexOf(': '));
    if (seen.has(location)) return false;
    seen.add(location);
    return true;
  }));
}

// pydantic's error types for a value of the wrong JSON type.
const TYPE_CODES: Record<string, string> = {
  integer: 'int_type',
  number: 'float_type',
  string: 'string_type',
  boolean: 'bool_type',
  array: 'list_type',
  object: 'dict_type',
};

/** Prism's own problem+json (404, 405, ...) or any other body without `errors`, as one error object. */
export function fromForeignBody(status: number, body: unknown): ErrorEnvelope {
  const problem = body as { detail?: unknown; title?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  if (problem?.error && typeof problem.error === 'object') {
    const code = String(problem.error.code ?? STATUS_CODE_NAMES[status] ?? '');
    return envelope([errorObject(status, `body: ${String(problem.error.message ?? 'invalid request body')}`, code)]);
  }
  const text = typeof problem?.detail === 'string' ? problem.detail : typeof problem?.title === 'string' ? problem.title : STATUS_CODES[status] ?? 'error';
  return envelope([errorObject(status, `request: ${text}`, STATUS_CODE_NAMES[status] ?? '')]);
}

export function isEnvelope(body: unknown): boolean {
  return !!body && typeof body === 'object' && Array.isArray((body as { errors?: unknown }).errors);
}
