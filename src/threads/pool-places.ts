// What the conversion pool keeps per task and per place (a warm thread, or a process in a thread's stead).
import type { Worker } from 'node:worker_threads';
import type { ILogger } from '@gltf-transform/core';
import type { CpuClock } from './cpu-clock.ts';
import type { PoolConversionRequest } from './pool-types.ts';
import type { ConversionResult } from '../pipeline/types.ts';
import type { TaskProcess } from './task-process.ts';
import type { ParentMessage, ThreadMessage } from './thread-protocol.ts';

/** A conversion, thumbnail or export handed to the pool, waiting for or held by a place. */
export interface Task {
  id: number;
  /** The stage the thread last reported. */
  stage?: string;
  /** The finished conversion's parts received so far, ahead of its `converted` reply. */
  parts?: ConversionResult['parts'];
  message: ParentMessage;
  timeoutMs: number;
  signal?: AbortSignal;
  logger: ILogger;
  onProgress?: PoolConversionRequest['onProgress'];
  thumbnailColours?: PoolConversionRequest['thumbnailColours'];
  /** Runs in a process of its own, in the stead of the thread that takes it. */
  isolated?: boolean;
  /**
   * Runs with the pool to itself, no other task beside it and the queue waiting behind it: the second and last try
   * of a task the watchdog stopped.
   */
  exclusive?: boolean;
  resolve(message: ThreadMessage): void;
  reject(error: Error): void;
}

/** A place in the pool: a warm thread, or a process running one isolated task in a thread's stead. */
export interface Thread {
  /** The thread; absent in a place held by a process. */
  worker?: Worker;
  ready: boolean;
  jobs: number;
  task?: Task;
  /** Resident memory of the process when the running task started, in bytes. */
  rssAtStart?: number;
  /** Whether the running task has had the process to itself: only then is its resident-memory growth its own. */
  alone?: boolean;
  /** Ends the running task's timers. */
  disarm?: () => void;
  /** Restarts the no-progress watchdog; a `busy` message sets the silence it allows from then on. */
  feed?: (busyMs?: number) => void;
  /**
   * Stops the task's clocks (time limit and watchdog) while the thread waits on this one: the wait is the
   * database's or the storage's, not the task's. The function it returns starts them again.
   */
  holdClocks?: () => () => void;
  /** The process running this place's isolated task. */
  child?: TaskProcess;
  /** The processor time of the thread, or of the process running its task, that the watchdog reads; none without /proc. */
  cpuClock?: CpuClock;
}
