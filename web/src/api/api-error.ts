/** Errors raised by the API clients, carrying the server's own message. */

/** A failed API call: the HTTP status (0 when the network failed) and a readable message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Listeners told when the server rejects the token, so the app can ask for a new one. */
const unauthorizedListeners = new Set<() => void>();

/** Registers a callback for 401 answers; returns a function that removes it. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** Builds the error for a non-2xx answer from either envelope (`{message}` or `{error}`). */
export function errorFromBody(status: number, body: unknown, fallback: string): ApiError {
  if (status === 401) for (const listener of unauthorizedListeners) listener();
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const text = typeof record.error === 'string' ? record.error : record.message;
    if (typeof text === 'string' && text.length > 0) return new ApiError(status, text);
  }
  return new ApiError(status, `${fallback} (HTTP ${status})`);
}
