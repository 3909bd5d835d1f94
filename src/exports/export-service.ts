import type { ModelRepository } from '../catalog/repository.ts';
import { MODEL_NOT_FOUND, NOT_READY } from '../catalog/schemas.ts';
import type { ConfigurationRepository } from '../configurations/repository.ts';
import { CONFIGURATION_NOT_FOUND } from '../configurations/schemas.ts';
import type { ModelRow } from '../db/database.ts';
import { toIso } from '../db/timestamps.ts';
import { ApiError } from '../http/api-error.ts';
import { JobName, type ExportKey } from '../jobs/job-types.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { MaterialRepository } from '../materials/repository.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { EXPORT_FILES } from '../writers/export-formats.ts';
import { exportFileName } from './export-job.ts';
import { planExport } from './export-plan.ts';
import type { ExportRepository } from './repository.ts';

/** What making an export needs from the app. */
export interface ExportServiceOptions {
  models: ModelRepository;
  materials: MaterialRepository;
  /** The model's configurations, which an export may bake or carry as variants. */
  configurations: ConfigurationRepository;
  blobs: BlobStore;
  queue: JobQueue;
  /** State of the cached exports. */
  exports: ExportRepository;
}

/** How long an export's job may go unheard of before a call queues it again (it may have been lost). */
export const EXPORT_JOB_QUIET_MS = 30_000;

/** Where an export stands after a call: its stored file, or the job still making it. */
export type ExportOutcome =
  | {
      status: 'ready';
      blobKey: string;
      size: number;
      fileName: string;
      contentType: string;
      configurationName: string | null;
    }
  | { status: 'queued' | 'running'; jobId: string | null; configurationName: string | null };

/** Starts an export, or finds it made; throws the 404 or 422 a client is answered. */
export type PrepareExport = (model: ModelRow, key: ExportKey) => Promise<ExportOutcome>;

/**
 * The export's first call queues its job; later calls find the stored file while its fingerprint (the model, the
 * bindings, the configuration) is unchanged. Shared by the export route and the share links' configuration files.
 */
export function createExportService(options: ExportServiceOptions): PrepareExport {
  const { blobs, queue, exports } = options;
  return async (model, key) => {
    if (model.status !== 'completed') throw new ApiError(404, NOT_READY);
    const plan = await planExport(options, model, key);
    if (plan === 'lod') throw new ApiError(404, NOT_READY);
    if (plan === 'configuration') throw new ApiError(404, CONFIGURATION_NOT_FOUND);
    const configurationName = plan.configurationName;
    const row = await exports.get(key);
    const current = row?.fingerprint === plan.fingerprint ? row : undefined;

    if (current?.status === 'ready' && current.blob_key) {
      const info = await blobs.head(current.blob_key);
      if (info) {
        return {
          status: 'ready',
          blobKey: current.blob_key,
          size: info.size,
          fileName: exportFileName(model.name, key, configurationName),
          contentType: EXPORT_FILES[key.format].contentType,
          configurationName,
        };
      }
    }
    if (current?.status === 'failed')
      throw new ApiError(422, `Export failed: ${current.error ?? 'unknown error'}`);

    // A job noted in the last moments is left to do its work; otherwise (first call, a new fingerprint, a file that
    // went missing, or a job not heard of for a while) one is queued. Enqueueing is deduplicated while one waits, and
    // a job that finds the file already made ends at once, so a lost job cannot leave an export waiting for ever.
    let jobId = current?.job_id ?? null;
    const waiting =
      (current?.status === 'queued' || current?.status === 'running') &&
      jobId !== null &&
      Date.now() - Date.parse(toIso(current.updated_at)) < EXPORT_JOB_QUIET_MS;
    if (!waiting) {
      if (!current || current.status === 'ready') {
        if (!(await exports.request(key, plan.fingerprint))) throw new ApiError(404, MODEL_NOT_FOUND);
      }
      const job = await queue.enqueue(JobName.ExportModel, key, {
        subject: key.model_id,
        dedupeKey: `export:${key.model_id}:${key.format}:${key.lod}:${key.materials}:${key.unit}:${key.configuration_id ?? ''}`,
      });
      await exports.setJob(key, job.id);
      jobId = job.id;
    }
    return { status: current?.status === 'running' ? 'running' : 'queued', jobId, configurationName };
  };
}
