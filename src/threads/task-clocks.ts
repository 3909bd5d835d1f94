// The clocks of a running task: its time limit, its no-progress watchdog, and the holds that stop both while the
// place waits on this process (the database, the storage) rather than on the task.
import { abortError, stallError, timeoutError } from './pool-errors.ts';
import type { Task, Thread } from './pool-places.ts';

/** The shortest wait before the watchdog looks again: a task a hair short of its limit is not polled in a loop. */
const MIN_RECHECK_MS = 20;

/**
 * Starts the time limit and the watchdog of `task` on `thread` and sets the thread's `disarm`, `feed` and
 * `holdClocks`; `fail` ends the task when a clock runs out or its signal aborts
 * (with `stalled` true when the watchdog ran out).
 *
 * Both clocks judge the task by the processor time its thread (or process) used, read from `thread.cpuClock`, not
 * by the wall clock: on a loaded machine a thread that waits for a core looks wedged, or slow, to a wall clock.
 * The watchdog reads the processor time used since the task's last report when its timer fires; below the silence
 * allowed it waits again for the remainder (the soonest that time could run out), and it fails the task only once
 * the task has burned the whole silence without a word. The time limit counts the processor time of the whole task
 * the same way, with a ceiling of `wallCeilingFactor` times the limit on the wall clock, which is what ends
 * a task that waits without computing. Without a clock (no /proc: macOS) both keep to the wall clock, and the
 * limit is the wall-clock limit. Time the task spends waiting on this process (holds) counts on neither.
 */
export function armTaskClocks(
  thread: Thread,
  task: Task,
  limits: { stallMs: number; wallCeilingFactor: number },
  fail: (error: Error, stalled?: boolean) => void,
): void {
  const { stallMs, wallCeilingFactor } = limits;
  let silenceMs = stallMs;
  // The time limit counts the task's own time only: what it has used outside holds, on each clock, and since when
  // it runs again.
  const ceilingMs = task.timeoutMs * wallCeilingFactor;
  let wallUsedMs = 0;
  let cpuUsedMs = 0;
  let runningSince = Date.now();
  let cpuSince = thread.cpuClock?.();
  let timer = startTimeLimit(task.timeoutMs);
  // The processor time of the place at the task's last report, when the place has a clock.
  let cpuAtReport = cpuSince;
  let watchdog = startWatchdog(silenceMs);
  // Waits on this thread's own work (reading bound materials) under way; the clocks stand while any is.
  let holds = 0;
  const onAbort = () => fail(abortError());
  task.signal?.addEventListener('abort', onAbort, { once: true });

  function startTimeLimit(waitMs: number): NodeJS.Timeout {
    return setTimeout(checkTimeLimit, Math.max(0, waitMs));
  }

  /** Adds the time used since the last reading to the task's totals; false once the clock cannot be read. */
  function countTimeUsed(): boolean {
    const now = Date.now();
    wallUsedMs += now - runningSince;
    runningSince = now;
    const cpuNow = thread.cpuClock?.();
    if (cpuNow === undefined || cpuSince === undefined) return false;
    cpuUsedMs += cpuNow - cpuSince;
    cpuSince = cpuNow;
    return true;
  }

  function checkTimeLimit(): void {
    if (!countTimeUsed()) {
      // No processor clock (or it went away): the limit is a wall-clock limit.
      if (wallUsedMs >= task.timeoutMs) fail(timeoutError(task));
      else timer = startTimeLimit(task.timeoutMs - wallUsedMs);
      return;
    }
    if (cpuUsedMs >= task.timeoutMs) fail(timeoutError(task));
    else if (wallUsedMs >= ceilingMs) fail(timeoutError(task, wallCeilingFactor));
    else timer = startTimeLimit(nextTimeLimitCheck());
  }

  /** The soonest either total could reach its limit: processor time never runs faster than the wall clock. */
  function nextTimeLimitCheck(): number {
    if (cpuSince === undefined) return task.timeoutMs - wallUsedMs;
    return Math.max(MIN_RECHECK_MS, Math.min(task.timeoutMs - cpuUsedMs, ceilingMs - wallUsedMs));
  }

  function startWatchdog(waitMs: number): NodeJS.Timeout {
    return setTimeout(check, waitMs);
  }

  function check(): void {
    const cpuNow = thread.cpuClock?.();
    if (cpuNow === undefined || cpuAtReport === undefined) {
      fail(stallError(task, silenceMs), true);
      return;
    }
    const usedMs = cpuNow - cpuAtReport;
    if (usedMs >= silenceMs) fail(stallError(task, silenceMs), true);
    else watchdog = startWatchdog(Math.max(MIN_RECHECK_MS, silenceMs - usedMs));
  }

  function restartWatchdog(): void {
    clearTimeout(watchdog);
    cpuAtReport = thread.cpuClock?.();
    watchdog = startWatchdog(silenceMs);
  }

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
    restartWatchdog();
  };
  thread.holdClocks = () => {
    if (holds++ === 0) {
      clearTimeout(timer);
      clearTimeout(watchdog);
      countTimeUsed();
    }
    let released = false;
    return () => {
      // Released once, and only while the task still runs (disarm has not cleared the clocks for good).
      if (released || thread.task !== task) return;
      released = true;
      if (--holds > 0) return;
      runningSince = Date.now();
      cpuSince = thread.cpuClock?.();
      timer = startTimeLimit(nextTimeLimitCheck());
      restartWatchdog();
    };
  };
}
