import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on a sibling module of the caller, named without extension, whether the service
 * runs as compiled JavaScript (the entry is a `.js` file Node loads itself) or from TypeScript under tsx.
 * Node 20 does not apply the parent's `--import tsx` to a worker's entry, so for a `.ts` entry a small
 * bootstrap registers tsx inside the thread before importing it.
 */
export function startThread(callerUrl: string, name: string, options: WorkerOptions): Worker {
  const extension = new URL(callerUrl).pathname.endsWith('.ts') ? '.ts' : '.js';
  const entry = new URL(`./${name}${extension}`, callerUrl);
  if (extension === '.js') return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap =
    `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); ` +
    `return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true, execArgv: [] });
}
