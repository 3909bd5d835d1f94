/** What a client is told while the database cannot be reached or is shedding load. */
export const DATABASE_UNAVAILABLE = 'database unavailable, try again shortly';

// Socket failures reaching the server, from Node or the pg driver.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

// PostgreSQL SQLSTATEs for a connection that failed or a server that is shutting down, full or timed out
// (57014 is the statement timeout), and SQLite's "another writer held the lock past the busy timeout".
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300', '57014', 'SQLITE_BUSY']);

// The pg driver and pool report these without a code.
const DRIVER_WORDING =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|connection (is )?closed|Query read timeout/i;

/**
 * True for errors that say the database is unreachable or temporarily refusing, not that the request or the
 * code is wrong: they answer 503 and go away when the database comes back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message, errors } = (error ?? {}) as { code?: unknown; message?: unknown; errors?: unknown };
  if (
    typeof code === 'string' &&
    (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))
  )
    return true;
  if (typeof message === 'string' && DRIVER_WORDING.test(message)) return true;
  // Node reports a refused connection to every address of a host as one AggregateError.
  return Array.isArray(errors) && errors.some(isDatabaseUnavailable);
}
