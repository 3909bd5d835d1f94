import { Worker } from 'node:worker_threads';
import type { ExportModelOptions } from './export-model.ts';
import type { ExportJobInput, ExportReply } from './export-worker.ts';

/** Limits of one export in a worker thread. */
export interface ExportLimits {
  /** Wall-clock limit; the worker is terminated when it runs out. */
  timeoutMs: number;
  /** Old-generation heap limit of the worker, in MiB. */
  maxMemoryMb: number;
  /** Aborting (the job handed back on shutdown) terminates the worker and rejects. */
  signal?: AbortSignal;
}

/**
 * Node 20 does not carry the parent's tsx loader into worker threads, so a small CommonJS bootstrap loads the
 * TypeScript entry through tsx's API (as the thumbnail renderer does).
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsxApi).then((tsx) => tsx.tsImport(workerData.entry, workerData.entry));
`;
const TSX_API = import.meta.resolve('tsx/esm/api');
const ENTRY = new URL('./export-worker.ts', import.meta.url).href;

/**
 * Runs {@link exportModel} in a worker thread so a big model's export never blocks the event loop the API answers
 * on; rejects with the export's own error, on timeout, on abort, or when the worker dies (out of memory).
 */
export function exportInWorker(
  glb: Uint8Array,
  options: ExportModelOptions,
  limits: ExportLimits,
): Promise<Uint8Array> {
  const { signal } = limits;
  if (signal?.aborted) return Promise.reject(new Error('export: aborted'));
  const input: ExportJobInput = { glb, options };
  return new Promise<Uint8Array>((resolve, reject) => {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { tsxApi: TSX_API, entry: ENTRY, input },
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const finish = (error: Error | null, bytes?: Uint8Array): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(bytes!);
    };
    const onAbort = () => finish(new Error('export: aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => finish(new Error(`Export timed out after ${Math.round(limits.timeoutMs / 1000)} s`)),
      limits.timeoutMs,
    );
    worker.once('message', (reply: ExportReply) => {
      if (reply.ok) finish(null, reply.bytes);
      else finish(new Error(reply.message));
    });
    worker.once('error', (error) => finish(new Error(`Export failed: ${error.message}`, { cause: error })));
    worker.once('exit', (code) => finish(new Error(`Export stopped: its worker exited with code ${code}`)));
  });
}
