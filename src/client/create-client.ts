// createCareClient: openapi-fetch with our query serializer, and middleware for bearer auth and thrown errors; one
// signal and timeout per call; bodies read here so that every failure is a CareApiError.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { apiKeyExchange, cachedToken, causeText, fixedToken, type ApiKeyCredentials, type TokenProvider, type TokenSource } from './auth.ts';
import { attachmentForm, dispositionFilename, type AttachmentSource, type UploadOptions } from './attachments.ts';
import { baseUrlFor, type CareEnvironment } from './base-url.ts';
import { CareApiError, excerpt, servedBy, statusLine } from './errors.ts';
import { pages, paginate } from './paginate.ts';
import { serializeQuery } from './query.ts';
import { abortedCall, callSignal, checkTimeoutMs } from './signals.ts';
import { careSuccessBodies } from '../../generated/care-responses.ts';
import type { InitParam, CareListInit, CareListItem, CareListPage, CareListPath, CareMethod, CarePaths, CareResponse, SuccessData } from './types.ts';

export type FetchLike = (request: Request) => Promise<Response>;

export interface CareClientOptions {
  environment: CareEnvironment;
  /** Host of the service (default api.care.example); the path follows from the environment. */
  host?: string;
  /** Full base URL, overriding host and environment path (mocks, proxies): e.g. http://127.0.0.1:4010. */
  baseUrl?: string;
  /** A bearer token used as is. */
  token?: string;
  /** An async token source; its result is cached until the JWT's `exp` (or `expiresAt`), and refreshed once on 401. */
  getToken?: TokenProvider;
  /** An API key, exchanged for tokens at the authentication service (decision D-13). */
  apiKey?: ApiKeyCredentials;
  /** Base of the authentication service for the API-key exchange (default https://auth.care.example/auth/v2). */
  authUrl?: string;
  /** fetch to use (default globalThis.fetch); also used for the API-key exchange. */
  fetch?: FetchLike;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * How long one call may take in all, getting a token included, in milliseconds (default 30 000; 0 or Infinity
   * for none; at most 2^31 - 1, the longest a timer keeps, else createCareClient throws a RangeError). A call's own
   * `signal` can end it sooner. For a download `as: 'stream'` it runs until the headers.
   */
  timeoutMs?: number;
}

export type AttachmentRecord = SuccessData<CarePaths['/cases/{caseId}/attachments']['post'], {}>;

export interface DownloadedAttachment<Body> {
  data: Body;
  /** Content-Type the file was uploaded with. */
  contentType: string | null;
  /** File name from Content-Disposition. */
  fileName: string | undefined;
  response: Response;
  environment: CareResponse<unknown>['environment'];
}

export interface CareClient {
  readonly environment: CareEnvironment;
  readonly baseUrl: string;
  GET: CareMethod<'get'>;
  POST: CareMethod<'post'>;
  PUT: CareMethod<'put'>;
  PATCH: CareMethod<'patch'>;
  DELETE: CareMethod<'delete'>;
  /** Every item of a list, page after page, as `meta.page` says. */
  paginate<Path extends CareListPath>(path: Path, ...init: InitParam<CareListInit<Path>>): AsyncGenerator<CareListItem<Path>, void, undefined>;
  /** Each page's response of a list (`data.meta.page`, `environment`), page after page. */
  pages<Path extends CareListPath>(path: Path, ...init: InitParam<CareListInit<Path>>): AsyncGenerator<CareResponse<CareListPage<Path>>, void, undefined>;
  /** Upload a file to a case as multipart/form-data (part `file`). */
  uploadAttachment(caseId: string, file: AttachmentSource, options?: UploadOptions): Promise<CareResponse<AttachmentRecord>>;
  /** Download an attachment's bytes, or a stream of them. */
  downloadAttachment(caseId: string, attachmentId: string, options?: { as?: 'bytes' }): Promise<DownloadedAttachment<Uint8Array>>;
  downloadAttachment(caseId: string, attachmentId: string, options: { as: 'stream' }): Promise<DownloadedAttachment<ReadableStream<Uint8Array>>>;
  /** The openapi-fetch client underneath (no thrown errors, no success narrowing), for anything else. */
  readonly raw: Client<CarePaths>;
}

function tokenSourceFrom(options: CareClientOptions, fetchImpl: FetchLike, timeoutMs: number): TokenSource | undefined {
  const given = [options.token, options.getToken, options.apiKey].filter((v) => v !== undefined).length;
  if (given > 1) throw new TypeError('give one of token, getToken or apiKey');
  if (options.token !== undefined) return fixedToken(options.token);
  if (options.getToken) return cachedToken(options.getToken, { timeoutMs });
  if (options.apiKey) {
    return cachedToken(apiKeyExchange(options.apiKey, options.environment, { authUrl: options.authUrl, fetch: fetchImpl }), { timeoutMs });
  }
  return undefined; // no credentials: requests go without Authorization (the service answers 401)
}

