// What a place reports while its task runs (progress, busy, log lines, a request for thumbnail colours), passed
// on to the task's caller; the final reply, which frees the place, is the pool's.
import type { ConversionStage } from '../pipeline/convert-model.ts';
import type { MaterialOverride } from '../render/render-thumbnail.ts';
import type { Task, Thread } from './pool-places.ts';
import { sendToPlace } from './pool-place-lifecycle.ts';
import type { ThreadMessage } from './thread-protocol.ts';

/** A message about a running task that is not its final reply. */
export type TaskReport = Extract<ThreadMessage, { type: 'progress' | 'busy' | 'log' | 'colours' }>;

const REPORT_TYPES = new Set<ThreadMessage['type']>(['progress', 'busy', 'log', 'colours']);

/** Whether a place's message is a report on its task rather than `ready` or the task's final reply. */
export function isTaskReport(message: ThreadMessage): message is TaskReport {
  return REPORT_TYPES.has(message.type);
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
