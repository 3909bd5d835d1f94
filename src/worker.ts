import path from 'node:path';
import fs from 'node:fs';
import type { AppLogger } from './logger.ts';
import { createConvertModelJob } from './catalog/convert-model-job.ts';
import { createRenderThumbnailJob } from './catalog/render-thumbnail-job.ts';
import { createExportJob } from './exports/export-job.ts';
import { exportInWorker } from './exports/export-in-worker.ts';
import { createExportRepository } from './exports/repository.ts';
import { createModelRepository } from './catalog/repository.ts';
import type { RenderThumbnail } from './catalog/thumbnails.ts';
import type { Config } from './config.ts';
import { JobName, type JobHandlers } from './jobs/job-types.ts';
import type { JobWorker } from './jobs/queue.ts';
import { createMaterialRepository } from './materials/repository.ts';
import { renderThumbnailInWorker } from './render/render-in-worker.ts';
import type { Services } from './services.ts';

/** The renderer the worker uses unless told otherwise: the CPU rasterizer in a worker thread. */
export const renderInWorkerThread: RenderThumbnail = (glb, overrides) =>
  renderThumbnailInWorker(glb, { materialOverrides: overrides });

/** Starts claiming conversion and thumbnail jobs; imports no HTTP code so it can run as its own process. */
export function startJobWorker(
  config: Config,
  services: Services,
  logger: AppLogger,
  render: RenderThumbnail = renderInWorkerThread,
): JobWorker {
  const workDir = path.join(config.dataDir, 'tmp', 'jobs');
  fs.mkdirSync(workDir, { recursive: true });
  const models = createModelRepository(services.database);
  const materials = createMaterialRepository(services.database);
  const common = { models, materials, blobs: services.blobs, logger, render };
  const handlers: JobHandlers = {
    [JobName.ConvertModel]: createConvertModelJob({
      ...common,
      workDir,
      timeoutMs: config.conversionTimeoutMs,
      maxMemoryMb: config.conversionMaxMemoryMb,
      compressLods: config.glbCompression,
    }),
    [JobName.RenderThumbnail]: createRenderThumbnailJob(common),
    [JobName.ExportModel]: createExportJob({
      ...common,
      exports: createExportRepository(services.database),
      runExport: exportInWorker,
      timeoutMs: config.conversionTimeoutMs,
      maxMemoryMb: config.conversionMaxMemoryMb,
    }),
  };
  return services.queue.startWorker(handlers, { concurrency: config.workerConcurrency });
}
