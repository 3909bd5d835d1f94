import { PropertyType } from '@gltf-transform/core';
import type { Document, Transform } from '@gltf-transform/core';
import { EXTMeshoptCompression } from '@gltf-transform/extensions';
import type { InstancedMesh } from '@gltf-transform/extensions';
import { QUANTIZE_DEFAULTS, createTransform, prune, quantize } from '@gltf-transform/functions';
import type { MeshoptEncoder } from 'meshoptimizer';
import { dedupByHash } from '../dedup-by-hash.ts';
import { linearReorder } from './linear-reorder.ts';

/** Step name used in logs. */
export const NAME = 'linear-meshopt';

/** Options of {@link linearMeshopt}. */
export interface LinearMeshoptOptions {
  /** meshoptimizer's encoder (or one that reorders in pieces), awaited `ready` before use. */
  encoder: typeof MeshoptEncoder;
  /** `high` also filters normals and rotations into fewer bits; `medium` only quantizes. */
  level: 'medium' | 'high';
  /** Bits of quantized positions. */
  quantizePosition: number;
  /** Called between the steps, and within the reorder of a model of many parts. */
  onProgress?: () => void;
}

/** Defaults for {@link LinearMeshoptOptions} (the encoder must be given). */
export const LINEAR_MESHOPT_DEFAULTS: Omit<LinearMeshoptOptions, 'encoder'> = {
  level: 'high',
  quantizePosition: QUANTIZE_DEFAULTS.quantizePosition,
};

/**
 * glTF-Transform's `meshopt` (reorder, quantize, then marked for `EXT_meshopt_compression`, which the writer
 * applies), with the same result in time linear in the number of parts: the reorder is {@link linearReorder}, and
 * the clean-up after quantizing merges duplicates by hash ({@link dedupByHash}) where `quantize`'s own compares
 * every two accessors of the same shape.
 */
export function linearMeshopt(
  options: Partial<LinearMeshoptOptions> & Pick<LinearMeshoptOptions, 'encoder'>,
): Transform {
  const settings: LinearMeshoptOptions = { ...LINEAR_MESHOPT_DEFAULTS, ...options };
  return createTransform(NAME, async (document: Document): Promise<void> => {
    if (document.getRoot().listAccessors().length === 0) return;
    const step = () => settings.onProgress?.();
    // Filtered attributes (normals, tangents, rotations) are left to the codec's filters in `high`, as `meshopt`
    // leaves them; morph targets' normals are not filtered, so they are quantized.
    const high = settings.level === 'high';
    await document.transform(linearReorder({ encoder: settings.encoder, target: 'size', onProgress: step }));
    step();
    const batches = document
      .getRoot()
      .listNodes()
      .flatMap((node) => node.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing') ?? []);
    await document.transform(
      quantize({
        ...QUANTIZE_DEFAULTS,
        quantizePosition: settings.quantizePosition,
        pattern: high ? /^(POSITION|TEXCOORD|JOINTS|WEIGHTS|COLOR)(_\d+)?$/ : /.*/,
        patternTargets: high ? /^(POSITION|TEXCOORD|JOINTS|WEIGHTS|COLOR|NORMAL|TANGENT)(_\d+)?$/ : /.*/,
        quantizeNormal: high
          ? Math.min(QUANTIZE_DEFAULTS.quantizeNormal, 8)
          : QUANTIZE_DEFAULTS.quantizeNormal,
        cleanup: false,
      }),
    );
    step();
    // `quantize` hangs a transformed copy of each node's instancing on it and leaves the old one, holding its
    // accessors, in the graph: disposed, the prune below drops those (a sixth of an instanced level's bytes).
    for (const batch of batches) if (batch.listParents().length === 0) batch.dispose();
    // What `quantize` cleans up after itself, with the linear dedup.
    await document.transform(
      prune({
        propertyTypes: [PropertyType.ACCESSOR, PropertyType.SKIN, PropertyType.MATERIAL],
        keepAttributes: true,
        keepIndices: true,
        keepLeaves: true,
        keepSolidTextures: true,
      }),
      dedupByHash({
        propertyTypes: [PropertyType.ACCESSOR, PropertyType.MATERIAL, PropertyType.SKIN],
        keepUniqueNames: true,
        onProgress: step,
      }),
    );
    document
      .createExtension(EXTMeshoptCompression)
      .setRequired(true)
      .setEncoderOptions({
        method: high
          ? EXTMeshoptCompression.EncoderMethod.FILTER
          : EXTMeshoptCompression.EncoderMethod.QUANTIZE,
      });
  });
}
