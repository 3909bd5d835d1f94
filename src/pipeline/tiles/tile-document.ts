import { Document } from '@gltf-transform/core';
import type { Buffer, ILogger, Material, Primitive, Accessor, Texture } from '@gltf-transform/core';
import { EXTTextureWebP } from '@gltf-transform/extensions';
import { addPartFeatures } from './part-features.ts';
import type { TileGeometry } from './tile-geometry.ts';
import type { TileVertexData } from './tile-geometry.ts';
import { tileColors, tileUvs, tileVertexData } from './tile-geometry.ts';
import type { TileImage } from './tile-textures.ts';
import type { TriangleSoup } from './triangle-soup.ts';

/**
 * A glTF document of one tile alone: one primitive per material it uses, positions and normals in the model's
 * frame (metres, +Y up), UVs and colours where the soup has them, base-colour textures from `images` (the soup's
 * textures at this tile's size), and each vertex's part as an `EXT_mesh_features` feature id resolved by the tile's
 * `EXT_structural_metadata` table of parts. Built from the soup and this tile's ids only, so a tile costs the
 * memory of its own triangles; its positions and normals are taken as given when they are (never altered).
 */
export function tileDocument(
  soup: TriangleSoup,
  geometry: TileGeometry,
  images: readonly TileImage[],
  logger: ILogger,
  vertexData: TileVertexData = tileVertexData(soup, geometry),
): Document {
  const document = new Document().setLogger(logger);
  const buffer = document.createBuffer();
  const { positions, normals } = vertexData;
  const surface = surfaceAttributes(document, buffer, soup, geometry);
  const material = soupMaterials(document, soup, images);

  // The tile's parts, numbered from 0 in the order met: its feature ids.
  const featureOf = new Map<number, number>();
  const features = new Uint32Array(geometry.vertices.length);
  const partIds: number[] = [];
  const { vertices } = geometry;
  // A part's vertices mostly follow one another: the last part's feature is kept rather than looked up again.
  let lastPart = -1;
  let lastFeature = 0;
  for (let index = 0; index < vertices.length; index++) {
    const part = soup.vertexPart[vertices[index]];
    if (part !== lastPart) {
      let feature = featureOf.get(part);
      if (feature === undefined) {
        feature = partIds.length;
        featureOf.set(part, feature);
        partIds.push(part);
      }
      lastPart = part;
      lastFeature = feature;
    }
    features[index] = lastFeature;
  }
  if (partIds.length > MAX_FEATURES) {
    throw new Error(`a tile holds ${partIds.length} parts, more than ${MAX_FEATURES.toLocaleString('en')}`);
  }

  const position = attribute(document, buffer, 'VEC3', positions);
  const normal = normals && attribute(document, buffer, 'VEC3', normals);
  const featureId = attribute(document, buffer, 'SCALAR', featureArray(features, partIds.length));
  const mesh = document.createMesh();
  const primitives: Primitive[] = [];
  for (const [materialId, indices] of trianglesByMaterial(soup, geometry)) {
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', position)
      .setAttribute('_FEATURE_ID_0', featureId)
      .setIndices(attribute(document, buffer, 'SCALAR', indices))
      .setMaterial(material(materialId));
    if (normal) primitive.setAttribute('NORMAL', normal);
    for (const [semantic, accessor] of surface) primitive.setAttribute(semantic, accessor);
    mesh.addPrimitive(primitive);
    primitives.push(primitive);
  }
  addPartFeatures(
    document,
    primitives,
    partIds.map((part) => soup.parts[part]),
  );
  document.createScene().addChild(document.createNode().setMesh(mesh));
  return document;
}

/**
 * Most parts a tile's feature ids tell apart: a float feature id (glTF has no 32-bit integer vertex attribute) is
 * exact up to 2^24.
 */
const MAX_FEATURES = 2 ** 24;

/**
 * The feature ids as a vertex attribute stores them: 16-bit while the tile holds at most 65,536 parts, else 32-bit
 * floats, as `EXT_mesh_features` allows (a coarse tile of a model of 100,000 small parts holds them all).
 */
export function featureArray(features: Uint32Array, count: number): Uint16Array | Float32Array {
  return count <= 0x10000 ? Uint16Array.from(features) : Float32Array.from(features);
}

/** An accessor over `array` in the document's one buffer. */
function attribute(
  document: Document,
  buffer: Buffer,
  type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4',
  array: Float32Array | Uint16Array | Uint32Array,
): Accessor {
  return document
    .createAccessor()
    .setType(type)
    .setArray(array as Float32Array<ArrayBuffer>)
    .setBuffer(buffer);
}

