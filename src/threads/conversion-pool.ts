import { Logger, type ILogger } from '@gltf-transform/core';
import type { ConversionStage } from '../pipeline/convert-model.ts';
import type { MaterialOverride } from '../render/render-thumbnail.ts';
import { inputBytes } from './input-bytes.ts';
import { abortError, failureOf, outOfMemoryError, stallError, timeoutError } from './pool-errors.ts';
import { CONVERSION_POOL_DEFAULTS, shouldRecycle, type ConversionPoolOptions } from './pool-options.ts';
import type {
  ConversionPool,
  PoolConversionRequest,
  PooledConversion,
  PooledFileConversion,
} from './pool-types.ts';
import type { Task, Thread } from './pool-places.ts';
import { startThread } from './start-thread.ts';
import { startTaskProcess } from './task-process.ts';
import { giveNewThreadsRoomyHeaps } from './thread-heap.ts';
import type { ParentMessage, ThreadMessage } from './thread-protocol.ts';

/** Threads in a row that may die before they are ready before the pool stops replacing them. */
const MAX_START_FAILURES = 3;

/**
 * Starts a pool of conversion threads that load the pipeline, its WebAssembly importers and the renderer once.
 * A thread is replaced after `recycleAfterJobs` jobs, when it keeps more than `recycleAboveMb` after a job, when
 * a job took it more than `recycleAboveGrowthMb` above where it began or left the process more than
 * `recycleAboveRssGrowthMb` larger (`recycleAboveFirstJobRssGrowthMb` for its first job), and whenever a job is
 * terminated (time limit, no progress for `stallMs`, out of memory, cancelled): the queue goes on with the next job
 * on a fresh thread. A conversion of an input above `isolateAboveBytes` runs in a process of its own, started for
 * it and killed once it answers, in the place of the thread whose turn it was: that thread ends as the process
 * starts, giving back what it held (about 150 MiB once warm) while the big job runs, and a fresh thread takes the
 * place after it. All the memory the job touched leaves with the process.
 */
