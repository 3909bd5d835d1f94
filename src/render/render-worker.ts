// Worker-thread entry of renderThumbnailInWorker: renders one thumbnail and posts the PNG back.
import { parentPort, workerData } from 'node:worker_threads';
import { renderThumbnail } from './render-thumbnail.ts';
import type { RenderOptions } from './render-thumbnail.ts';

/** What the parent hands the worker. */
export interface RenderJob {
  glb: Uint8Array;
  options: Partial<RenderOptions>;
}

/** What the worker answers: the PNG, or the error's message. */
export type RenderReply = { ok: true; png: Uint8Array } | { ok: false; message: string };

const { job } = workerData as { job: RenderJob };
renderThumbnail(job.glb, job.options).then(
  (png) => {
    const bytes = new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
    parentPort!.postMessage({ ok: true, png: bytes } satisfies RenderReply);
  },
  (error: unknown) => {
    parentPort!.postMessage({
      ok: false,
      message: (error as Error).message ?? String(error),
    } satisfies RenderReply);
  },
);