/**
 * A tile's `TEXCOORD_0` and `COLOR_0` accessors, where the soup has UVs and colours: every primitive of the tile
 * takes both (a material without a texture ignores the UVs; a vertex without a colour is white, which changes
 * nothing).
 */
export function surfaceAttributes(
  document: Document,
  buffer: Buffer,
  soup: TriangleSoup,
  geometry: TileGeometry,
): [string, Accessor][] {
  const attributes: [string, Accessor][] = [];
  const uvs = tileUvs(soup, geometry);
  if (uvs) attributes.push(['TEXCOORD_0', attribute(document, buffer, 'VEC2', uvs)]);
  const colors = tileColors(soup, geometry);
  if (colors) attributes.push(['COLOR_0', attribute(document, buffer, 'VEC4', colors).setNormalized(true)]);
  return attributes;
}

/** The tile's triangles grouped by the material of their first vertex (a primitive has one material). */
function trianglesByMaterial(
  soup: TriangleSoup,
  geometry: TileGeometry,
): Map<number, Uint16Array | Uint32Array> {
  const { indices, vertices } = geometry;
  const triangles = indices.length / 3;
  // 16-bit indices where the tile's vertices allow: half the index bytes before compression.
  const indexArray = (length: number) =>
    vertices.length <= 0xffff ? new Uint16Array(length) : new Uint32Array(length);
  if (soup.materials.length === 1) {
    // One material, one group: the indices as they are (most models, and every STL).
    const group = indexArray(indices.length);
    group.set(indices);
    return new Map([[0, group]]);
  }
  const materials = new Uint16Array(triangles);
  const counts = new Uint32Array(soup.materials.length);
  for (let t = 0; t < triangles; t++) {
    materials[t] = soup.vertexMaterial[vertices[indices[t * 3]]];
    counts[materials[t]]++;
  }
  const groups = new Map<number, Uint16Array | Uint32Array>();
  // By material id, for the loop below: a Map lookup a triangle costs more than the copy.
  const byId: (Uint16Array | Uint32Array)[] = [];
  counts.forEach((count, id) => {
    if (count > 0) groups.set(id, (byId[id] = indexArray(count * 3)));
  });
  const filled = new Uint32Array(soup.materials.length);
  for (let t = 0; t < triangles; t++) {
    const group = byId[materials[t]];
    const at = filled[materials[t]];
    group[at] = indices[t * 3];
    group[at + 1] = indices[t * 3 + 1];
    group[at + 2] = indices[t * 3 + 2];
    filled[materials[t]] = at + 3;
  }
  return groups;
}

/**
 * The glTF material of the soup's material `id` in `document`, made once: the factors the soup kept, and its
 * base-colour texture from `images` (one texture per image in the document, however many materials use it).
 */
export function soupMaterials(
  document: Document,
  soup: TriangleSoup,
  images: readonly TileImage[],
): (id: number) => Material {
  const materials = new Map<number, Material>();
  const textures = new Map<number, Texture>();
  const texture = (index: number): Texture => {
    let made = textures.get(index);
    if (!made) {
      const { image, mimeType } = images[index];
      made = document.createTexture(soup.textures[index].name).setImage(image).setMimeType(mimeType);
      if (mimeType === 'image/webp' && !document.getRoot().listExtensionsUsed().some(isWebp))
        document.createExtension(EXTTextureWebP).setRequired(true);
      textures.set(index, made);
    }
    return made;
  };
  return (id) => {
    let material = materials.get(id);
    if (material) return material;
    const look = soup.materials[id];
    material = document
      .createMaterial()
      .setBaseColorFactor(look.baseColor)
      .setMetallicFactor(look.metallic)
      .setRoughnessFactor(look.roughness)
      .setDoubleSided(look.doubleSided)
      .setAlphaMode(look.blend ? 'BLEND' : 'OPAQUE');
    if (look.baseColorTexture) {
      const { texture: index, wrapS, wrapT } = look.baseColorTexture;
      material.setBaseColorTexture(texture(index)).getBaseColorTextureInfo()!.setWrapS(wrapS).setWrapT(wrapT);
    }
    materials.set(id, material);
    return material;
  };
}

/** Whether an extension is `EXT_texture_webp`. */
function isWebp(extension: { extensionName: string }): boolean {
  return extension.extensionName === EXTTextureWebP.EXTENSION_NAME;
}
