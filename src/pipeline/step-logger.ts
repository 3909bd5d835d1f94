import { Logger } from '@gltf-transform/core';
import type { AppLogger } from '../logger.ts';

/** What a step's log lines are about, added to each as fields (`model_id`, `job_id`). */
export type LogContext = Record<string, string | number>;

const VERBOSITY_OF_PINO: Record<string, number> = {
  trace: Logger.Verbosity.DEBUG,
  debug: Logger.Verbosity.DEBUG,
  info: Logger.Verbosity.INFO,
  warn: Logger.Verbosity.WARN,
  error: Logger.Verbosity.ERROR,
  fatal: Logger.Verbosity.ERROR,
  silent: Logger.Verbosity.SILENT,
};

// Pipeline and renderer lines start with their step's name ("import-assimp: …"), kept as a field to filter on.
const STEP_PREFIX = /^([a-z][a-z0-9-]*): /;

/**
 * A glTF-Transform logger whose lines go to the service's pino log with the given context, at the same level
 * and with the step's name as `step`. Its verbosity follows pino's level, so conversion threads do not even
 * post lines the log would drop.
 */
export class PinoStepLogger extends Logger {
  private readonly target: AppLogger;

  constructor(logger: AppLogger, context: LogContext) {
    super(VERBOSITY_OF_PINO[logger.level] ?? Logger.Verbosity.WARN);
    this.target = logger.child(context);
  }

  override debug(text: string): void {
    this.write('debug', text);
  }

  override info(text: string): void {
    this.write('info', text);
  }

  override warn(text: string): void {
    this.write('warn', text);
  }

  override error(text: string): void {
    this.write('error', text);
  }

  private write(level: 'debug' | 'info' | 'warn' | 'error', text: string): void {
    const step = STEP_PREFIX.exec(text)?.[1];
    this.target[level](step ? { step } : {}, text);
  }
}
