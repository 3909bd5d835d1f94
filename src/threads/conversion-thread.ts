// Entry of a conversion thread (started by conversion-pool.ts): runs the pool's tasks for as long as the pool
// keeps it.
import { parentPort } from 'node:worker_threads';
import { serveConversionTasks } from './conversion-tasks.ts';
import { ownThreadStatFile } from './cpu-clock.ts';
import type { ParentMessage } from './thread-protocol.ts';

const port = parentPort!;
serveConversionTasks({
  post: (message, transfer = []) => port.postMessage(message, transfer),
  onMessage: (listener) => port.on('message', (message: ParentMessage) => listener(message)),
  ownProcess: false,
  // Read here, in the thread: /proc/thread-self names whichever thread reads it.
  statFile: ownThreadStatFile(),
});
