import { pino, type DestinationStream, type Logger } from 'pino';
import sonicBoom, { type SonicBoom as SonicBoomClass } from 'sonic-boom';

// The package is CommonJS whose `module.exports` is the class, where its types declare an ES module's default.
const SonicBoom = sonicBoom as unknown as typeof SonicBoomClass;

/** The service's logger type (pino, as Fastify uses). */
export type AppLogger = Logger;

/** Log lines are written to stdout in batches of about this many bytes… */
const BATCH_BYTES = 4096;
/** …and at least this often, so a quiet service's lines still appear at once to a reader. */
const FLUSH_EVERY_MS = 250;

let stdout: DestinationStream | undefined;

/**
 * One buffered stdout for every logger of the process. At `debug` each API request writes an access line; one
 * `write` call per line was a measurable share of a single material read. Whatever is buffered when the process
 * exits, a crash included, is written out then, unless stdout's reader is gone (a pipe whose reader exited, a log
 * collector stopped): the lines have nowhere to go, and the process runs on and exits without them. pino's own
 * destination (sonic-boom 4) retried a write that failed so forever, and a service stopped with lines still
 * buffered never exited.
 */
function bufferedStdout(): DestinationStream {
  if (stdout) return stdout;
  const destination = new SonicBoom({ fd: 1, minLength: BATCH_BYTES, sync: false });
  let readerGone = false;
  destination.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    readerGone = true;
  });
  setInterval(() => !readerGone && destination.flush(), FLUSH_EVERY_MS).unref();
  process.on('exit', () => {
    if (readerGone) return;
    try {
      destination.flushSync();
    } catch {
      // Its reader went as the process exited: nothing is left to write to.
    }
  });
  // pino writes here: once nobody reads, a line is dropped rather than buffered for nothing.
  return (stdout = { write: (line: string) => void (readerGone || destination.write(line)) });
}

/** Creates the process logger; the API hands the same instance to Fastify. */
export function createLogger(level: string): AppLogger {
  const options = { level, redact: ['req.headers["x-api-token"]'] };
  return level === 'silent' ? pino(options) : pino(options, bufferedStdout());
}