type Verb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type ParseAs = 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';

/** The Authorization value, waited for under the request's signal (a hanging token service ends with the call). */
async function authorizationFor(tokens: TokenSource, signal: AbortSignal): Promise<string> {
  try {
    const value = tokens.authorization(signal);
    return typeof value === 'string' ? value : await value;
  } catch (error) {
    if (error instanceof CareApiError || !signal.aborted) throw error;
    throw abortedCall(signal, undefined, 'while getting a token');
  }
}

/** fetch whose failure without an answer is a typed CareApiError (`timeout`, `aborted` or `network`). */
async function fetchAnswer(fetchImpl: FetchLike, request: Request): Promise<Response> {
  try {
    return await fetchImpl(request);
  } catch (error) {
    throw noAnswer(request, error);
  }
}

function noAnswer(request: Request, error: unknown): CareApiError {
  if (error instanceof CareApiError) return error;
  if (request.signal.aborted) return abortedCall(request.signal);
  return new CareApiError(undefined, undefined, {
    reason: 'network',
    message: `no answer from ${new URL(request.url).origin}: ${causeText(error)}`,
    cause: error,
  });
}

/** Middleware: the bearer token on every request, and one retry with a fresh token when the service answers 401. */
function authMiddleware(tokens: TokenSource, fetchImpl: FetchLike): Middleware {
  // A body is read once: keep a copy of each request that has one, for the retry.
  const spares = new WeakMap<Request, Request>();
  return {
    async onRequest({ request }) {
      request.headers.set('authorization', await authorizationFor(tokens, request.signal));
      if (request.body) spares.set(request, request.clone());
      return request;
    },
    async onResponse({ request, response }) {
      if (response.status !== 401 || !tokens.invalidate()) return undefined;
      await response.body?.cancel();
      const again = spares.get(request) ?? new Request(request);
      again.headers.set('authorization', await authorizationFor(tokens, request.signal));
      return fetchAnswer(fetchImpl, again);
    },
  };
}

/** Middleware: a non-2xx answer is thrown as a CareApiError; no answer at all is one too. */
const errorMiddleware: Middleware = {
  async onResponse({ request, response }) {
    if (response.ok) return undefined;
    let text: string | undefined;
    let unreadable: unknown;
    try {
      text = await response.text();
    } catch (error) {
      unreadable = error;
    }
    // The call's timeout or the caller's abort cut the body: say so, rather than blame the body.
    if (text === undefined && request.signal.aborted) throw abortedCall(request.signal, response, READING);
    if (text === undefined) {
      throw new CareApiError(response, undefined, {
        message: `Care API answered ${statusLine(response)}; its body could not be read (${causeText(unreadable)})`,
        cause: unreadable,
      });
    }
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the text as it came
    }
    throw new CareApiError(response, body);
  },
  onError({ request, error }) {
    return noAnswer(request, error);
  },
};

const READING = 'while reading the answer';

/**
 * The body of a 2xx as the operation declares it (generated/care-responses.ts); anything unreadable, missing or not
 * the declared envelope is a CareApiError that says why. An end of the call's signal while reading is `timeout` or
 * `aborted`, with the answer's status.
 */
