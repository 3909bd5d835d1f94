import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { giveNewThreadsRoomyHeaps } from '../../src/threads/thread-heap.ts';

// In a fresh thread: objects that live through a few rounds (so they survive scavenges and reach the old
// generation) and then die, as a conversion's documents do; answers how many full collections that took.
const CHURN = `
const { PerformanceObserver, constants } = require('node:perf_hooks');
const { parentPort } = require('node:worker_threads');
let full = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
}).observe({ entryTypes: ['gc'] });
let alive = [];
for (let round = 0; round < 20; round++) {
  alive.push(Array.from({ length: 20000 }, (_, i) => ({ i, text: 'part ' + i })));
  if (alive.length > 4) alive.shift();
}
alive = null;
setTimeout(() => parentPort.postMessage(full), 100);
`;

function fullCollectionsInNewThread(): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CHURN, { eval: true });
    worker.once('message', (count: number) => {
      resolve(count);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

void it('threads started after giveNewThreadsRoomyHeaps collect the same churn with fewer full collections', async () => {
  const before = await fullCollectionsInNewThread();
  assert.ok(before >= 1, `a thread with the default heap ran ${before} full collections`);
  giveNewThreadsRoomyHeaps();
  giveNewThreadsRoomyHeaps();
  // Fewer, not none: under load an idle thread may still run a memory-reducing collection before it answers.
  const after = await fullCollectionsInNewThread();
  assert.ok(after < before, `${after} full collections with the roomy heap, ${before} without`);
});
