// The response envelope of seed section 1 and the error objects of section 7, with X-CareAPI-Env on every answer.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { components } from '../../../generated/care-api.d.ts';
import type { Environment } from '../../spec/types.ts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  421: 'Misdirected Request',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The reason phrase of a status, as `title` of its error objects. */
export const statusTitle = (status: number): string => TITLES[status] ?? 'Error';

export interface Problem {
  detail: string;
  code: string;
}

/** A refusal with one error object per problem; thrown anywhere below the http layer. */
export class ApiError extends Error {
  readonly status: number;
  readonly problems: Problem[];
  readonly headers: Record<string, string>;
  constructor(status: number, problems: Problem[] | Problem, headers: Record<string, string> = {}) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.map((p) => p.detail).join('; '));
    this.status = status;
    this.problems = list;
    this.headers = headers;
  }
}

/** The error with its first `most` problems: an answer holds at most the error objects the description allows (D-101). */
export function atMostProblems(error: ApiError, most: number): ApiError {
  return error.problems.length <= most ? error : new ApiError(error.status, error.problems.slice(0, most), error.headers);
}

export const badRequest = (detail: string, code: string) => new ApiError(400, { detail, code });
export const forbidden = (detail: string, code = 'contract_forbidden') => new ApiError(403, { detail, code });
export const notFound = (detail: string) => new ApiError(404, { detail, code: 'not_found' });

export function envHeader(env: Environment): string {
  return env === 'production' ? 'Production' : 'Sandbox';
}

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
// random bytes drawn 256 ids at a time: one call into the system's generator per 256 requests, not per request
let pool = Buffer.alloc(0);
let poolAt = 0;
export function newRequestId(): string {
  if (poolAt + 26 > pool.length) {
    pool = randomBytes(26 * 256);
    poolAt = 0;
  }
  let out = 'req_';
  for (let i = 0; i < 26; i++) out += ALPHABET[pool[poolAt + i] % 32];
  poolAt += 26;
  return out;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** The error envelope of an ApiError, typed by the description's ErrorEnvelope (one ErrorObject per problem). */
export function errorBody(requestId: string, error: ApiError): components['schemas']['ErrorEnvelope'] {
  return {
    meta: { requestId },
    errors: error.problems.map((p) => ({ status: String(error.status), title: statusTitle(error.status), detail: p.detail, code: p.code })),
  };
}

export function sendError(res: ServerResponse, requestId: string, error: ApiError, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, errorBody(requestId, error), { ...headers, ...error.headers });
}