async function readSuccess(response: Response, parseAs: ParseAs, method: string, path: string, signal: AbortSignal | undefined): Promise<unknown> {
  const declared = careSuccessBodies[`${method} ${path}`];
  if (method === 'HEAD') {
    await response.body?.cancel();
    return undefined;
  }
  if (response.status === 204) {
    await response.body?.cancel();
    if (parseAs !== 'json' || declared?.bodyless) return undefined;
    throw new CareApiError(response, undefined, {
      reason: 'empty_body',
      message: `Care API answered ${statusLine(response)}, where the operation declares a JSON body`,
    });
  }
  if (parseAs === 'stream') return response.body;
  let raw: unknown;
  try {
    raw = parseAs === 'json' ? await response.text() : await response[parseAs]();
  } catch (error) {
    if (signal?.aborted) throw abortedCall(signal, response, READING);
    throw new CareApiError(response, undefined, {
      reason: 'unreadable_body',
      message: `Care API answered ${statusLine(response)}, but its body could not be read (${causeText(error)})`,
      cause: error,
    });
  }
  if (parseAs !== 'json') return raw;
  if (raw === '') {
    if (declared?.bodyless) return undefined;
    throw new CareApiError(response, '', {
      reason: 'empty_body',
      message: `Care API answered ${statusLine(response)} with an empty body, where the operation declares one`,
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(raw as string);
  } catch (error) {
    throw new CareApiError(response, raw, {
      reason: 'unreadable_body',
      message: `Care API answered ${statusLine(response)} with a body that is not JSON (${response.headers.get('content-type') ?? 'no content type'}): ${excerpt(raw as string)}`,
      cause: error,
    });
  }
  const missing = missingMembers(body, declared?.required ?? []);
  if (missing) {
    throw new CareApiError(response, body, {
      reason: 'unreadable_body',
      message: `Care API answered ${statusLine(response)} with ${excerpt(raw as string, 40)}, not the declared body: ${missing}`,
    });
  }
  return body;
}

/** Why `body` is not an object with every `required` member, or undefined when it is. */
function missingMembers(body: unknown, required: readonly string[]): string | undefined {
  if (required.length === 0) return undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return `an object with ${required.map((m) => `\`${m}\``).join(' and ')} is required`;
  const absent = required.filter((member) => (body as Record<string, unknown>)[member] === undefined || (body as Record<string, unknown>)[member] === null);
  return absent.length === 0 ? undefined : `no ${absent.map((m) => `\`${m}\``).join(' or ')}`;
}

export function createCareClient(options: CareClientOptions): CareClient {
  const fetchImpl: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  const baseUrl = (options.baseUrl ?? baseUrlFor(options.environment, options.host)).replace(/\/+$/, '');
  const timeoutMs = checkTimeoutMs(options.timeoutMs);
  const tokens = tokenSourceFrom(options, fetchImpl, timeoutMs);
  const clientOptions = { baseUrl, querySerializer: serializeQuery, headers: options.headers, fetch: fetchImpl };
  const auth = tokens ? authMiddleware(tokens, fetchImpl) : undefined;
  // One request path: openapi-fetch, with errors and auth as its middleware (auth's onResponse runs first).
  const core = createClient<CarePaths>(clientOptions);
  core.use(errorMiddleware);
  if (auth) core.use(auth);
  let raw: Client<CarePaths> | undefined;
  const rawClient = () => {
    if (!raw) {
      raw = createClient<CarePaths>(clientOptions);
      if (auth) raw.use(auth);
    }
    return raw;
  };

  const call = async (verb: Verb, url: string, init: any): Promise<CareResponse<any>> => {
    const parseAs: ParseAs = init?.parseAs ?? 'json';
    const { signal, done } = callSignal(init?.signal, timeoutMs);
    try {
      // The body is read here rather than by openapi-fetch, so that a bad one becomes a CareApiError with its status.
      const { response } = await (core[verb] as any)(url, { ...init, signal, parseAs: 'stream' });
      const data = await readSuccess(response, parseAs, verb, url, signal);
      return { data, response, environment: servedBy(response) };
    } catch (error) {
      if (error instanceof CareApiError || !signal?.aborted) throw error;
      throw abortedCall(signal);
    } finally {
      done(); // a stream handed to the caller stays under the caller's own signal only
    }
  };
  const method = (verb: Verb) => ((url: string, init?: unknown) => call(verb, url, init)) as any;

  const client: CareClient = {
    environment: options.environment,
    baseUrl,
    GET: method('GET'),
    POST: method('POST'),
    PUT: method('PUT'),
    PATCH: method('PATCH'),
    DELETE: method('DELETE'),
    paginate: ((path: string, init?: any) => paginate((pageInit) => call('GET', path, pageInit), init)) as CareClient['paginate'],
    pages: ((path: string, init?: any) => pages((pageInit) => call('GET', path, pageInit), init)) as CareClient['pages'],
    async uploadAttachment(caseId, file, uploadOptions) {
      const form = await attachmentForm(file, uploadOptions);
      return call('POST', '/cases/{caseId}/attachments', { params: { path: { caseId } }, body: form });
    },
    async downloadAttachment(caseId: string, attachmentId: string, downloadOptions?: { as?: 'bytes' | 'stream' }) {
      const asStream = downloadOptions?.as === 'stream';
      const { data, response, environment } = await call('GET', '/cases/{caseId}/attachments/{attachmentId}/download', {
        params: { path: { caseId, attachmentId } },
        parseAs: asStream ? 'stream' : 'arrayBuffer',
      });
      return {
        data: asStream ? data : new Uint8Array(data ?? new ArrayBuffer(0)),
        contentType: response.headers.get('content-type'),
        fileName: dispositionFilename(response.headers.get('content-disposition')),
        response,
        environment,
      };
    },
    get raw() {
      return rawClient();
    },
  };
  return client;
}
