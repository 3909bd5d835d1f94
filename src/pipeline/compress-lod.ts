import type { Document } from '@gltf-transform/core';
import { cloneDocument, meshopt } from '@gltf-transform/functions';
import type { MeshoptEncoder } from 'meshoptimizer';
import type { StepContext } from './types.ts';

/** Step name used in logs. */
export const NAME = 'compress-lod';

/** How the smaller levels of detail are compressed; `none` writes them as they are. */
export type LodCompression = 'none' | 'meshopt';

/** Options of {@link compressLod}. */
export interface CompressLodOptions {
  /** meshoptimizer's encoder, awaited `ready` before use. */
  encoder: typeof MeshoptEncoder;
  /** `high` also filters normals and rotations into fewer bits; `medium` only quantizes. */
  level: 'medium' | 'high';
  /** Compress the document itself instead of a copy: only when nothing reads it afterwards. */
  consumeSource: boolean;
}

/** Defaults for {@link CompressLodOptions} (the encoder must be given). */
export const COMPRESS_LOD_DEFAULTS: Omit<CompressLodOptions, 'encoder'> = {
  level: 'high',
  consumeSource: false,
};

/**
 * Returns `document` reordered, quantized and marked for `EXT_meshopt_compression`, which the writer
 * then applies. Quantizing rewrites vertex data and node transforms, so by default a copy is compressed:
 * make-lods simplifies LOD 2 from the very document it yields as LOD 1.
 */
export async function compressLod(
  document: Document,
  options: Partial<CompressLodOptions> & Pick<CompressLodOptions, 'encoder'>,
  context: StepContext,
): Promise<Document> {
  const settings: CompressLodOptions = { ...COMPRESS_LOD_DEFAULTS, ...options };
  await settings.encoder.ready;
  const target = settings.consumeSource ? document : cloneDocument(document);
  await target.transform(meshopt({ encoder: settings.encoder, level: settings.level }));
  context.logger.debug(`${NAME}: meshopt, level ${settings.level}`);
  return target;
}
