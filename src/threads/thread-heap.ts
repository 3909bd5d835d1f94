import v8 from 'node:v8';

/** The old generation a conversion thread starts with, in MiB. */
export const THREAD_INITIAL_OLD_SPACE_MB = 64;

let applied = false;

/**
 * Lets the conversion threads started from now on begin with a 64 MiB old generation. V8 sizes a new heap's first
 * collection limits from a few megabytes, and a thread that has loaded the pipeline stays near its 17 MiB of
 * live objects, so each milk-truck job (glTF-Transform documents that outlive a scavenge, a decoded texture) ran a
 * full mark-compact of the whole heap, with V8's helper threads marking beside it: a fifth of a job's CPU time.
 * With room to grow, the garbage of several jobs goes in one collection. A worker thread's limits cannot set this,
 * so it is the V8 flag, which a new isolate reads when its heap is made: it changes nothing in heaps that exist
 * (the main thread's), and `recycleAboveMb` still bounds what a thread may keep.
 */
export function giveNewThreadsRoomyHeaps(): void {
  if (applied) return;
  v8.setFlagsFromString(`--initial-old-space-size=${THREAD_INITIAL_OLD_SPACE_MB}`);
  applied = true;
}
