import os from 'node:os';
import v8 from 'node:v8';

/** The old generation a conversion thread starts with, in MiB. */
export const THREAD_INITIAL_OLD_SPACE_MB = 64;

let applied = false;

/**
 * Lets the conversion threads started from now on begin with a 64 MiB old generation and mark their heaps with
 * {@link markingHelpers} helper threads at most. V8 sizes a new heap's first collection limits from a few megabytes,
 * and a thread that has loaded the pipeline stays near its 17 MiB of live objects, so each milk-truck job
 * (glTF-Transform documents that outlive a scavenge, a decoded texture) ran a full mark-compact of the whole heap,
 * with V8's helper threads marking beside it: a fifth of a job's CPU time. With room to grow, the garbage of several
 * jobs goes in one collection. A worker thread's limits cannot set either, so they are V8 flags, which a new isolate
 * reads when its heap is made: they change nothing in heaps that exist (the main thread's), and `recycleAboveMb`
 * still bounds what a thread may keep. A conversion in a process of its own gets them on its command line.
 */
export function setNewThreadHeapFlags(): void {
  if (applied) return;
  v8.setFlagsFromString(`--initial-old-space-size=${THREAD_INITIAL_OLD_SPACE_MB}`);
  v8.setFlagsFromString(`--concurrent-marking-max-worker-num=${markingHelpers()}`);
  applied = true;
}

/**
 * Helper threads a conversion's heap may mark with beside it: one core is the conversion's own, the others mark.
 * V8 marks with as many helpers as Node's platform has threads (4), whatever the cores: on 2 cores, 100,000 parts
 * (about 800 MiB of live objects, marked in full seven times after the import) had the conversion's thread wait on
 * its core behind them, a 1 M-triangle reorder taking 850 ms where it takes 130.
 */
export function markingHelpers(cores = os.availableParallelism()): number {
  return Math.max(1, cores - 1);
}
