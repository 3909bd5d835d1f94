import { Document } from '@gltf-transform/core';
import type { ILogger } from '@gltf-transform/core';
import type { TileGeometry } from './tile-geometry.ts';
import { soupMaterials, surfaceAttributes } from './tile-document.ts';
import { tileNormals, tilePositions } from './tile-geometry.ts';
import type { TileImage } from './tile-textures.ts';
import type { TriangleSoup } from './triangle-soup.ts';

/**
 * A glTF document of a cut through the tile tree (the root's children merged, say) laid out as the levels are: one
 * node per part with its `extras.group_id` and name, one primitive per material, textured with `images` (the soup's
 * textures at the cut's size), so what draws a level (the
 * thumbnail renderer and its bound colours) draws it alike, from a few hundred thousand triangles instead of LOD 0.
 */
export function cutDocument(
  soup: TriangleSoup,
  geometry: TileGeometry,
  images: readonly TileImage[],
  logger: ILogger,
): Document {
  const document = new Document().setLogger(logger);
  const buffer = document.createBuffer();
  const scene = document.createScene();
  const surface = surfaceAttributes(document, buffer, soup, geometry);
  const material = soupMaterials(document, soup, images);
  const positions = tilePositions(soup, geometry);
  const normals = tileNormals(soup, geometry);
  const position = document
    .createAccessor()
    .setType('VEC3')
    .setArray(positions as Float32Array<ArrayBuffer>)
    .setBuffer(buffer);
  const normal =
    normals &&
    document
      .createAccessor()
      .setType('VEC3')
      .setArray(normals as Float32Array<ArrayBuffer>)
      .setBuffer(buffer);

  // Triangles by part, then by material: a key of both per triangle, from its first vertex.
  const byKey = new Map<string, number[]>();
  const { indices, vertices } = geometry;
  for (let t = 0; t < indices.length; t += 3) {
    const vertex = vertices[indices[t]];
    const key = `${soup.vertexPart[vertex]} ${soup.vertexMaterial[vertex]}`;
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push(indices[t], indices[t + 1], indices[t + 2]);
  }
  const meshes = new Map<number, ReturnType<Document['createMesh']>>();
  for (const [key, list] of byKey) {
    const [part, materialId] = key.split(' ').map(Number);
    let mesh = meshes.get(part);
    if (!mesh) {
      const { group_id, name } = soup.parts[part];
      mesh = document.createMesh(name);
      meshes.set(part, mesh);
      scene.addChild(document.createNode(name).setMesh(mesh).setExtras({ group_id }));
    }
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', position)
      .setAttribute('NORMAL', normal)
      .setIndices(
        document.createAccessor().setType('SCALAR').setArray(Uint32Array.from(list)).setBuffer(buffer),
      )
      .setMaterial(material(materialId));
    for (const [semantic, accessor] of surface) primitive.setAttribute(semantic, accessor);
    mesh.addPrimitive(primitive);
  }
  return document;
}
