import path from 'node:path';
import type { ImportSource, PreviousPart } from '../../pipeline/types.ts';
import { PinoStepLogger, type LogContext } from '../../pipeline/step-logger.ts';
import type { PoolFileConversionRequest } from '../../threads/pool-types.ts';
import type { ConvertJobDependencies } from './convert-model-job.ts';
import { boundColours } from '../thumbnails/thumbnails.ts';

/** What one conversion of a model, or of one of its versions, brings to the request beside the job's settings. */
export interface ConversionRequestInput {
  modelId: string;
  /** The model file, fetched into `workDir`. */
  source: ImportSource;
  /** The job's working folder: the thread writes the LODs into its `lods/`. */
  workDir: string;
  signal: AbortSignal;
  /** Fields each pipeline log line carries (`model_id`, `job_id`, `version`). */
  logContext: LogContext;
  onProgress: NonNullable<PoolFileConversionRequest['onProgress']>;
  /** The version converted and the parts it continues: matched parts keep their ids, new ones get the version's. */
  continues?: { version: number; previousParts: PreviousPart[] };
}

/**
 * The conversion pool request of a model's or a version's conversion: the job's limits, compression, textures and
 * tiling settings, the thumbnail in the bound materials' colours, and the LODs written to files.
 */
export function conversionRequest(
  deps: Pick<
    ConvertJobDependencies,
    'logger' | 'materials' | 'compressLods' | 'lodTextures' | 'maxTriangles' | 'tilesAboveTriangles'
  >,
  input: ConversionRequestInput,
): PoolFileConversionRequest {
  const { modelId, continues } = input;
  return {
    modelId,
    source: input.source,
    ...(continues && {
      previousParts: continues.previousParts,
      newGroupIdPrefix: `${modelId}:v${continues.version}-`,
    }),
    // The thread writes the LODs here: their bytes never wait in this thread's heap for a collection.
    lodDir: path.join(input.workDir, 'lods'),
    compressLods: deps.compressLods,
    lodTextures: deps.lodTextures,
    maxTriangles: deps.maxTriangles,
    tilesAboveTriangles: deps.tilesAboveTriangles,
    signal: input.signal,
    logger: new PinoStepLogger(deps.logger, input.logContext),
    thumbnailColours: (groupIds) => boundColours(deps.materials, groupIds),
    onProgress: input.onProgress,
  };
}
