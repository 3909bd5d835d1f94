import { abortError, failureOf } from './pool-errors.ts';
import { CONVERSION_POOL_DEFAULTS, shouldRecycle, type ConversionPoolOptions } from './pool-options.ts';
import type { ConversionPool } from './pool-types.ts';
import type { Task, Thread } from './pool-places.ts';
import { createPoolRequests, type SubmitTask } from './pool-requests.ts';
import { armTaskClocks } from './task-clocks.ts';
import { cpuClockAt } from './cpu-clock.ts';
import { mayStartNext, retryAloneAfterStall } from './pool-turns.ts';
import { startProcessPlace, startThreadPlace, stopPlace, type PlaceEvents } from './pool-place-lifecycle.ts';
import { isTaskReport, takeTaskReport, withReportedParts } from './task-reports.ts';
import { setNewThreadHeapFlags } from './thread-heap.ts';
import type { ThreadMemory, ThreadMessage } from './thread-protocol.ts';

/** Threads in a row that may die before they are ready before the pool stops replacing them. */
const MAX_START_FAILURES = 3;

/**
 * Starts a pool of conversion threads that load the pipeline, its WebAssembly importers and the renderer once.
 * A thread is replaced after `recycleAfterJobs` jobs, when it keeps more than `recycleAboveMb` after a job, when
 * a job took it more than `recycleAboveGrowthMb` above where it began or left the process more than
 * `recycleAboveRssGrowthMb` larger (`recycleAboveFirstJobRssGrowthMb` for its first job), and whenever a job is
 * terminated (time limit, no progress for `stallMs` of its processor time, out of memory, cancelled): the queue goes
 * on with the next job on a fresh thread; a job stopped for no progress is first tried once more with the pool to
 * itself. A conversion of an input above `isolateAboveBytes` runs in a process of its own, started for
 * it and killed once it answers, in the place of the thread whose turn it was: that thread ends as the process
 * starts, giving back what it held (about 150 MiB once warm) while the big job runs, and a fresh thread takes the
 * place after it. All the memory the job touched leaves with the process.
 */