export function createConversionPool(overrides: Partial<ConversionPoolOptions> = {}): ConversionPool {
  giveNewThreadsRoomyHeaps();
  const options = { ...CONVERSION_POOL_DEFAULTS, ...overrides };
  const threads = new Set<Thread>();
  const queue: Task[] = [];
  let started = 0;
  let nextId = 1;
  let closed = false;
  let startFailures = 0;

  function spawn(): void {
    const worker = startThread(import.meta.url, 'conversion-thread', {
      resourceLimits: { maxOldGenerationSizeMb: options.maxMemoryMb },
    });
    const thread: Thread = { worker, ready: false, jobs: 0 };
    started++;
    threads.add(thread);
    worker.on('message', (message: ThreadMessage) => onMessage(thread, message));
    worker.on('error', (error: Error & { code?: string }) => {
      const outOfMemory =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|heap/i.test(error.message);
      retire(
        thread,
        outOfMemory
          ? outOfMemoryError(options.maxMemoryMb)
          : new Error(`Conversion crashed: ${error.message}`),
      );
    });
    worker.on('exit', (code) =>
      retire(thread, new Error(`Conversion stopped unexpectedly (exit code ${code})`)),
    );
  }

  /** Removes a thread for good, failing its task, and starts a replacement when the pool is still open. */
  function retire(thread: Thread, error?: Error): void {
    if (!threads.delete(thread)) return;
    const task = thread.task;
    thread.task = undefined;
    thread.disarm?.();
    stopChild(thread);
    void thread.worker?.terminate();
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
      if (queue.length === 0) return;
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
    let silenceMs = options.stallMs;
    const fail = (error: Error) => retire(thread, error);
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
      if (busyMs !== undefined) silenceMs = Math.max(options.stallMs, busyMs);
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
    if (task.isolated) startChild(thread, task);
    else thread.worker!.postMessage(task.message);
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

  /** Starts the process that runs `task` for `thread`. */
  function startChild(thread: Thread, task: Task): void {
    thread.child = startTaskProcess(task.message, options.maxMemoryMb, {
      onMessage: (message) => onMessage(thread, message),
      onEnd: (error) => retire(thread, error),
    });
  }

  /** Kills the process running the thread's isolated task, if any. */
  function stopChild(thread: Thread): void {
    thread.child?.stop();
    thread.child = undefined;
  }

  /** Posts to whatever runs the thread's task: its process when the task is isolated, else the thread. */
  function send(thread: Thread, message: ParentMessage): void {
    if (thread.child) thread.child.send(message);
    else thread.worker?.postMessage(message);
  }

  function onMessage(thread: Thread, message: ThreadMessage): void {
    if (message.type === 'ready') {
      thread.ready = true;
      dispatch();
      return;
    }
    const task = thread.task;
    if (!task || task.id !== message.id) return;
    thread.feed?.(message.type === 'busy' ? message.ms : undefined);
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
        const release = thread.holdClocks?.();
        void (task.thumbnailColours?.(message.groupIds) ?? Promise.resolve(new Map()))
          .catch(() => new Map<string, MaterialOverride>())
          .then((overrides) => {
            if (thread.task !== task) return;
            release?.();
            send(thread, { type: 'colours', id: task.id, overrides: [...overrides] });
          });
        return;
      }
      default: {
        thread.disarm?.();
        thread.task = undefined;
        // A process's place always goes back to a fresh thread.
        const recycle =
          task.isolated ||
          shouldRecycle(options, {
            jobs: thread.jobs,
            memory: message.memory,
            alone: thread.alone === true,
            rssGrowth: process.memoryUsage.rss() - (thread.rssAtStart ?? 0),
          });
        if (message.type === 'failed') {
          task.reject(failureOf(message.name, message.message));
        } else {
          task.resolve(message);
        }
        if (recycle) retire(thread);
        else dispatch();
      }
    }
  }

  function submit(
    build: (id: number) => ParentMessage,
    settings: Omit<Task, 'id' | 'message' | 'resolve' | 'reject'>,
  ): Promise<ThreadMessage> {
    if (closed) return Promise.reject(new Error('The conversion pool is closed'));
    if (settings.signal?.aborted) return Promise.reject(abortError());
    return new Promise<ThreadMessage>((resolve, reject) => {
      const id = nextId++;
      const task: Task = { ...settings, id, message: build(id), resolve, reject };
      // A task cancelled while it waits leaves the queue without costing a thread.
      settings.signal?.addEventListener(
        'abort',
        () => {
          const index = queue.indexOf(task);
          if (index >= 0) {
            queue.splice(index, 1);
            reject(abortError());
          }
        },
        { once: true },
      );
      queue.push(task);
      if (threads.size === 0) {
        startFailures = 0;
        for (let i = 0; i < options.size; i++) spawn();
      }
      dispatch();
    });
  }

  for (let i = 0; i < options.size; i++) spawn();

  /** The pool's conversion, both ways of returning LODs; the interface's overloads tell callers which they get. */
  async function convert(
    request: PoolConversionRequest & { lodDir?: string; tilesAboveTriangles?: number },
  ): Promise<PooledConversion | PooledFileConversion> {
    const logger = request.logger ?? new Logger(Logger.Verbosity.WARN);
    const isolated =
      request.lodDir !== undefined && (await inputBytes(request.source)) > options.isolateAboveBytes;
    const reply = await submit(
      (id) => ({
        type: 'convert',
        id,
        input: {
          modelId: request.modelId,
          source: request.source,
          lods: request.lods,
          compressLods: request.compressLods,
          lodTextures: request.lodTextures,
          maxTriangles: request.maxTriangles,
          logLevel: verbosityOf(logger),
          thumbnail: request.thumbnailColours !== undefined,
          maxMemoryMb: options.maxMemoryMb,
          lodDir: request.lodDir,
          tilesAboveTriangles: request.tilesAboveTriangles,
        },
      }),
      {
        timeoutMs: options.timeoutMs,
        signal: request.signal,
        logger,
        onProgress: request.onProgress,
        thumbnailColours: request.thumbnailColours,
        isolated,
      },
    );
    if (reply.type !== 'converted')
      throw new Error(`Unexpected reply from a conversion thread: ${reply.type}`);
    const thumbnail = reply.thumbnail
      ? Buffer.from(reply.thumbnail.buffer, reply.thumbnail.byteOffset, reply.thumbnail.byteLength)
      : null;
    const processPeakRssMb = reply.memory.processPeakRssMb;
    return {
      ...reply.result,
      thumbnail,
      thumbnailError: reply.thumbnailError,
      ...(processPeakRssMb !== undefined && { processPeakRssMb }),
    } as PooledConversion | PooledFileConversion;
  }

  return {
    convert: convert as ConversionPool['convert'],

    async render(glb, renderOptions = {}, signal, logger = new Logger(Logger.Verbosity.WARN)) {
      const reply = await submit((id) => ({ type: 'render', id, glb, options: renderOptions }), {
        timeoutMs: options.renderTimeoutMs,
        signal,
        logger,
      });
      if (reply.type !== 'rendered')
        throw new Error(`Unexpected reply from a conversion thread: ${reply.type}`);
      return Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength);
    },

    async exportModel(glb, exportOptions, signal) {
      const reply = await submit((id) => ({ type: 'export', id, glb, options: exportOptions }), {
        timeoutMs: options.timeoutMs,
        signal,
        logger: new Logger(Logger.Verbosity.WARN),
      });
      if (reply.type !== 'exported')
        throw new Error(`Unexpected reply from a conversion thread: ${reply.type}`);
      return reply.bytes;
    },

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

function verbosityOf(logger: ILogger): number {
  return logger instanceof Logger ? (logger as unknown as { verbosity: number }).verbosity : 3;
}
