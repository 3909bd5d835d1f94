// The largest values the columns hold, as request schemas bound their integer inputs: a number past a column's range
// is the client's mistake (400), where PostgreSQL would refuse it mid-query with "out of range" (a 500).

/** Largest value of an `integer` column (version numbers, levels, counts): PostgreSQL's int4. */
export const MAX_VERSION_NUMBER = 2 ** 31 - 1;

/**
 * Largest id of a `bigserial`/`bigint` column taken from a request (events, deliveries, offsets): int8 holds more,
 * but a JSON number past 2^53 − 1 is no longer the integer the client wrote.
 */
export const MAX_ROW_ID = Number.MAX_SAFE_INTEGER;
