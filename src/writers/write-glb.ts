import type { Document } from '@gltf-transform/core';
import { prune } from '@gltf-transform/functions';
import { createNodeIO } from '../gltf/create-io.ts';

/** Transfer compression a converted LOD may carry; an export is for other tools, so it goes out plain. */
const COMPRESSION_EXTENSIONS = ['EXT_meshopt_compression'];

/**
 * Writes the document as glTF binary: nodes, names and `extras.group_id` as converted, materials replaced by the
 * bound ones, and the materials and textures no part uses any more dropped so the file stays validator-clean.
 */
export async function writeGlb(document: Document): Promise<Uint8Array> {
  for (const extension of document.getRoot().listExtensionsUsed()) {
    if (COMPRESSION_EXTENSIONS.includes(extension.extensionName)) extension.dispose();
  }
  // Only what a repaint can orphan; nodes, meshes and accessors are left exactly as converted.
  await document.transform(prune({ propertyTypes: ['Material', 'Texture'], keepLeaves: true }));
  const io = await createNodeIO();
  return io.writeBinary(document);
}
