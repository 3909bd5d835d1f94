import { pino, type DestinationStream, type Logger } from 'pino';

/** The service's logger type (pino, as Fastify uses). */
export type AppLogger = Logger;

/** Log lines are written to stdout in batches of about this many bytes… */
const BATCH_BYTES = 4096;
/** …and at least this often, so a quiet service's lines still appear at once to a reader. */
const FLUSH_EVERY_MS = 250;

let stdout: (DestinationStream & { flush(): void }) | undefined;

/**
 * One buffered stdout for every logger of the process. At `debug` each API request writes an access line; one
 * `write` call per line was a measurable share of a single material read. Whatever is buffered when the process
 * exits, a crash included, pino's destination writes out itself.
 */
function bufferedStdout() {
  if (stdout) return stdout;
  const destination = pino.destination({ dest: 1, minLength: BATCH_BYTES, sync: false });
  setInterval(() => destination.flush(), FLUSH_EVERY_MS).unref();
  return (stdout = destination);
}

/** Creates the process logger; the API hands the same instance to Fastify. */
export function createLogger(level: string): AppLogger {
  const options = { level, redact: ['req.headers["x-api-token"]'] };
  return level === 'silent' ? pino(options) : pino(options, bufferedStdout());
}
