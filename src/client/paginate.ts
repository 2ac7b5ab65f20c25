// Walks a list page by page, driven by the `meta.page` the service answers (seed section 1, Pagination).

interface PageMeta {
  number: number;
  size: number;
  count?: number;
  totalCount: number;
}

type ListInit = { params?: { query?: { page?: { number?: number; size?: number } } & Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;

type PageResponse<Item> = { data: { data: Item[]; meta: { page: PageMeta } } };

/**
 * Yields every page's response from the requested page on. Stops after an empty page or when
 * `number * size >= totalCount`. The next page number comes from the answer's `meta.page.number`, and must move
 * forward, so a server that keeps answering the same page cannot make this loop forever.
 */
export async function* pages<Item, Response extends PageResponse<Item>>(
  fetchPage: (init: ListInit) => Promise<Response>,
  init: ListInit = {},
): AsyncGenerator<Response, void, undefined> {
  const query = init.params?.query ?? {};
  let number = query.page?.number ?? 1;
  for (;;) {
    const pageInit: ListInit = { ...init, params: { ...init.params, query: { ...query, page: { ...query.page, number } } } };
    const response = await fetchPage(pageInit);
    yield response;
    const items = response.data?.data ?? [];
    const page = response.data?.meta?.page;
    if (items.length === 0 || !page) return;
    if (page.number * page.size >= page.totalCount) return;
    if (!(page.number >= number)) throw new Error(`pagination went backwards: asked page ${number}, got ${page.number}`);
    number = page.number + 1;
  }
}

/** Every item of every page, in order. */
export async function* paginate<Item>(
  fetchPage: (init: ListInit) => Promise<PageResponse<Item>>,
  init: ListInit = {},
): AsyncGenerator<Item, void, undefined> {
  for await (const response of pages(fetchPage, init)) yield* response.data?.data ?? [];
}
