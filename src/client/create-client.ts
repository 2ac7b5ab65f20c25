// createCareClient: openapi-fetch with our query serializer, bearer auth, thrown errors and environment tagging.
import createClient, { type Client } from 'openapi-fetch';
import { apiKeyExchange, cachedToken, fixedToken, type ApiKeyCredentials, type TokenProvider, type TokenSource } from './auth.ts';
import { attachmentForm, dispositionFilename, type AttachmentSource, type UploadOptions } from './attachments.ts';
import { baseUrlFor, type CareEnvironment } from './base-url.ts';
import { CareApiError, servedBy } from './errors.ts';
import { pages, paginate } from './paginate.ts';
import { PlainRequest } from './plain-request.ts';
import { serializeQuery } from './query.ts';
import { sendShort, takesShortPath, type ShortPathContext } from './short-path.ts';
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

function tokenSourceFrom(options: CareClientOptions, fetchImpl: FetchLike): TokenSource | undefined {
  const given = [options.token, options.getToken, options.apiKey].filter((v) => v !== undefined).length;
  if (given > 1) throw new TypeError('give one of token, getToken or apiKey');
  if (options.token !== undefined) return fixedToken(options.token);
  if (options.getToken) return cachedToken(options.getToken);
  if (options.apiKey) {
    return cachedToken(apiKeyExchange(options.apiKey, options.environment, { authUrl: options.authUrl, fetch: fetchImpl }));
  }
  return undefined; // no credentials: requests go without Authorization (the service answers 401)
}

type Send = (request: PlainRequest) => Promise<Response>;
type Verb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** fetch with the bearer token set, and one retry with a fresh token when the service answers 401. */
function authenticatedFetch(tokens: TokenSource | undefined, send: Send): Send {
  if (!tokens) return send;
  return async (request) => {
    const authorization = tokens.authorization();
    request.setHeader('authorization', typeof authorization === 'string' ? authorization : await authorization);
    const response = await send(request);
    if (response.status !== 401 || !tokens.invalidate()) return response;
    await response.body?.cancel();
    // The body is a string, FormData or Blob (openapi-fetch serialized it): it can be sent again as is.
    request.setHeader('authorization', await tokens.authorization());
    return send(request);
  };
}

/** The same for real Requests (the `raw` client, whose middleware may expect them): a body is read once, so keep a copy. */
function authenticatedRequestFetch(tokens: TokenSource | undefined, fetchImpl: FetchLike): FetchLike {
  if (!tokens) return fetchImpl;
  return async (request) => {
    request.headers.set('authorization', await tokens.authorization());
    const spare = request.body ? request.clone() : undefined;
    const response = await fetchImpl(request);
    if (response.status !== 401 || !tokens.invalidate()) return response;
    await response.body?.cancel();
    const again = spare ?? new Request(request);
    again.headers.set('authorization', await tokens.authorization());
    return fetchImpl(again);
  };
}

export function createCareClient(options: CareClientOptions): CareClient {
  const fetchImpl: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  const baseUrl = (options.baseUrl ?? baseUrlFor(options.environment, options.host)).replace(/\/+$/, '');
  // Straight to fetch(url, init) unless the caller gave a fetch that wants a Request.
  const send: Send = options.fetch
    ? (request) => fetchImpl(request.toRequest())
    : (request) => globalThis.fetch(request.url, request.init);
  const tokens = tokenSourceFrom(options, fetchImpl);
  const clientOptions = { baseUrl, querySerializer: serializeQuery, headers: options.headers };
  const sendAuthenticated = authenticatedFetch(tokens, send);
  // Requests with a body (and anything unusual in the init) go through openapi-fetch; the rest take the short path.
  const shortPath: ShortPathContext = { ...clientOptions, send: sendAuthenticated };
  const core = createClient<CarePaths>({
    ...clientOptions,
    Request: PlainRequest as unknown as typeof Request,
    fetch: sendAuthenticated as unknown as FetchLike,
  });
  let raw: Client<CarePaths> | undefined;
  const rawClient = () =>
    (raw ??= createClient<CarePaths>({
      ...clientOptions,
      fetch: authenticatedRequestFetch(tokens, fetchImpl),
    }));

  const call = async (verb: Verb, url: string, init: any): Promise<CareResponse<any>> => {
    const { data, error, response } = await (takesShortPath(init) ? sendShort(verb, url, init, shortPath) : (core[verb] as any)(url, init));
    if (!response.ok) throw new CareApiError(response, error);
    return { data, response, environment: servedBy(response) };
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
