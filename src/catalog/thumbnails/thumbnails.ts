import { createHash } from 'node:crypto';
import type { ILogger } from '@gltf-transform/core';
import type { MaterialRepository } from '../../materials/repository.ts';
import type { Material } from '../../materials/schemas.ts';
import type { MaterialOverride } from '../../render/render-thumbnail.ts';
import { modelPrefix } from '../lod-keys.ts';

/** Renders a GLB to PNG bytes with the given part colours (the CPU renderer, in a conversion thread). */
export type RenderThumbnail = (
  glb: Uint8Array,
  overrides: ReadonlyMap<string, MaterialOverride>,
  /** Where the renderer's warnings go. */
  logger?: ILogger,
) => Promise<Buffer>;

/** What thumbnail rendering needs. */
export interface ThumbnailDependencies {
  materials: MaterialRepository;
  render: RenderThumbnail;
}

/**
 * Blob key of a thumbnail, in the model's folder or another (a version's): the content hash in the name lets
 * clients cache it forever.
 */
export function thumbnailKey(
  modelId: string,
  bytes: Uint8Array,
  extension: 'png' | 'jpg',
  folder = modelPrefix(modelId),
): string {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return `${folder}thumbnail-${hash}.${extension}`;
}

/** The colours of the materials bound to the given groups, as the renderer takes them (0–1). */
export async function boundColours(
  materials: MaterialRepository,
  groupIds: readonly string[],
): Promise<Map<string, MaterialOverride>> {
  return coloursOf((await materials.lookup(groupIds)).bound);
}

/** The colours of bound materials, by group, as the renderer takes them (0–1). */
export function coloursOf(bound: ReadonlyMap<string, Material>): Map<string, MaterialOverride> {
  const overrides = new Map<string, MaterialOverride>();
  for (const [groupId, material] of bound) {
    overrides.set(groupId, {
      color: [material.diffuse_r / 255, material.diffuse_g / 255, material.diffuse_b / 255],
      alpha: material.alpha / 255,
    });
  }
  return overrides;
}

/** Renders a model's GLB to PNG bytes with the materials bound to its parts applied. */
export async function renderWithBoundMaterials(
  deps: ThumbnailDependencies,
  glb: Uint8Array,
  groupIds: readonly string[],
  logger?: ILogger,
): Promise<Buffer> {
  return deps.render(glb, await boundColours(deps.materials, groupIds), logger);
}
