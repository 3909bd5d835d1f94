// Entry of a conversion process (started by conversion-pool.ts for an input above `isolateAboveBytes`): runs the
// one conversion the pool sends it, and is killed once it has answered, so everything the job touched (heaps,
// WebAssembly memories, the C allocator's arenas) goes back to the system with it.
import { serveConversionTasks } from './conversion-tasks.ts';
import type { ParentMessage, ThreadMessage } from './thread-protocol.ts';

// Without its parent the process has no one to answer to.
process.on('disconnect', () => process.exit(0));
serveConversionTasks({
  post: (message: ThreadMessage) => process.send!(message),
  onMessage: (listener) => process.on('message', (message: ParentMessage) => listener(message)),
  ownProcess: true,
});
