import { Worker } from 'node:worker_threads';
import type { RenderOptions } from './render-thumbnail.ts';
import type { RenderJob, RenderReply } from './render-worker.ts';

/** Limits of a thumbnail rendered in a worker thread. */
export interface WorkerRenderOptions extends Partial<RenderOptions> {
  /** Milliseconds before the worker is terminated and the render rejects. */
  timeoutMs?: number;
  /** Heap limit of the worker in MiB, so a hostile file cannot exhaust the process. */
  maxHeapMb?: number;
}

/** Defaults of the worker limits. */
export const WORKER_RENDER_DEFAULTS = { timeoutMs: 30_000, maxHeapMb: 2048 } as const;

/**
 * Node 20 does not carry the parent's tsx loader into worker threads (`--import tsx` in execArgv
 * is not enough either), so a small CommonJS bootstrap loads the TypeScript entry through tsx's API.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsxApi).then((tsx) => tsx.tsImport(workerData.entry, workerData.entry));
`;
const TSX_API = import.meta.resolve('tsx/esm/api');
const ENTRY = new URL('./render-worker.ts', import.meta.url).href;

/**
 * Runs {@link renderThumbnail} in a worker thread so rendering never blocks the caller's event
 * loop; rejects with the render's own error, or after `timeoutMs` with the worker terminated.
 */
export function renderThumbnailInWorker(glb: Uint8Array, options: WorkerRenderOptions = {}): Promise<Buffer> {
  const {
    timeoutMs = WORKER_RENDER_DEFAULTS.timeoutMs,
    maxHeapMb = WORKER_RENDER_DEFAULTS.maxHeapMb,
    ...render
  } = options;
  const job: RenderJob = { glb, options: render };
  return new Promise<Buffer>((resolve, reject) => {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { tsxApi: TSX_API, entry: ENTRY, job },
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const finish = (error: Error | null, png?: Buffer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (error) reject(error);
      else resolve(png!);
    };
    const timer = setTimeout(
      () => finish(new Error(`render-thumbnail: timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    worker.once('message', (reply: RenderReply) => {
      if (reply.ok) finish(null, Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength));
      else finish(new Error(reply.message));
    });
    worker.once('error', (error) =>
      finish(new Error(`render-thumbnail: worker failed: ${error.message}`, { cause: error })),
    );
    worker.once('exit', (code) => finish(new Error(`render-thumbnail: worker exited with code ${code}`)));
  });
}
