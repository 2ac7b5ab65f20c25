// Walks a list page by page, driven by the `meta.page` the service answers (seed section 1, Pagination), and ends
// on any answer: a page it cannot follow stops the walk with a CarePaginationError that says why.
import { CarePaginationError } from './errors.ts';

type ListInit = { params?: { query?: { page?: { number?: number; size?: number } } & Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;

type PageResponse<Item> = { data: { data: Item[]; meta: { page: unknown } }; response?: Response };

/**
 * Yields every page's response from the requested page on. It ends after an empty page, a page with fewer items than
 * `size` (the last one), once `number × size ≥ totalCount`, and at the last page the first answer's `totalCount`
 * announces (items added during the walk are not followed). It stops with a CarePaginationError when a page cannot
 * be followed: `data` not a list; `meta.page.number`, `size` or `totalCount` missing or not a non-negative integer
 * (a string page number included); a page number other than the one asked for; a `size` other than the first
 * page's (pages that shrink or grow would skip or repeat items); more items than `size`; a first page with more
 * items than `totalCount`; or the same items as any page before (a server that ignores `page[number]`, or cycles
 * between pages). So a lying or incomplete server ends the walk with a reason, never a loop or skipped pages: every
 * page is new, and the first answer bounds how many there are.
 */
export async function* pages<Item, Response extends PageResponse<Item>>(
  fetchPage: (init: ListInit) => Promise<Response>,
  init: ListInit = {},
): AsyncGenerator<Response, void, undefined> {
  const query = init.params?.query ?? {};
  const first = query.page?.number ?? 1;
  let number = first;
  let lastPage = Infinity;
  let firstSize: number | undefined;
  // A fingerprint of every page seen, by the page number it came as: a cycle of any length is caught.
  const seen = new Map<string, number>();
  for (;;) {
    const pageInit: ListInit = { ...init, params: { ...init.params, query: { ...query, page: { ...query.page, number } } } };
    const answer = await fetchPage(pageInit);
    const stop = (why: string) => new CarePaginationError(answer.response, answer.data, number, why);
    const items: unknown = answer.data?.data;
    if (!Array.isArray(items)) throw stop('the answer has no `data` list');
    const page = answer.data?.meta?.page as Record<string, unknown> | undefined;
    if (!page || typeof page !== 'object') throw stop('the answer has no `meta.page`');
    for (const field of ['number', 'size', 'totalCount'] as const) {
      const value = page[field];
      if (!Number.isSafeInteger(value) || (value as number) < 0) {
        throw stop(`meta.page.${field} is ${value === undefined ? 'missing' : JSON.stringify(value)}, not a non-negative integer`);
      }
    }
    const { number: answered, size, totalCount } = page as { number: number; size: number; totalCount: number };
    if (answered !== number) throw stop(`asked for page ${number}, the answer says page ${answered}`);
    if (firstSize !== undefined && size !== firstSize) throw stop(`meta.page.size is ${size}, the first page's was ${firstSize} (items would be skipped or repeated)`);
    if (items.length > size) throw stop(`the page has ${items.length} items, more than meta.page.size ${size}`);
    if (number === first && items.length > totalCount) throw stop(`the page has ${items.length} items, more than meta.page.totalCount ${totalCount}`);
    if (items.length > 0) {
      const print = fingerprint(JSON.stringify(items));
      const earlier = seen.get(print);
      if (earlier !== undefined) {
        throw stop(
          earlier === number - 1
            ? `page ${number} has the same items as page ${earlier} (is page[number] ignored?)`
            : `page ${number} has the same items as page ${earlier} (the server goes round in a cycle)`,
        );
      }
      seen.set(print, number);
    }
    if (number === first) {
      firstSize = size;
      if (size > 0) lastPage = Math.max(first, Math.ceil(totalCount / size));
    }
    yield answer;
    if (items.length === 0 || items.length < size || number * size >= totalCount || number >= lastPage) return;
    number += 1;
  }
}

/** Every item of every page, in order. */
export async function* paginate<Item>(
  fetchPage: (init: ListInit) => Promise<PageResponse<Item>>,
  init: ListInit = {},
): AsyncGenerator<Item, void, undefined> {
  for await (const response of pages(fetchPage, init)) yield* response.data.data;
}

/**
 * Two 53-bit hashes and the length of a page's JSON text: a long walk keeps a few bytes per page, not the pages
 * themselves, and two different pages share a fingerprint with negligible odds. Plain JavaScript (browsers too).
 */
function fingerprint(text: string): string {
  return `${text.length}:${hash53(text, 0x9e3779b9)}:${hash53(text, 0x85ebca6b)}`;
}

/** cyrb53, a fast non-cryptographic string hash. */
function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
