// Compile-time shape of the client: the description's paths, with each list's `filter` replaced by the typed filter
// generated from its declaration, and responses narrowed to their success body (errors are thrown).
import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { paths } from '../../generated/care-api.d.ts';
import type { CareFiltersByPath } from '../../generated/care-filters.ts';
import type { ServedBy } from './errors.ts';

type WithTypedFilter<Operation, Filter> = Operation extends { parameters: { query?: infer Query } }
  ? Omit<Operation, 'parameters'> & {
      parameters: Omit<Operation['parameters'], 'query'> & {
        query?: Omit<NonNullable<Query>, 'filter'> & { filter?: Filter };
      };
    }
  : Operation;

/** `paths` of the description, with typed filters on every list operation. */
export type CarePaths = {
  [P in keyof paths]: P extends keyof CareFiltersByPath
    ? Omit<paths[P], 'get'> & { get: WithTypedFilter<paths[P]['get'], CareFiltersByPath[P]> }
    : paths[P];
};

/** What a successful call gives: the parsed body, the response, and which environment served it. */
export interface CareResponse<T> {
  data: T;
  response: Response;
  /** `X-CareAPI-Env` of the response (null if it was missing). */
  environment: ServedBy | null;
}

type JsonMedia = `${string}/${string}` & MediaType;

/** The success body of an operation (the error branch is a thrown CareApiError instead). */
export type SuccessData<Operation, Init> = Operation extends Record<string | number, any>
  ? Defined<Extract<FetchResponse<Operation, Init, JsonMedia>, { error?: never }>['data']>
  : never;

// openapi-fetch adds `undefined` to every success body; a thrown error replaces the empty case, except for 204.
type Defined<T> = [T] extends [undefined] ? undefined : Exclude<T, undefined>;

// Same rule as openapi-fetch: the init argument is optional when nothing in it is required.
export type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

export type CareMethod<Method extends HttpMethod> = <
  Path extends PathsWithMethod<CarePaths, Method>,
  Init extends MaybeOptionalInit<CarePaths[Path], Method>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<CareResponse<SuccessData<CarePaths[Path][Method], Init>>>;

/** Paths of list operations (those with a declared filter). */
export type CareListPath = keyof CareFiltersByPath & PathsWithMethod<CarePaths, 'get'>;

/** The success body of a list path: `meta.page` and `data`. */
export type CareListPage<Path extends CareListPath> = SuccessData<CarePaths[Path]['get'], {}>;

/** Item type of a list path's `data`. */
export type CareListItem<Path extends CareListPath> = CareListPage<Path> extends { data: Array<infer Item> } ? Item : never;

export type CareListInit<Path extends CareListPath> = MaybeOptionalInit<CarePaths[Path], 'get'>;

export type { CareFiltersByPath };
