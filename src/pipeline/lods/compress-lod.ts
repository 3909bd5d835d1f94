import type { Document } from '@gltf-transform/core';
import { EXTMeshoptCompression } from '@gltf-transform/extensions';
import { cloneSharingData } from '../../gltf/clone-sharing-data.ts';
import { chunkedReorderEncoder } from './chunked-reorder.ts';
import type { MeshoptEncoder } from 'meshoptimizer';
import { integerPositions } from './integer-positions.ts';
import { linearMeshopt } from './linear-meshopt.ts';
import { linearReorder } from './linear-reorder.ts';
import { snapTexcoords } from './snap-texcoords.ts';
import type { StepContext } from '../types.ts';

/** Step name used in logs. */
export const NAME = 'compress-lod';

/** How the levels of detail are compressed; `none` writes them as they are. */
export type LodCompression = 'none' | 'meshopt';

/** Bits of the grid quantized positions are snapped to, gltfpack's default. */
const POSITION_BITS = 14;
/** Precision of UVs over their extent, as `quantize` and gltfpack give them. */
const TEXCOORD_BITS = 12;

/** Options of {@link compressLod}. */
export interface CompressLodOptions {
  /** meshoptimizer's encoder, awaited `ready` before use. */
  encoder: typeof MeshoptEncoder;
  /** `high` also filters normals and rotations into fewer bits; `medium` only quantizes. */
  level: 'medium' | 'high';
  /**
   * Quantize vertex data (`KHR_mesh_quantization`), as gltfpack does. Without it, vertices are only reordered and
   * encoded losslessly: every float stays bit for bit what it was, for the level that must equal its source.
   */
  quantize: boolean;
  /** Compress the document itself instead of a copy: only when nothing reads it afterwards. */
  consumeSource: boolean;
  /** Called between the steps, and within long ones, so a model of many parts is heard from. */
  onStep?: () => void;
}

/** Defaults for {@link CompressLodOptions} (the encoder must be given). */
export const COMPRESS_LOD_DEFAULTS: Omit<CompressLodOptions, 'encoder'> = {
  level: 'high',
  quantize: true,
  consumeSource: false,
};

/**
 * Returns `document` reordered, quantized (unless told not to) and marked for `EXT_meshopt_compression`, which
 * the writer then applies. Quantizing rewrites vertex data and node transforms, so by default a copy is
 * compressed: make-lods simplifies LOD 2 from the very document it yields as LOD 1.
 */
export async function compressLod(
  document: Document,
  options: Partial<CompressLodOptions> & Pick<CompressLodOptions, 'encoder'>,
  context: StepContext,
): Promise<Document> {
  const settings: CompressLodOptions = { ...COMPRESS_LOD_DEFAULTS, ...options };
  await settings.encoder.ready;
  // The copy shares the vertex data reorder replaces anyway: a level is written without a second copy of it.
  const target = settings.consumeSource ? document : cloneSharingData(document);
  const encoder = chunkedReorderEncoder(settings.encoder);
  if (settings.quantize) {
    await target.transform(
      linearMeshopt({
        encoder,
        level: settings.level,
        quantizePosition: POSITION_BITS,
        onProgress: settings.onStep,
      }),
    );
    integerPositions(target, POSITION_BITS);
    snapTexcoords(target, TEXCOORD_BITS);
  } else {
    // Reordering for locality is what makes the lossless codec pay (a 1.5 MB STL: 588 KB unordered, 388 KB ordered).
    await target.transform(linearReorder({ encoder, target: 'size', onProgress: settings.onStep }));
    markLosslessMeshopt(target);
  }
  context.logger.debug(
    `${NAME}: meshopt, ${settings.quantize ? `quantized, level ${settings.level}` : 'lossless'}`,
  );
  return target;
}

/**
 * Marks a document for `EXT_meshopt_compression` without filters or quantization: the writer then encodes its
 * vertex data losslessly, every value kept bit for bit.
 */
export function markLosslessMeshopt(document: Document): void {
  document
    .createExtension(EXTMeshoptCompression)
    .setRequired(true)
    .setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.QUANTIZE });
}

/** Removes the meshopt mark {@link compressLod} set, so the document writes plain again (its data is unchanged). */
export function dropCompression(document: Document): void {
  for (const extension of document.getRoot().listExtensionsUsed()) {
    if (extension.extensionName === EXTMeshoptCompression.EXTENSION_NAME) extension.dispose();
  }
}
