// Entry of the worker thread started by convert-in-worker.ts: runs one conversion and reports back.
import { parentPort, workerData } from 'node:worker_threads';
import type { ILogger } from '@gltf-transform/core';
import { convertModel } from './convert-model.ts';
import type { ConvertModelOptions } from './convert-model.ts';
import type { ConversionResult } from './types.ts';

/** Messages the worker posts to its parent. */
export type WorkerMessage =
  | { type: 'progress'; percent: number; stage: string }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; text: string }
  | { type: 'result'; result: ConversionResult }
  | { type: 'failure'; name: string; message: string };

/** What the parent hands to the worker. */
export type WorkerInput = Pick<ConvertModelOptions, 'modelId' | 'source' | 'lods' | 'compressLods'> & {
  logLevel: number;
};

const port = parentPort;
if (port) {
  const input = workerData as WorkerInput;
  const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []): void =>
    port.postMessage(message, transfer);
  const log =
    (level: 'debug' | 'info' | 'warn' | 'error', threshold: number) =>
    (text: string): void => {
      if (input.logLevel <= threshold) post({ type: 'log', level, text });
    };
  // Levels follow glTF-Transform's Logger.Verbosity: DEBUG 1, INFO 2, WARN 3, ERROR 4.
  const logger: ILogger = {
    debug: log('debug', 1),
    info: log('info', 2),
    warn: log('warn', 3),
    error: log('error', 4),
  };
  try {
    const result = await convertModel({
      ...input,
      logger,
      onProgress: (percent, stage) => post({ type: 'progress', percent, stage }),
    });
    // Transfer, not copy: LOD buffers can be hundreds of megabytes.
    const transfer = result.lods.map((lod) => lod.glb.buffer as ArrayBuffer);
    post({ type: 'result', result }, [...new Set(transfer)]);
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    post({ type: 'failure', name, message });
  }
}
