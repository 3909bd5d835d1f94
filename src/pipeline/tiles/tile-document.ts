import { Document } from '@gltf-transform/core';
import type { Buffer, ILogger, Material, Primitive, Accessor } from '@gltf-transform/core';
import { addPartFeatures } from './part-features.ts';
import type { TileGeometry } from './tile-geometry.ts';
import { tileNormals, tilePositions } from './tile-geometry.ts';
import type { TriangleSoup } from './triangle-soup.ts';

/**
 * A glTF document of one tile alone: one primitive per material it uses, positions and normals in the model's
 * frame (metres, +Y up), and each vertex's part as an `EXT_mesh_features` feature id resolved by the tile's
 * `EXT_structural_metadata` table of parts. Built from the soup and this tile's ids only, so a tile costs the
 * memory of its own triangles.
 */
export function tileDocument(soup: TriangleSoup, geometry: TileGeometry, logger: ILogger): Document {
  const document = new Document().setLogger(logger);
  const buffer = document.createBuffer();
  const positions = tilePositions(soup, geometry);
  const normals = tileNormals(soup, geometry);

  // The tile's parts, numbered from 0 in the order met: its feature ids.
  const featureOf = new Map<number, number>();
  const features = new Uint16Array(geometry.vertices.length);
  const partIds: number[] = [];
  geometry.vertices.forEach((vertex, index) => {
    const part = soup.vertexPart[vertex];
    let feature = featureOf.get(part);
    if (feature === undefined) {
      feature = partIds.length;
      featureOf.set(part, feature);
      partIds.push(part);
    }
    features[index] = feature;
  });
  if (partIds.length > 0xffff) throw new Error(`a tile holds ${partIds.length} parts, more than 65,535`);

  const position = attribute(document, buffer, 'VEC3', positions);
  const normal = attribute(document, buffer, 'VEC3', normals);
  const featureId = attribute(document, buffer, 'SCALAR', features);
  const mesh = document.createMesh();
  const primitives: Primitive[] = [];
  for (const [materialId, indices] of trianglesByMaterial(soup, geometry)) {
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', position)
      .setAttribute('NORMAL', normal)
      .setAttribute('_FEATURE_ID_0', featureId)
      .setIndices(attribute(document, buffer, 'SCALAR', indices))
      .setMaterial(soupMaterial(document, soup, materialId));
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

/** An accessor over `array` in the document's one buffer. */
function attribute(
  document: Document,
  buffer: Buffer,
  type: 'SCALAR' | 'VEC3',
  array: Float32Array | Uint16Array | Uint32Array,
): Accessor {
  return document
    .createAccessor()
    .setType(type)
    .setArray(array as Float32Array<ArrayBuffer>)
    .setBuffer(buffer);
}

/** The tile's triangles grouped by the material of their first vertex (a primitive has one material). */
function trianglesByMaterial(
  soup: TriangleSoup,
  geometry: TileGeometry,
): Map<number, Uint16Array | Uint32Array> {
  const { indices, vertices } = geometry;
  const triangles = indices.length / 3;
  const materials = new Uint16Array(triangles);
  const counts = new Uint32Array(soup.materials.length);
  for (let t = 0; t < triangles; t++) {
    materials[t] = soup.vertexMaterial[vertices[indices[t * 3]]];
    counts[materials[t]]++;
  }
  const groups = new Map<number, Uint16Array | Uint32Array>();
  const filled = new Uint32Array(soup.materials.length);
  counts.forEach((count, id) => {
    // 16-bit indices where the tile's vertices allow: half the index bytes before compression.
    if (count > 0)
      groups.set(id, vertices.length <= 0xffff ? new Uint16Array(count * 3) : new Uint32Array(count * 3));
  });
  for (let t = 0; t < triangles; t++) {
    const group = groups.get(materials[t])!;
    const at = filled[materials[t]];
    group[at] = indices[t * 3];
    group[at + 1] = indices[t * 3 + 1];
    group[at + 2] = indices[t * 3 + 2];
    filled[materials[t]] = at + 3;
  }
  return groups;
}

/** A glTF material with the factors the soup kept for material `id`. */
export function soupMaterial(document: Document, soup: TriangleSoup, id: number): Material {
  const look = soup.materials[id];
  return document
    .createMaterial()
    .setBaseColorFactor(look.baseColor)
    .setMetallicFactor(look.metallic)
    .setRoughnessFactor(look.roughness)
    .setDoubleSided(look.doubleSided)
    .setAlphaMode(look.blend ? 'BLEND' : 'OPAQUE');
}
