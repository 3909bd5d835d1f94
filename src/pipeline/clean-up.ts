import { Primitive } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import {
  convertPrimitiveToTriangles,
  dequantize,
  prune,
  uninstance,
  unpartition,
} from '@gltf-transform/functions';
import { conformAttributes } from './conform-attributes.ts';
import { dedupByHash } from './dedup-by-hash.ts';
import { tidyExtensions } from './tidy-extensions.ts';
import { weldInPlace } from './weld-in-place.ts';
import { EXT_INSTANCE_FEATURES } from '../gltf/ext-instance-features.ts';
import type { StepContext } from './types.ts';

/** Step name used in logs. */
export const NAME = 'clean-up';

/** Options of {@link cleanUp}. */
export interface CleanUpOptions {
  /** Merge bitwise-identical vertices, so the simplifier sees connected surfaces. */
  weld?: boolean;
  /** Merge identical accessors, meshes, materials and textures. */
  dedup?: boolean;
}

/** Defaults for {@link CleanUpOptions}. */
export const CLEAN_UP_DEFAULTS: Required<CleanUpOptions> = { weld: true, dedup: true };

/** Extensions whose data glTF-Transform decodes on read and that outputs must not carry. */
const COMPRESSION_EXTENSIONS = [
  'EXT_meshopt_compression',
  'KHR_draco_mesh_compression',
  'KHR_mesh_quantization',
];

/**
 * Tidies an imported document for the rest of the pipeline, without ever merging separate mesh nodes:
 * every mesh node is a part and survives with its transform and extras.
 *
 * Instancing: `EXT_mesh_gpu_instancing` is expanded into one child node per instance, so each instance
 * becomes a part a material can be bound to. A mesh shared by several nodes stays shared (also after
 * dedup merges identical meshes): counts are taken per node, and simplifying the shared mesh once keeps
 * every copy identical in each LOD while keeping files small.
 */
export async function cleanUp(
  document: Document,
  options: CleanUpOptions,
  context: StepContext,
): Promise<void> {
  const settings = { ...CLEAN_UP_DEFAULTS, ...options };
  const root = document.getRoot();
  const used = root.listExtensionsUsed().map((extension) => extension.extensionName);

  if (used.includes('EXT_mesh_gpu_instancing')) await document.transform(uninstance());
  // The source's own instance feature ids went with its instances (each is a node now): their sets would name
  // attributes no node has.
  for (const extension of root.listExtensionsUsed()) {
    if (extension.extensionName === EXT_INSTANCE_FEATURES) extension.dispose();
  }
  // Simplification and bounds need float positions; quantized data is decoded once here.
  if (used.includes('KHR_mesh_quantization')) await document.transform(dequantize());
  for (const extension of root.listExtensionsUsed()) {
    if (COMPRESSION_EXTENSIONS.includes(extension.extensionName)) extension.dispose();
  }
  const conformed = conformAttributes(document);
  if (conformed.uvs > 0)
    context.logger.debug(`${NAME}: ${conformed.uvs} three-component UV sets cut to u, v`);
  if (conformed.weights > 0)
    context.logger.warn(
      `${NAME}: skin weights of ${conformed.weights} vertices did not sum to 1 and were scaled`,
    );
  context.onProgress?.(0.2);

  // Strips and fans become lists so that every triangle primitive can be simplified and welded alike.
  let converted = 0;
  for (const mesh of root.listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const mode = primitive.getMode();
      if (mode === Primitive.Mode.TRIANGLE_STRIP || mode === Primitive.Mode.TRIANGLE_FAN) {
        convertPrimitiveToTriangles(primitive);
        converted++;
      }
    }
  }
  if (converted > 0)
    context.logger.debug(`${NAME}: ${converted} strip/fan primitives turned into triangle lists`);

  // Weld first: it rewrites accessors, and dedup then merges the identical ones it produced. In their own accessors
  // where it can: a new accessor per attribute of every part cost a model of 100,000 parts most of this step.
  if (settings.weld) await document.transform(weldInPlace());
  context.onProgress?.(0.6);
  if (settings.dedup) {
    const onProgress = (fraction: number) => context.onProgress?.(0.6 + 0.2 * fraction);
    await document.transform(dedupByHash({ onProgress }));
  }
  context.onProgress?.(0.8);
  // Attributes unused by the material (extra UVs, vertex colours) are kept: the viewer may bind materials that use them.
  await document.transform(prune({ keepAttributes: true, keepSolidTextures: true, keepExtras: true }));
  const undeclared = tidyExtensions(document);
  if (undeclared.length > 0)
    context.logger.debug(`${NAME}: unused extensions dropped: ${undeclared.join(', ')}`);

  // A GLB holds one buffer; importers may have made several, or left accessors without one.
  const buffer = root.listBuffers()[0] ?? document.createBuffer();
  for (const accessor of root.listAccessors()) if (!accessor.getBuffer()) accessor.setBuffer(buffer);
  if (root.listBuffers().length > 1) await document.transform(unpartition());
  context.onProgress?.(1);
}
