/** What a client is told while the object store cannot be reached or refuses to work. */
export const STORAGE_UNAVAILABLE = 'storage unavailable, try again shortly';

/**
 * The object store failed for a reason of its own (unreachable, timing out, refusing the credentials, a 5xx),
 * not because of the request: requests answer 503 and jobs retry. `cause` keeps the store's error for the log.
 */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
  constructor(operation: string, cause: unknown) {
    super(`${STORAGE_UNAVAILABLE} (${operation} failed)`, { cause });
  }
}
