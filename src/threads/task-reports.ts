// What a place reports while its task runs (progress, busy, log lines, a request for thumbnail colours), passed
// on to the task's caller; the final reply, which frees the place, is the pool's.
import type { ConversionStage } from '../pipeline/convert-model.ts';
import type { MaterialOverride } from '../render/render-thumbnail.ts';
import type { Task, Thread } from './pool-places.ts';
import { sendToPlace } from './pool-place-lifecycle.ts';
import type { ThreadMessage } from './thread-protocol.ts';

/** A message about a running task that is not its final reply. */
export type TaskReport = Extract<ThreadMessage, { type: 'progress' | 'busy' | 'log' | 'colours' | 'parts' }>;

const REPORT_TYPES = new Set<ThreadMessage['type']>(['progress', 'busy', 'log', 'colours', 'parts']);

/** Whether a place's message is a report on its task rather than `ready` or the task's final reply. */
export function isTaskReport(message: ThreadMessage): message is TaskReport {
  return REPORT_TYPES.has(message.type);
}

/**
 * The task's final reply with what came ahead of it put back: a conversion's parts, received in pieces. A count
 * that differs from the one the place sent fails the task rather than store a model with parts missing.
 */
export function withReportedParts(task: Task, message: ThreadMessage): ThreadMessage | Error {
  if (message.type !== 'converted') return message;
  const parts = task.parts ?? [];
  task.parts = undefined;
  if (parts.length !== message.partCount) {
    return new Error(`A conversion thread sent ${parts.length} of its ${message.partCount} parts`);
  }
  return { ...message, result: { ...message.result, parts } };
}

/** Passes a report of the running `task` on `place` to the task's caller. */
export function takeTaskReport(place: Thread, task: Task, message: TaskReport): void {
  switch (message.type) {
    case 'progress':
      task.stage = message.stage;
      task.onProgress?.(message.percent, message.stage as ConversionStage);
      return;
    case 'busy':
      return;
    case 'parts':
      task.parts ??= [];
      for (const part of message.parts) task.parts.push(part);
      return;
    case 'log':
      task.logger[message.level](message.text);
      return;
    case 'colours': {
      // The thread waits for the database here, which has its own time limits: a database that stalls for a
      // while is not a wedged conversion.
      const release = place.holdClocks?.();
      void (task.thumbnailColours?.(message.groupIds) ?? Promise.resolve(new Map()))
        .catch(() => new Map<string, MaterialOverride>())
        .then((overrides) => {
          if (place.task !== task) return;
          release?.();
          sendToPlace(place, { type: 'colours', id: task.id, overrides: [...overrides] });
        });
      return;
    }
  }
}
