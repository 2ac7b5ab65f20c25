// Judge one exchange against the description: status declared, content type, X-CareAPI-Env, body schema, no 5xx.
import { validatorFor } from '../spec/index.ts';
import type { CareSpec, OperationSpec, ResponseSpec } from '../spec/types.ts';
import { MAX_BODY_BYTES, type Exchange } from './http.ts';

/** The declared response for a status: exact, then `4XX`-style ranges, then `default`. */
export function declaredResponse(op: OperationSpec, status: number): ResponseSpec | undefined {
  const s = String(status);
  return (
    op.responses.find((r) => r.status === s) ??
    op.responses.find((r) => r.status.toUpperCase() === `${s[0]}XX`) ??
    op.responses.find((r) => r.status === 'default')
  );
}

/** A Retry-After value: delay-seconds or an HTTP-date (RFC 9110 section 10.2.3). */
export const isRetryAfter = (value: string | undefined) => value !== undefined && (/^\d+$/.test(value) || !Number.isNaN(Date.parse(value)));

const mediaType = (value: string | undefined) => (value ?? '').split(';')[0].trim().toLowerCase();

function contentTypeMatches(actual: string, declared: string): boolean {
  const d = declared.toLowerCase();
  if (d === '*/*' || d === actual) return true;
  if (d.endsWith('/*')) return actual.startsWith(d.slice(0, -1));
  return false;
}

/** Every problem of the exchange against the operation's description (empty when it conforms). */
export function judge(spec: CareSpec, op: OperationSpec, x: Exchange, envHeader: string): string[] {
  const problems: string[] = [];
  const where = `${op.operationId} answered ${x.status}`;
  if (x.status >= 500) problems.push(`${where}: a server error (5xx) is never a conforming answer`);
  // 429 and 503 tell when to come back (D-31, D-103).
  if ((x.status === 429 || x.status === 503) && !isRetryAfter(x.headers['retry-after'])) problems.push(`${where}: no valid Retry-After (got ${x.headers['retry-after'] ?? 'none'})`);
  const env = x.headers['x-careapi-env'];
  if (env !== envHeader) problems.push(`${where}: X-CareAPI-Env is ${env === undefined ? 'missing' : `"${env}"`}, expected "${envHeader}"`);
  const declared = declaredResponse(op, x.status);
  if (!declared) {
    problems.push(`${where}: status ${x.status} is not declared (declared: ${op.responses.map((r) => r.status).join(', ')})`);
    return problems;
  }
  const actualType = mediaType(x.headers['content-type']);
  const length = x.bodyLength ?? x.bytes.length;
  if (declared.contentTypes.length === 0) {
    if (length > 0) problems.push(`${where}: no body is declared, got ${length} bytes`);
    return problems;
  }
  // The download declares `*/*` (it answers the type given at upload, D-67): the description itself says what matches.
  if (!declared.contentTypes.some((t) => contentTypeMatches(actualType, t))) {
    problems.push(`${where}: Content-Type "${actualType || '(none)'}" is not one of ${declared.contentTypes.join(', ')}`);
    return problems;
  }
  if (declared.schema && /json/.test(actualType)) {
    if (x.truncated) {
      problems.push(`${where}: the body is ${length} bytes, more than the suite reads of one answer (${MAX_BODY_BYTES} bytes): not judged`);
    } else if (x.json === undefined) {
      problems.push(`${where}: the body is not valid JSON`);
    } else {
      const validate = validatorFor(spec, declared.schema as object);
      if (!validate(x.json)) {
        const first = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
        problems.push(`${where}: the body does not match its schema: ${first}`);
      }
    }
  }
  return problems;
}

/** The operation an exchange was made to, by method and path template. */
export function operationOf(ops: OperationSpec[], method: string, path: string): OperationSpec | undefined {
  const candidates = ops.filter((op) => op.method.toUpperCase() === method.toUpperCase());
  // Literal paths first, so a trigger path is not read as the template that reads one event.
  const literal = candidates.find((op) => op.path === path);
  if (literal) return literal;
  // A literal path of another method (GET on a trigger path) is that path, not the template it also matches.
  if (ops.some((op) => op.path === path)) return undefined;
  return candidates.find((op) => new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`).test(path));
}
