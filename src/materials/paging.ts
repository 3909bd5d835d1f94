/** Largest `page_size` the material API serves. */
export const MAX_PAGE_SIZE = 100;
/** `page_size` used when absent or below 1. */
export const DEFAULT_PAGE_SIZE = 20;

/** Clamps the paging of a list: `page` < 1 → 1, `page_size` < 1 → 20, > 100 → 100; returns the values used. */
export function clampPage(query: { page?: number; page_size?: number }): {
  page: number;
  page_size: number;
  offset: number;
} {
  const page = Math.max(1, query.page ?? 1);
  const requested = query.page_size ?? DEFAULT_PAGE_SIZE;
  const page_size = requested < 1 ? DEFAULT_PAGE_SIZE : Math.min(requested, MAX_PAGE_SIZE);
  return { page, page_size, offset: (page - 1) * page_size };
}
