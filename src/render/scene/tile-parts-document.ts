import { createHash } from 'node:crypto';
import { Document } from '@gltf-transform/core';
import type { Material, Primitive, Texture, TypedArray } from '@gltf-transform/core';
import { EXTTextureWebP } from '@gltf-transform/extensions';
import { featureParts } from './feature-group-ids.ts';
import { readFloats, triangleList } from './read-attribute.ts';
import { addPartFeatures } from '../../pipeline/tiles/part-features.ts';
import { featureArray } from '../../pipeline/tiles/tile-document.ts';
import type { TilePart } from '../../pipeline/tiles/triangle-soup.ts';

/** glTF's TRIANGLES draw mode; tiles draw nothing else. */
const TRIANGLES = 4;

/**
 * One document drawing the given tiles together, laid out as a batched level is: a node per tile (its world
 * transform, which undoes a quantized tile's grid) drawing the tile's primitives whole, as floats, with their UVs,
 * colours and base-colour textures (one copy of each texture image however many tiles use it), and each vertex's
 * part as a feature id into one table of every tile's parts (`EXT_mesh_features`, `EXT_structural_metadata`, as
 * part-features.ts writes them). The renderer splits out only the parts it paints; a node per part of a cut of
 * 100,000 parts took most of a minute to make and draw.
 */
export function tilePartsDocument(tiles: readonly Document[]): Document {
  const target = new Document();
  const buffer = target.createBuffer();
  const scene = target.createScene();
  const materials = new Map<Material, Material>();
  const textures = new Map<string, Texture>();
  const parts = new PartTable();
  const featured: { primitive: Primitive; features: Uint32Array }[] = [];
  for (const tile of tiles) {
    const root = tile.getRoot();
    const tileScene = root.getDefaultScene() ?? root.listScenes()[0];
    tileScene?.traverse((node) => {
      const mesh = node.getMesh();
      if (!mesh) return;
      const drawn = target.createMesh(node.getName());
      for (const primitive of mesh.listPrimitives()) {
        if (primitive.getMode() !== TRIANGLES || !primitive.getAttribute('POSITION')) continue;
        const copy = copyPrimitive(target, buffer, primitive);
        const material = primitive.getMaterial();
        if (material) copy.setMaterial(copyMaterial(target, material, materials, textures));
        const features = parts.featuresOf(primitive);
        if (features) featured.push({ primitive: copy, features });
        drawn.addPrimitive(copy);
      }
      if (drawn.listPrimitives().length === 0) {
        drawn.dispose();
        return;
      }
      scene.addChild(target.createNode(node.getName()).setMatrix(node.getWorldMatrix()).setMesh(drawn));
    });
  }
  if (featured.length === 0) return target;
  for (const { primitive, features } of featured) {
    const ids = target
      .createAccessor()
      .setType('SCALAR')
      .setArray(featureArray(features, parts.list.length) as TypedArray);
    primitive.setAttribute('_FEATURE_ID_0', ids.setBuffer(buffer));
  }
  addPartFeatures(
    target,
    featured.map(({ primitive }) => primitive),
    parts.list,
  );
  return target;
}

/** The parts of several tiles in one table: each `group_id` once, in the order first met. */
class PartTable {
  readonly list: TilePart[] = [];
  private readonly ids = new Map<string, number>();

  /**
   * Each vertex's id in this table, from the tile's own feature id and table; a vertex of no known part gets the
   * part of no `group_id`, drawn in no part's colour. Null for a primitive without parts.
   */
  featuresOf(primitive: Primitive): Uint32Array | null {
    const parts = featureParts(primitive);
    if (!parts) return null;
    const local = parts.groupIds.map((groupId, feature) => this.idOf(groupId, parts.names[feature] ?? ''));
    const vertices = parts.vertexFeatures;
    const features = new Uint32Array(primitive.getAttribute('POSITION')!.getCount());
    for (let vertex = 0; vertex < features.length; vertex++)
      features[vertex] = local[vertices[vertex] ?? -1] ?? this.idOf('', '');
    return features;
  }

  private idOf(groupId: string, name: string): number {
    let id = this.ids.get(groupId);
    if (id === undefined) {
      this.ids.set(groupId, (id = this.list.length));
      this.list.push({ group_id: groupId, name: name || groupId });
    }
    return id;
  }
}

/** A float copy in `target` of a primitive's triangles, its attributes and its indices within its vertices. */
function copyPrimitive(
  target: Document,
  buffer: ReturnType<Document['createBuffer']>,
  source: Primitive,
): Primitive {
  const vertexCount = source.getAttribute('POSITION')!.getCount();
  // A corner past the vertices (a damaged tile) would read out of bounds: its triangle is left out.
  const indices = triangleList(source.getIndices(), vertexCount, TRIANGLES, false);
  const primitive = target.createPrimitive().setIndices(
    target
      .createAccessor()
      .setType('SCALAR')
      .setArray(indices as TypedArray)
      .setBuffer(buffer),
  );
  for (const semantic of ['POSITION', 'NORMAL', 'TEXCOORD_0', 'COLOR_0']) {
    const accessor = source.getAttribute(semantic);
    if (!accessor) continue;
    const values = Float32Array.from(
      readFloats(accessor).subarray(0, vertexCount * accessor.getElementSize()),
    );
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
