import { pino, type Logger } from 'pino';

/** The service's logger type (pino, as Fastify uses). */
export type AppLogger = Logger;

/** Creates the process logger; the API hands the same instance to Fastify. */
export function createLogger(level: string): AppLogger {
  return pino({ level, redact: ['req.headers["x-api-token"]'] });
}
