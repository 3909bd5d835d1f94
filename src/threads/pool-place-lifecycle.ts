// The life of a place in the conversion pool: a warm thread started and ended, or a process started in a thread's
// stead for one isolated task. Which task a place runs, and when it is replaced, is the pool's to decide.
import { processCpuClock } from './cpu-clock.ts';
import { outOfMemoryError } from './pool-errors.ts';
import type { Task, Thread } from './pool-places.ts';
import { startThread } from './start-thread.ts';
import { startTaskProcess } from './task-process.ts';
import type { ParentMessage, ThreadMessage } from './thread-protocol.ts';

/** What a place tells the pool: a message from what runs its task, or its end (with why, when it failed). */
export interface PlaceEvents {
  onMessage(place: Thread, message: ThreadMessage): void;
  onEnd(place: Thread, error?: Error): void;
}

/** Starts a conversion thread, its heap capped at `maxMemoryMb`; it says `ready` once it has loaded the pipeline. */
export function startThreadPlace(maxMemoryMb: number, events: PlaceEvents): Thread {
  const worker = startThread(import.meta.url, 'conversion-thread', {
    resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb },
  });
  const thread: Thread = { worker, ready: false, jobs: 0 };
  worker.on('message', (message: ThreadMessage) => events.onMessage(thread, message));
  worker.on('error', (error: Error & { code?: string }) => {
    const outOfMemory =
      error.code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|heap/i.test(error.message);
    events.onEnd(
      thread,
      outOfMemory ? outOfMemoryError(maxMemoryMb) : new Error(`Conversion crashed: ${error.message}`),
    );
  });
  worker.on('exit', (code) =>
    events.onEnd(thread, new Error(`Conversion stopped unexpectedly (exit code ${code})`)),
  );
  return thread;
}

/** Starts the process that runs `task` for `place`; the place's clock is then the whole process's processor time. */
export function startProcessPlace(place: Thread, task: Task, maxMemoryMb: number, events: PlaceEvents): void {
  place.child = startTaskProcess(task.message, maxMemoryMb, {
    onMessage: (message) => events.onMessage(place, message),
    onEnd: (error) => events.onEnd(place, error),
  });
  place.cpuClock = processCpuClock(place.child.pid);
}

/** Kills the process running the place's isolated task, if any, and terminates its thread. */
export function stopPlace(place: Thread): void {
  place.child?.stop();
  place.child = undefined;
  void place.worker?.terminate();
}

/** Posts to whatever runs the place's task: its process when the task is isolated, else the thread. */
export function sendToPlace(place: Thread, message: ParentMessage): void {
  if (place.child) place.child.send(message);
  else place.worker?.postMessage(message);
}
