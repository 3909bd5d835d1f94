// The clocks of a running task: its time limit, its no-progress watchdog, and the holds that stop both while the
// place waits on this process (the database, the storage) rather than on the task.
import { abortError, stallError, timeoutError } from './pool-errors.ts';
import type { Task, Thread } from './pool-places.ts';

/**
 * Starts the time limit and the watchdog of `task` on `thread` and sets the thread's `disarm`, `feed` and
 * `holdClocks`; `fail` ends the task when a clock runs out or its signal aborts.
 */
export function armTaskClocks(
  thread: Thread,
  task: Task,
  stallMs: number,
  fail: (error: Error) => void,
): void {
  let silenceMs = stallMs;
  // The time limit counts the task's own time only: what is left of it, and since when it runs.
  let timeLeftMs = task.timeoutMs;
  let runningSince = Date.now();
  let timer = setTimeout(() => fail(timeoutError(task)), timeLeftMs);
  let watchdog = setTimeout(() => fail(stallError(task, silenceMs)), silenceMs);
  // Waits on this thread's own work (reading bound materials) under way; the clocks stand while any is.
  let holds = 0;
  const onAbort = () => fail(abortError());
  task.signal?.addEventListener('abort', onAbort, { once: true });
  thread.disarm = () => {
    clearTimeout(timer);
    clearTimeout(watchdog);
    task.signal?.removeEventListener('abort', onAbort);
    thread.disarm = undefined;
    thread.feed = undefined;
    thread.holdClocks = undefined;
  };
  thread.feed = (busyMs?: number) => {
    if (busyMs !== undefined) silenceMs = Math.max(stallMs, busyMs);
    if (holds > 0) return;
    clearTimeout(watchdog);
    watchdog = setTimeout(() => fail(stallError(task, silenceMs)), silenceMs);
  };
  thread.holdClocks = () => {
    if (holds++ === 0) {
      clearTimeout(timer);
      clearTimeout(watchdog);
      timeLeftMs -= Date.now() - runningSince;
    }
    let released = false;
    return () => {
      // Released once, and only while the task still runs (disarm has not cleared the clocks for good).
      if (released || thread.task !== task) return;
      released = true;
      if (--holds > 0) return;
      runningSince = Date.now();
      timer = setTimeout(() => fail(timeoutError(task)), Math.max(0, timeLeftMs));
      watchdog = setTimeout(() => fail(stallError(task, silenceMs)), silenceMs);
    };
  };
}
