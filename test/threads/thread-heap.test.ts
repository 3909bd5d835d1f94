import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { setNewThreadHeapFlags, markingHelpers } from '../../src/threads/thread-heap.ts';

// In a fresh thread: build up ~25 MiB of live objects (as a conversion's documents are, while it runs) and answer
// the full collections (mark-compacts, incremental marking included) that began while building them, and in all.
// Only allocations start a collection inside the synchronous loop; a memory-reducing one that an idle or loaded
// thread runs later is counted in the total alone, so the count inside the loop does not depend on load.
const GROW = `
const { PerformanceObserver, constants, performance } = require('node:perf_hooks');
const { parentPort } = require('node:worker_threads');
const starts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail.kind !== constants.NODE_PERFORMANCE_GC_MINOR) starts.push(entry.startTime);
  }
}).observe({ entryTypes: ['gc'] });
const alive = [];
const from = performance.now();
for (let round = 0; round < 20; round++) alive.push(Array.from({ length: 30000 }, (_, i) => ({ i, text: 'part ' + i })));
const to = performance.now();
setTimeout(() => {
  parentPort.postMessage({ during: starts.filter((start) => start >= from && start <= to).length, all: starts.length });
}, 100);
`;

/** Full collections a new thread ran while growing, and in all until it answered. */
interface Collections {
  during: number;
  all: number;
}

function fullCollectionsInNewThread(): Promise<Collections> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(GROW, { eval: true });
    worker.once('message', (count: Collections) => {
      resolve(count);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

void it('threads started after setNewThreadHeapFlags grow to 25 MiB of live objects with no full collection', async () => {
  const before = await fullCollectionsInNewThread();
  assert.ok(before.all >= 1, `a thread with the default heap ran ${before.all} full collections`);
  setNewThreadHeapFlags();
  setNewThreadHeapFlags();
  const after = await fullCollectionsInNewThread();
  assert.equal(after.during, 0, `${after.during} full collections while growing with the roomy heap`);
});

void it('a conversion heap marks with a helper for every core but the one the conversion runs on, one at least', () => {
  assert.deepEqual(
    [1, 2, 4, 16].map((cores) => markingHelpers(cores)),
    [1, 1, 3, 15],
  );
});
