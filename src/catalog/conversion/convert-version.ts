// A later version of a model converted beside the current one: its file is read from the version's row, its
// levels, tileset and picture go into the version's folder, and only when all of that is stored does one
// transaction make it current (outputs, parts, part properties). Until then the model stays `completed` and its
// files keep answering; a failure marks the version failed and leaves the current one as it was.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Job, JobName } from '../../jobs/job-types.ts';
import { versionFolder } from '../versions/schemas.ts';
import type { ConvertJobDependencies } from './convert-model-job.ts';
import { fetchSource, removeUnrecordedTileset, storeLods, storeTileset } from './conversion-files.ts';
import { conversionRequest } from './conversion-request.ts';
import { progressWriter } from './conversion-progress.ts';
import { modelEventData } from '../model-events.ts';
import { thumbnailKey } from '../thumbnails/thumbnails.ts';

/** Converts version `number` of a model and makes it current once stored; see the file's comment. */
export async function convertVersion(
  deps: ConvertJobDependencies,
  job: Job<typeof JobName.ConvertModel>,
  number: number,
  signal: AbortSignal,
): Promise<void> {
  const { versions, blobs, models, logger, events } = deps;
  const modelId = job.payload.model_id;
  const folder = versionFolder(modelId, number);
  const version = await versions.get(modelId, number);
  if (!version || !(await models.get(modelId))) {
    // Deleted while queued, or after an earlier try stored files: what it wrote went after the delete.
    if (number > 1) await blobs.deletePrefix(folder);
    return;
  }
  // Done by an earlier try whose job record was lost: converting again would only write the same files.
  if (version.status === 'completed') return;
  await versions.setStatus(modelId, number, 'processing', 0);
  const workDir = await fsp.mkdtemp(path.join(deps.workDir, `convert-${modelId}-v${number}-`));
  try {
    const source = await fetchSource(blobs, version, workDir);
    // The parts this version continues: a part matched to one keeps its group id, so bindings, annotations and
    // views follow it; an unmatched one gets an id of this version's own.
    const basis = version.based_on ?? (await models.get(modelId))?.current_version;
    const previousParts = basis === undefined ? [] : await versions.parts(modelId, basis);
    const result = await deps.pool.convert(
      conversionRequest(deps, {
        modelId,
        source,
        workDir,
        signal,
        logContext: { model_id: modelId, version: number, job_id: job.id },
        continues: { version: number, previousParts },
        onProgress: progressWriter(
          { setProgress: (id, progress) => versions.setProgress(id, number, progress) },
          modelId,
          async () => {},
        ),
      }),
    );
    // Deleted while it converted (a delete cannot stop the conversion thread): storing would only write files for
    // the completion below to find unrecorded and remove. A delete after this check is caught there.
    if (!(await versions.get(modelId, number))) {
      if (number > 1) await blobs.deletePrefix(folder);
      return;
    }
    const lods = await storeLods(blobs, modelId, result, folder);
    const tilesetKey = result.tileset
      ? await storeTileset(blobs, modelId, result.tileset, null, folder)
      : null;
    let pictureKey: string | null = null;
    let completed: Awaited<ReturnType<ConvertJobDependencies['versions']['complete']>>;
    try {
      if (result.thumbnail) {
        pictureKey = thumbnailKey(modelId, result.thumbnail, 'png', folder);
        await blobs.putBytes(pictureKey, result.thumbnail);
      }
      completed = await versions.complete(
        modelId,
        number,
        { ...result, lods, tileset_key: tilesetKey },
        pictureKey,
      );
    } catch (error) {
      // Stored whole but never recorded: nothing would ever serve or remove it.
      if (tilesetKey) await removeUnrecordedTileset(blobs, tilesetKey, null);
      throw error;
    }
    if (!completed) {
      // The version or its model was deleted during the conversion: drop what was just written.
      if (number > 1) await blobs.deletePrefix(folder);
      return;
    }
    // The model now shows this version and its picture, unless a person uploaded one (version-thumbnail.ts).
    if (completed.thumbnail.unused) await blobs.delete(completed.thumbnail.unused);
    if (completed.thumbnail.changed) await events.publish('thumbnail.updated', { model_id: modelId });
    const model = await models.get(modelId);
    await events.publish('model.version.completed', {
      model_id: modelId,
      version: number,
      based_on: version.based_on,
      diff_counts: completed.diff_counts,
    });
    if (model) await events.publish('model.updated', modelEventData(model));
    logger.info(
      { model_id: modelId, version: number, job_id: job.id, parts: result.parts.length },
      'model version converted',
    );
  } finally {
    await fsp.rm(workDir, { recursive: true, force: true });
  }
}

/** Records a version whose conversion failed for good, leaving the current version as it was. */
export async function failVersion(
  deps: ConvertJobDependencies,
  modelId: string,
  number: number,
  message: string,
): Promise<void> {
  const { versions, blobs, events } = deps;
  const version = await versions.get(modelId, number);
  if (!version) {
    if (number > 1) await blobs.deletePrefix(versionFolder(modelId, number));
    return;
  }
  await versions.setStatus(modelId, number, 'failed', 0, message);
  await events.publish('model.version.failed', {
    model_id: modelId,
    version: number,
    based_on: version.based_on,
    error: message,
  });
}
