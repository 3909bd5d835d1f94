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

/** The rejection of a task that ran past its time limit. */
export function timeoutError(task: FailedTask): Error {
  const what = TASK_NAMES[task.message.type];
  return new ConversionError(`${what} timed out after ${seconds(task.timeoutMs)} s`);
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
