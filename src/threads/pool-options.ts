import type { ThreadMemory } from './thread-protocol.ts';

const MIB = 1024 * 1024;

/** Limits and sizing of a {@link ConversionPool}. */
export interface ConversionPoolOptions {
  /** Threads kept warm; jobs beyond it wait for a free thread (`WORKER_CONCURRENCY`). */
  size: number;
  /**
   * Processor time one conversion may use, with a wall-clock ceiling of `wallCeilingFactor` times it (a wall-clock
   * limit where /proc is absent); the thread is terminated when either runs out.
   */
  timeoutMs: number;
  /**
   * How many times its time limit a task may take on the wall clock (`CONVERSION_WALL_CEILING_FACTOR`): what ends
   * a task that waits without computing (a read that never ends); a task on a machine this many times
   * oversubscribed still finishes.
   */
  wallCeilingFactor: number;
  /** Limit of one thumbnail render, counted as `timeoutMs` is. */
  renderTimeoutMs: number;
  /** Heap limit of each thread, and the heap plus WebAssembly memory one job may reach, in MiB. */
  maxMemoryMb: number;
  /**
   * Processor time a task may use without reporting progress before its thread is replaced and the task tried once
   * more alone, then failed (the wall clock where /proc is absent); a task waiting without using the processor is
   * left to `timeoutMs`.
   */
  stallMs: number;
  /** Jobs a thread runs before it is replaced by a fresh one. */
  recycleAfterJobs: number;
  /** Memory a thread may keep after a job (WebAssembly memory never shrinks) before it is replaced, in MiB. */
  recycleAboveMb: number;
  /**
   * Memory a job may add to its thread at its peak before the thread is replaced after it, in MiB: what a big
   * job leaves (grown WebAssembly heaps, garbage the thread's collector has not returned) goes with the thread,
   * so the process falls back to its idle size.
   */
  recycleAboveGrowthMb: number;
  /**
   * Growth of the process's resident memory across a job (from its start to its end) above which its thread is
   * replaced, in MiB; applied only to a job that ran alone (the growth is then its own). This catches what the
   * thread's own count misses: garbage its collector has not returned, and allocator memory.
   */
  recycleAboveRssGrowthMb: number;
  /**
   * The same bound for a thread's first job, which also pays for what the thread keeps once loaded (compiled
   * code, its heaps grown to working size, the renderer's buffers): 16–70 MiB for the sample models. A job that
   * loads a WebAssembly importer is not held to either bound: the runtime stays loaded for the jobs after it.
   */
  recycleAboveFirstJobRssGrowthMb: number;
  /**
   * Size of an input (its file; a .gltf with its buffers) above which its conversion runs in a process of its own,
   * in bytes (only for conversions that write their LODs to files). The process is gone when the job ends, and with it all
   * the memory the job touched: a thread gives back its heaps when it is replaced, but the C allocator keeps what
   * it freed in its arenas, tens of megabytes after a big job. The idle thread whose turn it was ends as the
   * process starts, giving back what it held, and a fresh thread takes the place after the job.
   */
  isolateAboveBytes: number;
}

/** Defaults of {@link ConversionPoolOptions}. */
export const CONVERSION_POOL_DEFAULTS: ConversionPoolOptions = {
  size: 1,
  timeoutMs: 600_000,
  wallCeilingFactor: 3,
  renderTimeoutMs: 60_000,
  maxMemoryMb: 4096,
  stallMs: 15_000,
  recycleAfterJobs: 100,
  recycleAboveMb: 384,
  recycleAboveGrowthMb: 256,
  recycleAboveRssGrowthMb: 48,
  recycleAboveFirstJobRssGrowthMb: 128,
  isolateAboveBytes: 64 * MIB,
};

/** What a thread reports of the job it has just finished, for {@link shouldRecycle}. */
export interface FinishedJob {
  /** Jobs the thread has run, this one included. */
  jobs: number;
  /** The thread's own count of its memory. */
  memory: ThreadMemory;
  /** Whether the job had the process to itself from start to end. */
  alone: boolean;
  /** Growth of the process's resident memory from the job's start to its end, in bytes. */
  rssGrowth: number;
}

/**
 * Whether a thread should be replaced after a job. A job near the memory limit leaves garbage the next job would
 * be charged for, and a big job leaves WebAssembly heaps that never shrink: a fresh thread starts clean and gives
 * the memory back.
 */
export function shouldRecycle(options: ConversionPoolOptions, job: FinishedJob): boolean {
  return (
    job.jobs >= options.recycleAfterJobs ||
    job.memory.retainedMb > Math.min(options.recycleAboveMb, options.maxMemoryMb / 2) ||
    job.memory.grewMb > options.recycleAboveGrowthMb ||
    (job.alone && !job.memory.loadedRuntime && job.rssGrowth > rssBoundMb(options, job.jobs) * MIB)
  );
}

/** How much a job may leave the process larger before its thread is replaced: a first job may leave more. */
function rssBoundMb(options: ConversionPoolOptions, jobs: number): number {
  return jobs === 1 ? options.recycleAboveFirstJobRssGrowthMb : options.recycleAboveRssGrowthMb;
}
