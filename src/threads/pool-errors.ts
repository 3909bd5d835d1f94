// The errors a task of the conversion pool rejects with: time limit, silence, cancellation and the thread's own failure.
import { ConversionError } from '../pipeline/types.ts';
import type { ParentMessage } from './thread-protocol.ts';

/** What the errors of the pool need to know of a task. */
interface FailedTask {
  message: Pick<ParentMessage, 'type'>;
  timeoutMs: number;
  /** The stage the thread last reported. */
  stage?: string;
}

function seconds(ms: number): number {
  return Number((ms / 1000).toFixed(3));
}

/** How errors name each kind of task. */
const TASK_NAMES: Record<ParentMessage['type'], string> = {
  convert: 'Conversion',
  render: 'Thumbnail rendering',
  export: 'Export',
  colours: 'Conversion',
};

/**
 * The rejection of a task that ran past its time limit, or, given `ceilingFactor`, past the wall-clock ceiling of
 * a limit counted in processor time.
 */
export function timeoutError(task: FailedTask, ceilingFactor?: number): Error {
  const what = TASK_NAMES[task.message.type];
  if (ceilingFactor === undefined)
    return new ConversionError(`${what} timed out after ${seconds(task.timeoutMs)} s`);
  return new ConversionError(
    `${what} timed out after ${seconds(task.timeoutMs * ceilingFactor)} s on the wall clock ` +
      `(${ceilingFactor} times its limit of ${seconds(task.timeoutMs)} s of processor time)`,
  );
}

/** The rejection of a task whose thread reported nothing for `ms`, naming the stage it was in. */
export function stallError(task: FailedTask, ms: number): Error {
  if (task.message.type !== 'convert')
    return new ConversionError(
      `${TASK_NAMES[task.message.type]} stopped making progress for ${seconds(ms)} s`,
    );
  if (task.stage === undefined || task.stage === 'import') {
    return new ConversionError(
      `The importer stopped making progress for ${seconds(ms)} s: the file is probably damaged or truncated`,
    );
  }
  return new ConversionError(
    `The conversion stopped making progress for ${seconds(ms)} s (stage ${task.stage})`,
  );
}

/** The rejection of a cancelled task. */
export function abortError(): Error {
  const error = new Error('Conversion was cancelled');
  error.name = 'AbortError';
  return error;
}

/**
 * The error a failed conversion rejects with. A RangeError (the call stack overflowed on a 10,000-deep node tree,
 * an array or buffer of 2^30 elements could not be made) comes from the input and would come again on every
 * attempt, so it is a ConversionError too: the job fails at once instead of being retried three times.
 */
export function failureOf(name: string, message: string): Error {
  if (name === 'ConversionError') return new ConversionError(message);
  if (name === 'RangeError') {
    return new ConversionError(
      `The model is too deeply nested or too large to convert (${message}); no retry can change that`,
    );
  }
  return new Error(`Conversion failed: ${message}`);
}

/** The rejection of a task whose thread or process ran out of heap under `maxMemoryMb`. */
export function outOfMemoryError(maxMemoryMb: number): Error {
  return new ConversionError(
    `The conversion needs more memory than the limit of ${maxMemoryMb} MB ` +
      '(CONVERSION_MAX_MEMORY_MB): it ran out of heap',
  );
}

/**
 * Why a conversion process ended before it answered, from its exit and the end of its standard error: V8 prints
 * its heap failure there before it aborts.
 */
export function processExitError(
  code: number | null,
  signal: string | null,
  stderr: string,
  maxMemoryMb: number,
): Error {
  if (/heap out of memory|Reached heap limit/i.test(stderr)) return outOfMemoryError(maxMemoryMb);
  const how = signal ? `signal ${signal}` : `exit code ${code}`;
  const said = stderr.trim().split('\n').at(-1);
  return new Error(`Conversion process stopped unexpectedly (${how})${said ? `: ${said}` : ''}`);
}
