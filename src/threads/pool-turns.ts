// Whose turn it is in the conversion pool: a task runs beside others, except the one retry of a task the watchdog
// stopped, which runs with the pool to itself.
import type { Task, Thread } from './pool-places.ts';

/**
 * Whether the task at the head of `queue` may start now on a free place: nothing starts beside an exclusive task,
 * and an exclusive task waits until every place is free. The tasks behind it wait too, so it is not starved.
 */
export function mayStartNext(queue: readonly Task[], places: Iterable<Thread>): boolean {
  let busy = false;
  for (const place of places) {
    if (!place.task) continue;
    if (place.task.exclusive) return false;
    busy = true;
  }
  return !(busy && queue[0]?.exclusive === true);
}

/**
 * Makes a task the watchdog stopped try once more with the pool to itself, saying so in the task's log, and returns
 * true; false when it had that try already (or was cancelled), and is to fail. A busy machine is what makes a valid
 * file look wedged: alone, it has the pool's cores, and only a file that stalls then too is called damaged.
 */
export function retryAloneAfterStall(task: Task, stall: Error): boolean {
  if (task.exclusive || task.signal?.aborted) return false;
  task.exclusive = true;
  task.stage = undefined;
  // The second try sends every part again.
  task.parts = undefined;
  task.logger.warn(
    `${stall.message}; trying once more with the conversion pool to itself (no other task beside it) ` +
      'before failing it',
  );
  return true;
}
