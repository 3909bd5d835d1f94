import { Document, Primitive, PrimitiveTarget, PropertyType, Root } from '@gltf-transform/core';
import type { Accessor, Property, Texture, TypedArray } from '@gltf-transform/core';
import { cloneDocument } from '@gltf-transform/functions';
import { $attributes, RefSet } from 'property-graph';
import type { GraphEdge } from 'property-graph';

/**
 * A copy of `document` for `reorder` and what follows it: the vertex data of indexed primitives (their indices,
 * attributes and morph targets) and the textures' image bytes are shared with the original, not copied. `reorder`
 * replaces every such array with a new one, and `quantize`, the texture ladder and the meshopt encoder replace data
 * rather than change it, so the original is left as it was; this halves what writing a level holds at once (a
 * 20 M-triangle LOD 0 is half a gigabyte of vertex data). Every other accessor (unindexed primitives, animations,
 * skins) is copied as usual.
 */
export function cloneSharingData(document: Document): Document {
  return copySharingData(document, new Set(), () => cloneDocument(document));
}

/**
 * {@link cloneSharingData} leaving out the properties in `without` (meshes no copied node is to draw, with their
 * primitives and the accessors only those use, and nodes that only a scene or a node holds): a reference to one of
 * them is copied as none, and a scene or node holds the rest of its children. Returns the copy and
 * where each copied property went.
 */
export function cloneSharingDataWithout(
  document: Document,
  without: ReadonlySet<Property>,
): { copy: Document; copied: <T extends Property>(property: T) => T } {
  let map = new Map<Property, Property>();
  const copy = copySharingData(document, without, () => {
    const made = copyWithout(document, without);
    map = made.map;
    return made.copy;
  });
  return {
    copy,
    copied: <T extends Property>(property: T) => {
      const found = map.get(property);
      if (!found) throw new Error(`cloneSharingDataWithout: a ${property.propertyType} was not copied`);
      return found as T;
    },
  };
}

/**
 * Runs `clone` with the indexed geometry's arrays and the textures' images set aside, and shares them with the copy
 * it makes, which holds every accessor and texture of `document` but those in `without`.
 */
function copySharingData(
  document: Document,
  without: ReadonlySet<Property>,
  clone: () => Document,
): Document {
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
    copy = clone();
  } finally {
    accessors.forEach((accessor, i) => accessor.setArray(arrays[i]));
    textures.forEach((texture, i) => restoreImage(texture, images[i]));
  }
  // A copy lists its properties in the original's order; anything else would pair data with the wrong accessor.
  const keptArrays = arrays.filter((_, i) => !without.has(accessors[i]!));
  const copiedAccessors = copy.getRoot().listAccessors().filter(isIndexedGeometry);
  const copiedTextures = copy.getRoot().listTextures();
  if (copiedAccessors.length !== keptArrays.length || copiedTextures.length !== textures.length)
    throw new Error('cloneSharingData: the copy does not list the original’s accessors and textures');
  copiedAccessors.forEach((accessor, i) => accessor.setArray(keptArrays[i]!));
  copiedTextures.forEach((texture, i) => restoreImage(texture, images[i]));
  return copy;
}

/**
 * A copy of `source` without the properties in `without`, as glTF-Transform's `cloneDocument` makes one (its
 * extensions, every property an edge reaches, then the root's own fields), with references to left-out properties
 * copied as none.
 */
function copyWithout(
  source: Document,
  without: ReadonlySet<Property>,
): { copy: Document; map: Map<Property, Property> } {
  const target = new Document().setLogger(source.getLogger());
  for (const extension of source.getRoot().listExtensionsUsed()) {
    const made = target.createExtension(
      extension.constructor as new (document: Document) => typeof extension,
    );
    if (extension.isRequired()) made.setRequired(true);
  }
  const map = new Map<Property, Property>([[source.getRoot(), target.getRoot()]]);
  const resolve = (property: Property): Property | null => {
    // A texture's info is copied into the material's own (glTF-Transform's resolver does the same).
    if (property.propertyType === PropertyType.TEXTURE_INFO) return property;
    if (without.has(property)) return null;
    let made = map.get(property);
    if (!made) {
      const Class = property.constructor as new (graph: ReturnType<Document['getGraph']>) => Property;
      map.set(property, (made = new Class(target.getGraph())));
    }
    return made;
  };
  const properties = new Set<Property>();
  for (const edge of source.getGraph().listEdges()) {
    const child = edge.getChild() as Property;
    if (!without.has(child) && child.propertyType !== PropertyType.TEXTURE_INFO) properties.add(child);
  }
  const pairs = [...properties].map((property) => [property, resolve(property)!] as const);
  const resolver = resolve as <T extends Property>(property: T) => T;
  for (const [from, to] of pairs) copyLeavingOut(from, to, resolver, without);
  target.getRoot().copy(source.getRoot(), resolver);
  return { copy: target, map };
}

/**
 * `to.copy(from)`, with the children in `without` left out of a scene's or node's own. glTF-Transform copies a set
 * of references whole, and a reference to nothing is not one, so the copy is made from the set without them: set
 * in place of the original's for the copy only, with no change to the original's graph.
 */
function copyLeavingOut(
  from: Property,
  to: Property,
  resolver: <T extends Property>(property: T) => T,
  without: ReadonlySet<Property>,
): void {
  const attributes = (from as unknown as Record<symbol, Record<string, unknown>>)[$attributes]!;
  const children = attributes.children;
  const refs = children instanceof RefSet ? (children.values() as GraphEdge<Property, Property>[]) : [];
  if (!refs.some((ref) => without.has(ref.getChild()))) {
    to.copy(from, resolver);
    return;
  }
  attributes.children = new RefSet(refs.filter((ref) => !without.has(ref.getChild())));
  try {
    to.copy(from, resolver);
  } finally {
    attributes.children = children;
  }
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
