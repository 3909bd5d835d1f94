import { processExitError } from './pool-errors.ts';
import { startProcess } from './start-process.ts';
import type { ParentMessage, ThreadMessage } from './thread-protocol.ts';

/** One task running in a process of its own (`conversion-process.ts`), as the pool holds it. */
export interface TaskProcess {
  /** Posts a message to the process (the colours it asked for). */
  send(message: ParentMessage): void;
  /** Kills the process; nothing it does from then on reaches the pool. */
  stop(): void;
  /** The process's id, absent when it could not be started. */
  pid: number | undefined;
}

/** What a {@link TaskProcess} reports to the pool. */
export interface TaskProcessHandlers {
  /** Every message of the process after its `ready`. */
  onMessage(message: ThreadMessage): void;
  /** The process ended, or could not be started, before it was stopped. */
  onEnd(error: Error): void;
}

/**
 * Starts a process for one task and posts it `task` once the process is ready. Its heap is capped at
 * `maxMemoryMb`; if it dies, `onEnd` says how, naming the memory limit when V8 ran out of heap.
 */
export function startTaskProcess(
  task: ParentMessage,
  maxMemoryMb: number,
  handlers: TaskProcessHandlers,
): TaskProcess {
  const child = startProcess(import.meta.url, 'conversion-process', maxMemoryMb);
  let stopped = false;
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
  child.on('message', (message: ThreadMessage) => {
    if (stopped) return;
    if (message.type === 'ready') child.send(task);
    else handlers.onMessage(message);
  });
  child.on('error', (error) => {
    if (!stopped) handlers.onEnd(new Error(`Conversion process failed: ${error.message}`));
  });
  // `close`, not `exit`: its standard error has been read to the end by then.
  child.on('close', (code, signal) => {
    if (!stopped) handlers.onEnd(processExitError(code, signal, stderr, maxMemoryMb));
  });
  return {
    send: (message) => void child.send(message),
    pid: child.pid,
    stop() {
      stopped = true;
      child.kill('SIGKILL');
    },
  };
}
