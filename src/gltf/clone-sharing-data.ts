import { Primitive, PrimitiveTarget, Root } from '@gltf-transform/core';
import type { Accessor, Document, Texture, TypedArray } from '@gltf-transform/core';
import { cloneDocument } from '@gltf-transform/functions';

/**
 * A copy of `document` for `reorder` and what follows it: the vertex data of indexed primitives (their indices,
 * attributes and morph targets) and the textures' image bytes are shared with the original, not copied. `reorder`
 * replaces every such array with a new one, and `quantize`, the texture ladder and the meshopt encoder replace data
 * rather than change it, so the original is left as it was; this halves what writing a level holds at once (a
 * 20 M-triangle LOD 0 is half a gigabyte of vertex data). Every other accessor (unindexed primitives, animations,
 * skins) is copied as usual.
 */
export function cloneSharingData(document: Document): Document {
  const root = document.getRoot();
  const accessors = root.listAccessors().filter(isIndexedGeometry);
  const textures = root.listTextures();
  const arrays = accessors.map((accessor) => accessor.getArray());
  const images = textures.map((texture) => texture.getImage());
  let copy: Document;
  try {
    // Emptied for the copy only, so it copies no data; an empty array of the same type keeps each component type.
    accessors.forEach((accessor, i) => accessor.setArray(emptyLike(arrays[i])));
    for (const texture of textures) if (texture.getImage()) texture.setImage(new Uint8Array(0));
    copy = cloneDocument(document);
  } finally {
    accessors.forEach((accessor, i) => accessor.setArray(arrays[i]));
    textures.forEach((texture, i) => restoreImage(texture, images[i]));
  }
  const copiedAccessors = copy.getRoot().listAccessors().filter(isIndexedGeometry);
  const copiedTextures = copy.getRoot().listTextures();
  // A clone lists its properties in the original's order; anything else would pair data with the wrong accessor.
  if (copiedAccessors.length !== accessors.length || copiedTextures.length !== textures.length)
    throw new Error('cloneSharingData: the copy does not list the original’s accessors and textures');
  copiedAccessors.forEach((accessor, i) => accessor.setArray(arrays[i]));
  copiedTextures.forEach((texture, i) => restoreImage(texture, images[i]));
  return copy;
}

/** Whether an accessor belongs only to indexed primitives, which `reorder` rewrites with new arrays. */
function isIndexedGeometry(accessor: Accessor): boolean {
  let used = false;
  for (const parent of accessor.listParents()) {
    if (parent instanceof Root) continue;
    const primitive = parent instanceof PrimitiveTarget ? primitiveOfTarget(parent) : parent;
    if (!(primitive instanceof Primitive) || !primitive.getIndices()) return false;
    used = true;
  }
  return used;
}

/** The primitive a morph target belongs to, if any. */
function primitiveOfTarget(target: PrimitiveTarget): Primitive | null {
  for (const parent of target.listParents()) if (parent instanceof Primitive) return parent;
  return null;
}

/** An empty array of the same type as `array`, or null for none. */
function emptyLike(array: TypedArray | null): TypedArray | null {
  if (!array) return null;
  const Empty = array.constructor as new (length: number) => TypedArray;
  return new Empty(0);
}

/** Puts a texture's image back: its bytes, or none where it had none. */
function restoreImage(texture: Texture, image: Uint8Array | null): void {
  if (image) texture.setImage(image);
}
