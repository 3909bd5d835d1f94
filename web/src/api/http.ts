/** The one fetch wrapper both API clients use: token header, JSON bodies, readable errors. */
import { ApiError, errorFromBody } from './api-error.ts';
import { getToken } from './token.ts';

/** Options of {@link request}. */
export interface RequestOptions {
  method?: string;
  /** Serialised as JSON when it is not FormData. */
  body?: unknown;
  query?: Record<string, string | number | undefined>;
}

/** Appends the non-empty query values to a path. */
export function withQuery(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Calls the API and returns the parsed JSON body; throws {@link ApiError} on any failure. */
export async function request(path: string, options: RequestOptions = {}): Promise<unknown> {
  const headers: Record<string, string> = { 'X-API-Token': getToken() ?? '' };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) {
    body = options.body;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const method = options.method ?? 'GET';
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), { method, headers, body });
  } catch {
    throw new ApiError(0, `Cannot reach the server (${method} ${path})`);
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    if (response.ok) throw new ApiError(response.status, `The server sent a response that is not JSON`);
  }
  if (!response.ok) throw errorFromBody(response.status, parsed, `${method} ${path} failed`);
  return parsed;
}
