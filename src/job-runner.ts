import path from 'node:path';
import fs from 'node:fs';
import type { AppLogger } from './logger.ts';
import { createCatalogService } from './catalog/catalog-service.ts';
import { createConvertModelJob } from './catalog/conversion/convert-model-job.ts';
import { createRenderThumbnailJob } from './catalog/thumbnails/render-thumbnail-job.ts';
import { createConfigurationThumbnailJob } from './catalog/thumbnails/configuration-thumbnail-job.ts';
import { createConfigurationRepository } from './configurations/repository.ts';
import { startStrandedModelSweep } from './catalog/conversion/sweep-stranded-models.ts';
import { createExportJob } from './exports/export-job.ts';
import { createExportRepository } from './exports/repository.ts';
import { createModelRepository } from './catalog/repository.ts';
import { createVersionRepository } from './catalog/versions/repository.ts';
import type { RenderThumbnail } from './catalog/thumbnails/thumbnails.ts';
import type { Config } from './config.ts';
import {
  JobLane,
  JobName,
  type FailureHandler,
  type Job,
  type JobHandler,
  type JobHandlers,
} from './jobs/job-types.ts';
import type { QueueConsumer } from './jobs/queue.ts';
import { createMaterialRepository } from './materials/repository.ts';
import type { Services } from './services.ts';
import { createConversionPool } from './threads/conversion-pool.ts';
import { emptyScratch, scratchDir } from './storage/sweep-leftovers.ts';
import { createAddressGuard } from './webhooks/address-guard.ts';
import { createDeliverWebhookJob } from './webhooks/deliver-webhook-job.ts';
import { createReceiverSlots } from './webhooks/receiver-slots.ts';
import { createWebhookRepository } from './webhooks/repository.ts';

/**
 * Starts claiming conversion, thumbnail and export jobs, run in a pool of `WORKER_CONCURRENCY` warm conversion
 * threads that stops with the worker, and webhook deliveries beside them (`WEBHOOK_CONCURRENCY` at once, never in
 * a conversion's slot), and sweeps models stranded without a job; imports no HTTP code so it can run as its own
 * process. `render` replaces the pool's thumbnail renderer for regeneration jobs.
 */
export function startJobRunner(
  config: Config,
  services: Services,
  logger: AppLogger,
  render?: RenderThumbnail,
): QueueConsumer {
  const jobsDir = path.join(config.dataDir, 'tmp', 'jobs');
  const workDir = scratchDir(jobsDir);
  fs.mkdirSync(workDir, { recursive: true });
  const pool = createConversionPool({
    size: config.jobConcurrency,
    timeoutMs: config.conversionTimeoutMs,
    maxMemoryMb: config.conversionMaxMemoryMb,
    stallMs: config.conversionStallMs,
    wallCeilingFactor: config.conversionWallCeilingFactor,
    recycleAfterJobs: config.conversionThreadMaxJobs,
    isolateAboveBytes: config.conversionProcessAboveMb * 1024 * 1024,
  });
  render ??= (glb, overrides, renderLogger) =>
    pool.render(glb, { materialOverrides: overrides }, undefined, renderLogger);
  const models = createModelRepository(services.database);
  const materials = createMaterialRepository(services.database);
  const catalog = createCatalogService({
    database: services.database,
    blobs: services.blobs,
    queue: services.queue,
    logger,
    events: services.events,
  });
  const configurations = createConfigurationRepository(services.database);
  const common = { models, materials, blobs: services.blobs, catalog, logger, render };
  const handlers: JobHandlers = {
    [JobName.ConvertModel]: createConvertModelJob({
      ...common,
      workDir,
      pool,
      maxTriangles: config.conversionMaxTriangles,
      tilesAboveTriangles: config.tilesAboveTriangles,
      compressLods: config.glbCompression,
      lodTextures: config.lodTextures,
      events: services.events,
      versions: createVersionRepository(services.database.db),
    }),
    [JobName.RenderThumbnail]: createRenderThumbnailJob(common),
    [JobName.RenderConfigurationThumbnail]: createConfigurationThumbnailJob({
      ...common,
      configurations,
      queue: services.queue,
    }),
    [JobName.ExportModel]: createExportJob({
      ...common,
      configurations,
      exports: createExportRepository(services.database),
      runExport: (glb, options, signal) => pool.exportModel(glb, options, signal),
    }),
    [JobName.DeliverWebhook]: createDeliverWebhookJob({
      webhooks: createWebhookRepository(services.database),
      logger,
      guard: createAddressGuard({
        refusePrivate: config.webhookRefusePrivateAddresses,
        allowedRanges: config.webhookAllowedPrivateRanges,
      }),
      timeoutMs: config.webhookTimeoutMs,
      slots: createReceiverSlots(config.webhookReceiverConcurrency, config.webhookTimeoutMs),
      retention: {
        keepPerWebhook: config.webhookDeliveryLogKeep,
        maxAgeMs: config.webhookDeliveryLogMaxAgeMs,
      },
    }),
  };
  const wrapped = sweepWhenIdle(handlers, jobsDir, logger);
  // Deliveries have slots of their own: a receiver that never answers cannot hold up a conversion.
  const consumers = [
    services.queue.startConsumer(wrapped, { concurrency: config.jobConcurrency, lane: JobLane.Work }),
    services.queue.startConsumer(wrapped, { concurrency: config.webhookConcurrency, lane: JobLane.Webhooks }),
  ];
  // Every process that runs jobs also fails the models whose job is gone, so a reprocess can start them again.
  const strandedSweep = startStrandedModelSweep({
    models,
    versions: createVersionRepository(services.database.db),
    queue: services.queue,
    events: services.events,
    logger,
    intervalMs: config.strandedSweepMs,
  });
  return {
    async stop() {
      await strandedSweep.stop();
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await pool.close();
    },
  };
}

/**
 * Wraps the conversion, thumbnail and export handlers so that when the last running one of this process ends, its
 * scratch folder is emptied: whatever a job left there (a thread killed mid-write, a failed clean-up) goes before
 * the next job starts.
 */
export function sweepWhenIdle(handlers: JobHandlers, jobsDir: string, logger: AppLogger): JobHandlers {
  let running = 0;
  const wrap = <N extends JobName>(handler: {
    run: JobHandler<N>;
    failed: FailureHandler<N>;
  }): { run: JobHandler<N>; failed: FailureHandler<N> } => ({
    ...handler,
    run: async (job: Job<N>, signal: AbortSignal) => {
      running++;
      try {
        await handler.run(job, signal);
      } finally {
        if (--running === 0) {
          await emptyScratch(jobsDir).catch((error: unknown) =>
            logger.warn({ err: error }, 'could not empty the job scratch folder'),
          );
        }
      }
    },
  });
  return {
    [JobName.ConvertModel]: wrap<typeof JobName.ConvertModel>(handlers[JobName.ConvertModel]),
    [JobName.RenderThumbnail]: wrap<typeof JobName.RenderThumbnail>(handlers[JobName.RenderThumbnail]),
    [JobName.RenderConfigurationThumbnail]: wrap<typeof JobName.RenderConfigurationThumbnail>(
      handlers[JobName.RenderConfigurationThumbnail],
    ),
    [JobName.ExportModel]: wrap<typeof JobName.ExportModel>(handlers[JobName.ExportModel]),
    // Deliveries leave nothing in the scratch folder, and one waiting on a slow receiver must not delay its sweep.
    [JobName.DeliverWebhook]: handlers[JobName.DeliverWebhook],
  };
}
