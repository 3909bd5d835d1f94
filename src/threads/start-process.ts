import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { markingHelpers } from './thread-heap.ts';

/**
 * Starts a Node process on a sibling module of the caller, named without extension, with an IPC channel that
 * carries typed arrays (`advanced` serialization). Run from TypeScript, the child registers tsx as the parent
 * did; its old generation is capped at `maxOldSpaceMb`, and its heap marked with as many helper threads as a
 * conversion thread's (thread-heap.ts). Its standard error is piped, for the caller to read why it died.
 */
export function startProcess(callerUrl: string, name: string, maxOldSpaceMb: number): ChildProcess {
  const extension = new URL(callerUrl).pathname.endsWith('.ts') ? '.ts' : '.js';
  const entry = fileURLToPath(new URL(`./${name}${extension}`, callerUrl));
  const loader = extension === '.ts' ? ['--import', import.meta.resolve('tsx')] : [];
  return fork(entry, [], {
    execArgv: [
      ...loader,
      `--max-old-space-size=${maxOldSpaceMb}`,
      `--concurrent-marking-max-worker-num=${markingHelpers()}`,
    ],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
}