export function createConversionPool(overrides: Partial<ConversionPoolOptions> = {}): ConversionPool {
  setNewThreadHeapFlags();
  const options = { ...CONVERSION_POOL_DEFAULTS, ...overrides };
  const threads = new Set<Thread>();
  const queue: Task[] = [];
  let started = 0;
  let nextId = 1;
  let closed = false;
  let startFailures = 0;

  const events: PlaceEvents = { onMessage, onEnd: retire };

  function spawn(): void {
    threads.add(startThreadPlace(options.maxMemoryMb, events));
    started++;
  }

  /** Removes a thread for good, failing its task, and starts a replacement when the pool is still open. */
  function retire(thread: Thread, error?: Error): void {
    if (!threads.delete(thread)) return;
    const task = thread.task;
    thread.task = undefined;
    thread.disarm?.();
    stopPlace(thread);
    if (task && error) task.reject(error);
    if (closed) return;
    // A thread that dies before it is ready would die again: after a few in a row, the queue fails instead of
    // spinning, and the next task tries again.
    startFailures = thread.ready ? 0 : startFailures + 1;
    if (startFailures >= MAX_START_FAILURES && threads.size === 0) {
      const cause = error?.message ?? 'unknown error';
      for (const queued of queue.splice(0))
        queued.reject(new Error(`Conversion threads cannot start: ${cause}`));
      return;
    }
    spawn();
    dispatch();
  }

  function dispatch(): void {
    for (const thread of threads) {
      if (queue.length === 0 || !mayStartNext(queue, threads)) return;
      if (!thread.ready || thread.task) continue;
      run(thread, queue.shift()!);
    }
  }

  function run(idle: Thread, task: Task): void {
    const thread = task.isolated ? handToProcess(idle) : idle;
    thread.task = task;
    // What recycling needs to know of a thread's job; a task in its own process shares none of this process's memory.
    if (!task.isolated) {
      thread.jobs++;
      thread.rssAtStart = process.memoryUsage.rss();
      thread.alone = true;
      for (const other of threads) {
        if (other !== thread && other.task && !other.task.isolated) other.alone = thread.alone = false;
      }
    }
    // The process first: the watchdog reads its processor time from the start.
    if (task.isolated) startProcessPlace(thread, task, options.maxMemoryMb, events);
    else thread.worker!.postMessage(task.message);
    armTaskClocks(thread, task, options, (error, stalled) => {
      // A stalled task gives up its place without failing, and waits at the head of the queue for the pool to empty.
      if (stalled && !closed && retryAloneAfterStall(task, error)) {
        thread.task = undefined;
        queue.unshift(task);
      }
      retire(thread, error);
    });
  }

  /**
   * Ends an idle thread and gives its place to a process for an isolated task: its events no longer count once it
   * has left the pool.
   */
  function handToProcess(idle: Thread): Thread {
    threads.delete(idle);
    void idle.worker?.terminate();
    const place: Thread = { ready: true, jobs: 0 };
    threads.add(place);
    return place;
  }

  function onMessage(thread: Thread, message: ThreadMessage): void {
    if (message.type === 'ready') {
      thread.ready = true;
      thread.cpuClock = message.statFile === undefined ? undefined : cpuClockAt(message.statFile);
      dispatch();
      return;
    }
    const task = thread.task;
    if (!task || task.id !== message.id) return;
    thread.feed?.(message.type === 'busy' ? message.ms : undefined);
    if (isTaskReport(message)) {
      takeTaskReport(thread, task, message);
      return;
    }
    thread.disarm?.();
    thread.task = undefined;
    const recycle = recyclesAfter(options, thread, task, message.memory);
    const reply =
      message.type === 'failed' ? failureOf(message.name, message.message) : withReportedParts(task, message);
    if (reply instanceof Error) task.reject(reply);
    else task.resolve(reply);
    if (recycle) retire(thread);
    else dispatch();
  }

  const submit: SubmitTask = (build, settings) => {
    if (closed) return Promise.reject(new Error('The conversion pool is closed'));
    if (settings.signal?.aborted) return Promise.reject(abortError());
    return new Promise<ThreadMessage>((resolve, reject) => {
      const id = nextId++;
      const task: Task = { ...settings, id, message: build(id), resolve, reject };
      leaveQueueOnAbort(queue, task);
      queue.push(task);
      if (threads.size === 0) {
        startFailures = 0;
        for (let i = 0; i < options.size; i++) spawn();
      }
      dispatch();
    });
  };

  for (let i = 0; i < options.size; i++) spawn();

  return {
    ...createPoolRequests(submit, options),

    stats() {
      const processes = [...threads].filter((thread) => thread.child).length;
      return { threads: threads.size, started, queued: queue.length, processes };
    },

    async close() {
      closed = true;
      for (const task of queue.splice(0)) task.reject(new Error('The conversion pool is closed'));
      const workers = [...threads].flatMap((thread) => thread.worker ?? []);
      for (const thread of [...threads]) retire(thread, abortError());
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}

/** Whether the place that just finished `task` is to be replaced rather than given the next task. */
function recyclesAfter(
  options: ConversionPoolOptions,
  thread: Thread,
  task: Task,
  memory: ThreadMemory,
): boolean {
  // A process's place always goes back to a fresh thread.
  return (
    task.isolated === true ||
    shouldRecycle(options, {
      jobs: thread.jobs,
      memory,
      alone: thread.alone === true,
      rssGrowth: process.memoryUsage.rss() - (thread.rssAtStart ?? 0),
    })
  );
}

/** Makes a task cancelled while it waits leave the queue without costing a thread. */
function leaveQueueOnAbort(queue: Task[], task: Task): void {
  task.signal?.addEventListener(
    'abort',
    () => {
      const index = queue.indexOf(task);
      if (index >= 0) {
        queue.splice(index, 1);
        task.reject(abortError());
      }
    },
    { once: true },
  );
}
