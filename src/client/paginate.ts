// Walks a list page by page, driven by the `meta.page` the service answers (seed section 1, Pagination).

interface PageMeta {
  number: number;
  size: number;
  count?: number;
  totalCount: number;
}

type ListInit = { params?: { query?: { page?: { number?: number; size?: number } } & Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;

/**
 * Yields every item from the requested page on. Stops when a page is empty or `number * size >= totalCount`.
 * The next page number comes from the answer's `meta.page.number`, and must move forward, so a server that keeps
 * answering the same page cannot make this loop forever.
 */
export async function* paginate<Item>(
  fetchPage: (init: ListInit) => Promise<{ data: { data: Item[]; meta: { page: PageMeta } } }>,
  init: ListInit = {},
): AsyncGenerator<Item, void, undefined> {
  const query = init.params?.query ?? {};
  let number = query.page?.number ?? 1;
  for (;;) {
    const pageInit: ListInit = { ...init, params: { ...init.params, query: { ...query, page: { ...query.page, number } } } };
    const { data: body } = await fetchPage(pageInit);
    const items = body?.data ?? [];
    const page = body?.meta?.page;
    yield* items;
    if (items.length === 0 || !page) return;
    if (page.number * page.size >= page.totalCount) return;
    if (!(page.number >= number)) throw new Error(`pagination went backwards: asked page ${number}, got ${page.number}`);
    number = page.number + 1;
  }
}
