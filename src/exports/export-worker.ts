// Worker-thread entry of exportInWorker: writes one export and posts the bytes back.
import { parentPort, workerData } from 'node:worker_threads';
import { exportModel, type ExportModelOptions } from './export-model.ts';

/** What the parent hands the worker. */
export interface ExportJobInput {
  glb: Uint8Array;
  options: ExportModelOptions;
}

/** What the worker answers: the file, or the error's message. */
export type ExportReply = { ok: true; bytes: Uint8Array } | { ok: false; message: string };

const { input } = workerData as { input: ExportJobInput };
exportModel(input.glb, input.options).then(
  (bytes) =>
    parentPort!.postMessage({ ok: true, bytes } satisfies ExportReply, [bytes.buffer as ArrayBuffer]),
  (error: unknown) =>
    parentPort!.postMessage({
      ok: false,
      message: (error as Error).message ?? String(error),
    } satisfies ExportReply),
);
