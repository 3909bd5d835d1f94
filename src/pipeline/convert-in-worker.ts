import { Worker } from 'node:worker_threads';
import { Logger } from '@gltf-transform/core';
import type { ConvertModelOptions } from './convert-model.ts';
import type { WorkerInput, WorkerMessage } from './convert-worker.ts';
import { ConversionError } from './types.ts';
import type { ConversionResult } from './types.ts';

/** Options of {@link convertInWorker}: those of `convertModel` plus the limits of the worker. */
export interface ConvertInWorkerOptions extends ConvertModelOptions {
  /** Wall-clock limit; the worker is terminated when it runs out. */
  timeoutMs: number;
  /** Old-generation heap limit of the worker, in MiB. */
  maxMemoryMb: number;
  /** Aborting terminates the worker and rejects. */
  signal?: AbortSignal;
}

/** Defaults a caller may use for the limits (a 300 s timeout, a 4 GiB heap). */
export const CONVERT_IN_WORKER_DEFAULTS = { timeoutMs: 300_000, maxMemoryMb: 4096 } as const;

/** Workers started and not yet exited. */
const liveWorkers = new Set<Worker>();

/** How many conversion workers are alive, for health checks, shutdown and tests. */
export function liveConversionWorkers(): number {
  return liveWorkers.size;
}

/**
 * Runs {@link convertModel} in a worker thread with a time and memory limit, so a hostile or huge file
 * can only fail its own conversion. Every failure — bad input, crash, out of memory, timeout — rejects
 * with an Error whose message can be shown to the user.
 */
export function convertInWorker(options: ConvertInWorkerOptions): Promise<ConversionResult> {
  const { timeoutMs, maxMemoryMb, signal, logger = new Logger(Logger.Verbosity.WARN), onProgress } = options;
  if (signal?.aborted) return Promise.reject(abortError());
  const input: WorkerInput = {
    modelId: options.modelId,
    source: options.source,
    lods: options.lods,
    compressLods: options.compressLods,
    logLevel: logger instanceof Logger ? (logger as unknown as { verbosity: number }).verbosity : 1,
  };
  const worker = startWorker(input, maxMemoryMb);
  liveWorkers.add(worker);

  return new Promise<ConversionResult>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, result?: ConversionResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // Terminate in every case: a worker that answered may still hold timers or WebAssembly memory.
      void worker.terminate().finally(() => {
        liveWorkers.delete(worker);
        if (error) reject(error);
        else resolve(result!);
      });
    };
    const timer = setTimeout(
      () =>
        finish(new ConversionError(`Conversion timed out after ${Number((timeoutMs / 1000).toFixed(3))} s`)),
      timeoutMs,
    );
    const onAbort = (): void => finish(abortError());
    signal?.addEventListener('abort', onAbort, { once: true });

    worker.on('message', (message: WorkerMessage) => {
      switch (message.type) {
        case 'progress':
          onProgress?.(message.percent, message.stage as Parameters<NonNullable<typeof onProgress>>[1]);
          break;
        case 'log':
          logger[message.level](message.text);
          break;
        case 'result':
          finish(undefined, message.result);
          break;
        case 'failure':
          finish(
            message.name === 'ConversionError'
              ? new ConversionError(message.message)
              : new Error(`Conversion failed: ${message.message}`),
          );
          break;
      }
    });
    worker.on('error', (error: Error & { code?: string }) => {
      finish(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|heap/i.test(error.message)
          ? new ConversionError('Conversion ran out of memory')
          : new Error(`Conversion crashed: ${error.message}`),
      );
    });
    worker.on('exit', (code) => {
      liveWorkers.delete(worker);
      finish(new Error(`Conversion stopped unexpectedly (exit code ${code})`));
    });
  });
}

/**
 * Starts the worker. Under tsx (the service runs `tsx src/cli.ts`, tests `node --import tsx`) Node 20
 * does not apply the parent's `--import tsx` to a worker's entry file, so a small bootstrap registers
 * tsx inside the worker before importing the TypeScript entry.
 */
function startWorker(input: WorkerInput, maxMemoryMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: maxMemoryMb };
  const entry = new URL(
    `./convert-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
    import.meta.url,
  );
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData: input, resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, execArgv: [], workerData: input, resourceLimits });
}

/** The rejection of an aborted conversion. */
function abortError(): Error {
  const error = new Error('Conversion was cancelled');
  error.name = 'AbortError';
  return error;
}
