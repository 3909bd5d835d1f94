import { buffer } from 'node:stream/consumers';
import type { ModelRepository } from '../catalog/repository.ts';
import { PermanentJobError, type FailureHandler, type JobHandler, type JobName } from '../jobs/job-types.ts';
import type { ConfigurationRepository } from '../configurations/repository.ts';
import type { AppLogger } from '../logger.ts';
import type { MaterialRepository } from '../materials/repository.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { DEFAULT_EXPORT_UNIT, EXPORT_FILES } from '../writers/export-formats.ts';
import type { ExportModelOptions } from '../writers/export-model.ts';
import { planExport } from './export-plan.ts';
import type { ExportKey } from '../jobs/job-types.ts';
import type { ExportRepository } from './repository.ts';

/** Writes one export off the caller's event loop (in a conversion thread); aborting cancels it. */
export type RunExport = (
  glb: Uint8Array,
  options: ExportModelOptions,
  signal: AbortSignal,
) => Promise<Uint8Array>;

/** What the export job needs. */
export interface ExportJobDependencies {
  models: ModelRepository;
  materials: MaterialRepository;
  configurations: ConfigurationRepository;
  exports: ExportRepository;
  blobs: BlobStore;
  logger: AppLogger;
  runExport: RunExport;
}

/** A model name, and the name of the configuration the export bakes if any, as a file name every system accepts. */
export function exportFileName(modelName: string, key: ExportKey, configurationName: string | null): string {
  const named = configurationName === null ? modelName : `${modelName} - ${configurationName}`;
  const base =
    named
      .replace(/[^A-Za-z0-9._ -]+/g, '_')
      .replace(/^[.\s]+/, '')
      .trim()
      .slice(0, 100) || 'model';
  return `${base}.${EXPORT_FILES[key.format].extension}`;
}

/** Blob key of an export: under the model's folder (deleted with it), named by the fingerprint it was made from. */
export function exportBlobKey(key: ExportKey, fingerprint: string, fileName: string): string {
  return `models/${key.model_id}/exports/${fingerprint.slice(0, 24)}/${fileName.replace(/ /g, '_')}`;
}

/**
 * The handler of `export-model` jobs: plans the export from the model's current state and bindings, writes it in a
 * conversion thread, stores it under its fingerprint and records it, replacing the file of an older fingerprint.
 */
export function createExportJob(deps: ExportJobDependencies): {
  run: JobHandler<typeof JobName.ExportModel>;
  failed: FailureHandler<typeof JobName.ExportModel>;
} {
  const { models, exports, blobs, logger } = deps;
  return {
    async run(job, signal) {
      // A job queued before exports had a unit or a configuration carries none: STL and 3MF then take the default.
      const key: ExportKey = {
        ...job.payload,
        unit: job.payload.unit ?? DEFAULT_EXPORT_UNIT,
        configuration_id: job.payload.configuration_id ?? null,
      };
      const model = await models.get(key.model_id);
      // Deleted, or converting again: a request after the conversion asks for the export anew.
      if (!model || model.status !== 'completed') return;
      const plan = await planExport(deps, model, key);
      if (plan === 'lod') throw new PermanentJobError(`The model has no level of detail ${key.lod}`);
      if (plan === 'configuration') throw new PermanentJobError('The configuration no longer exists');
      // Queued again while an earlier job made this very file: nothing left to do.
      const row = await exports.get(key);
      if (row?.status === 'ready' && row.fingerprint === plan.fingerprint && row.blob_key) {
        if (await blobs.head(row.blob_key)) return;
      }
      await exports.markRunning(key);
      const glb = await buffer(await blobs.read(plan.lodKey));
      const started = Date.now();
      let bytes: Uint8Array;
      try {
        bytes = await deps.runExport(
          glb,
          {
            format: key.format,
            bound: plan.bound,
            variants: plan.variants.map(({ name, bound }) => ({ name, bound })),
            title: model.name,
            unit: key.unit,
          },
          signal,
        );
      } catch (error) {
        if (signal.aborted) throw error;
        // The same model and bindings would fail the same way again.
        throw new PermanentJobError((error as Error).message);
      }
      const fileName = exportFileName(model.name, key, plan.configurationName);
      const blobKey = exportBlobKey(key, plan.fingerprint, fileName);
      await blobs.putBytes(blobKey, bytes);
      const previous = await exports.finish(key, {
        fingerprint: plan.fingerprint,
        blob_key: blobKey,
        size: bytes.byteLength,
      });
      if (previous === undefined) await blobs.delete(blobKey);
      else if (previous && previous !== blobKey) await blobs.delete(previous);
      logger.info(
        {
          modelId: key.model_id,
          format: key.format,
          lod: key.lod,
          configurationId: key.configuration_id,
          bytes: bytes.byteLength,
          ms: Date.now() - started,
        },
        'export written',
      );
    },
    async failed(job, error) {
      await exports.fail(job.payload, error.message);
      logger.error(
        { modelId: job.payload.model_id, format: job.payload.format, err: error.message },
        'export failed',
      );
    },
  };
}
