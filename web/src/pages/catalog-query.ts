/** The catalog's filters, sort and page, read from and written to the hash (`#/?search=…&page=2`) so a reload or a shared link keeps them. */
import { MODEL_STATUSES } from '../api/types.ts';
import type { ModelSort, ModelStatus } from '../api/types.ts';

/** What the catalog shows: filters, order and the 1-based page. */
export interface CatalogQuery {
  search: string;
  status: ModelStatus | '';
  format: string;
  tag: string;
  sort: ModelSort;
  page: number;
}

/** The order the server uses when none is asked for. */
export const DEFAULT_SORT: ModelSort = '-created_at';

/** Every order with the words the sort menu shows for it. */
export const SORT_CHOICES: readonly { value: ModelSort; label: string }[] = [
  { value: '-created_at', label: 'Newest first' },
  { value: 'created_at', label: 'Oldest first' },
  { value: 'name', label: 'Name A–Z' },
  { value: '-name', label: 'Name Z–A' },
  { value: '-file_size', label: 'Largest file' },
  { value: 'file_size', label: 'Smallest file' },
  { value: '-triangle_count', label: 'Most triangles' },
  { value: 'triangle_count', label: 'Fewest triangles' },
];

/** A query with no filters, newest first, on page 1. */
export function emptyQuery(): CatalogQuery {
  return { search: '', status: '', format: '', tag: '', sort: DEFAULT_SORT, page: 1 };
}

/** Reads the query part of a hash such as `#/?tag=demo&page=2`; unknown or malformed values fall back to the defaults. */
export function parseCatalogHash(hash: string): CatalogQuery | null {
  const mark = hash.indexOf('?');
  if (mark < 0) return null;
  const params = new URLSearchParams(hash.slice(mark + 1));
  const query = emptyQuery();
  query.search = params.get('search')?.trim() ?? '';
  const status = params.get('status') ?? '';
  query.status = (MODEL_STATUSES as readonly string[]).includes(status) ? (status as ModelStatus) : '';
  query.format = params.get('format') ?? '';
  query.tag = params.get('tag')?.trim() ?? '';
  const sort = params.get('sort') ?? '';
  query.sort = SORT_CHOICES.find((choice) => choice.value === sort)?.value ?? DEFAULT_SORT;
  const page = Number(params.get('page'));
  query.page = Number.isInteger(page) && page >= 1 ? page : 1;
  return query;
}

/** The hash for a query, leaving out values at their default so a plain catalog stays `#/`. */
export function catalogHash(query: CatalogQuery): string {
  const params = new URLSearchParams();
  if (query.search) params.set('search', query.search);
  if (query.status) params.set('status', query.status);
  if (query.format) params.set('format', query.format);
  if (query.tag) params.set('tag', query.tag);
  if (query.sort !== DEFAULT_SORT) params.set('sort', query.sort);
  if (query.page > 1) params.set('page', String(query.page));
  const text = params.toString();
  return text ? `#/?${text}` : '#/';
}
