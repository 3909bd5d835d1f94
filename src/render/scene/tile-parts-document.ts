import { createHash } from 'node:crypto';
import { Document } from '@gltf-transform/core';
import type { Material, Mesh, Primitive, Texture } from '@gltf-transform/core';
import { EXTTextureWebP } from '@gltf-transform/extensions';
import { featureParts } from './feature-group-ids.ts';
import { readFloats } from './read-attribute.ts';

/** glTF's TRIANGLES draw mode; tiles draw nothing else. */
const TRIANGLES = 4;

/**
 * One document drawing the given tiles together, their parts laid out as a model's levels are: under a node per
 * tile (its world transform, which undoes a quantized tile's grid), a node per part with its `extras.group_id`, so
 * the renderer's bound colours find them. A tile's part is each triangle's first vertex's `EXT_mesh_features`
 * feature, resolved by the tile's table of parts; each part's primitive holds only its own vertices, as floats,
 * with the tile's UVs, colours and base-colour texture (one copy of each texture image however many tiles use it).
 */
export function tilePartsDocument(tiles: readonly Document[]): Document {
  const target = new Document();
  const buffer = target.createBuffer();
  const scene = target.createScene();
  const materials = new Map<Material, Material>();
  const textures = new Map<string, Texture>();
  for (const tile of tiles) {
    const root = tile.getRoot();
    const tileScene = root.getDefaultScene() ?? root.listScenes()[0];
    tileScene?.traverse((node) => {
      const mesh = node.getMesh();
      if (!mesh) return;
      const holder = target.createNode(node.getName()).setMatrix(node.getWorldMatrix());
      scene.addChild(holder);
      const parts = new Map<string, Mesh>();
      const partMesh = (groupId: string): Mesh => {
        let part = parts.get(groupId);
        if (!part) {
          part = target.createMesh(groupId);
          parts.set(groupId, part);
          const child = target.createNode(groupId).setMesh(part);
          holder.addChild(groupId ? child.setExtras({ group_id: groupId }) : child);
        }
        return part;
      };
      for (const primitive of mesh.listPrimitives()) {
        if (primitive.getMode() !== TRIANGLES || !primitive.getAttribute('POSITION')) continue;
        const material = primitive.getMaterial();
        for (const [groupId, indices] of trianglesByPart(primitive)) {
          const copy = copyTriangles(target, buffer, primitive, indices);
          if (material) copy.setMaterial(copyMaterial(target, material, materials, textures));
          partMesh(groupId).addPrimitive(copy);
        }
      }
    });
  }
  return target;
}

/** A primitive's triangles (vertex indices, three a triangle) by the `group_id` of their first vertex's part. */
function trianglesByPart(primitive: Primitive): Map<string, number[]> {
  const vertexCount = primitive.getAttribute('POSITION')!.getCount();
  const indices = primitive.getIndices()?.getArray() ?? null;
  const count = indices ? indices.length : vertexCount;
  const parts = featureParts(primitive);
  const byPart = new Map<string, number[]>();
  for (let at = 0; at + 2 < count; at += 3) {
    const a = indices ? indices[at] : at;
    const b = indices ? indices[at + 1] : at + 1;
    const c = indices ? indices[at + 2] : at + 2;
    if (a >= vertexCount || b >= vertexCount || c >= vertexCount) continue;
    // A vertex of no known part (or a tile without parts) still draws, in no part's colour.
    const groupId = (parts && parts.groupIds[parts.vertexFeatures[a]]) ?? '';
    let list = byPart.get(groupId);
    if (!list) byPart.set(groupId, (list = []));
    list.push(a, b, c);
  }
  return byPart;
}

/** A primitive of `target` drawing the given triangles of `source`, with only the vertices they use, as floats. */
function copyTriangles(
  target: Document,
  buffer: ReturnType<Document['createBuffer']>,
  source: Primitive,
  triangles: number[],
): Primitive {
  const remap = new Map<number, number>();
  const indices = new Uint32Array(triangles.length);
  triangles.forEach((vertex, at) => {
    let next = remap.get(vertex);
    if (next === undefined) remap.set(vertex, (next = remap.size));
    indices[at] = next;
  });
  const primitive = target
    .createPrimitive()
    .setIndices(target.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer));
  for (const semantic of ['POSITION', 'NORMAL', 'TEXCOORD_0', 'COLOR_0']) {
    const accessor = source.getAttribute(semantic);
    if (!accessor) continue;
    const floats = readFloats(accessor);
    const size = accessor.getElementSize();
    const values = new Float32Array(remap.size * size);
    for (const [from, to] of remap) values.set(floats.subarray(from * size, from * size + size), to * size);
    primitive.setAttribute(
      semantic,
      target.createAccessor().setType(accessor.getType()).setArray(values).setBuffer(buffer),
    );
  }
  return primitive;
}

/** The copy in `target` of a tile's material (its factors and base-colour texture), made once. */
function copyMaterial(
  target: Document,
  material: Material,
  copies: Map<Material, Material>,
  textures: Map<string, Texture>,
): Material {
  let copy = copies.get(material);
  if (!copy) {
    copy = target
      .createMaterial(material.getName())
      .setBaseColorFactor(material.getBaseColorFactor())
      .setEmissiveFactor(material.getEmissiveFactor())
      .setMetallicFactor(material.getMetallicFactor())
      .setRoughnessFactor(material.getRoughnessFactor())
      .setDoubleSided(material.getDoubleSided())
      .setAlphaMode(material.getAlphaMode())
      .setAlphaCutoff(material.getAlphaCutoff());
    const texture = material.getBaseColorTexture();
    const image = texture?.getImage();
    if (texture && image) {
      // Tiles of one height embed the same image: drawn from one copy, found by its bytes.
      const key = createHash('sha1').update(image).digest('hex');
      let textureCopy = textures.get(key);
      if (!textureCopy) {
        textureCopy = target
          .createTexture(texture.getName())
          .setImage(image)
          .setMimeType(texture.getMimeType());
        const webp = EXTTextureWebP.EXTENSION_NAME;
        const used = target.getRoot().listExtensionsUsed();
        if (
          texture.getMimeType() === 'image/webp' &&
          !used.some((extension) => extension.extensionName === webp)
        )
          target.createExtension(EXTTextureWebP).setRequired(true);
        textures.set(key, textureCopy);
      }
      const info = material.getBaseColorTextureInfo()!;
      copy
        .setBaseColorTexture(textureCopy)
        .getBaseColorTextureInfo()!
        .setTexCoord(info.getTexCoord())
        .setWrapS(info.getWrapS())
        .setWrapT(info.getWrapT());
    }
    copies.set(material, copy);
  }
  return copy;
}
