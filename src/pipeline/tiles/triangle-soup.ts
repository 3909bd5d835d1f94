import { Primitive } from '@gltf-transform/core';
import type { Document, Material, Node, Texture, TextureInfo, mat4 } from '@gltf-transform/core';
import { faceNormal } from '../../gltf/face-normal.ts';
import { listMeshNodes } from '../../gltf/measure-geometry.ts';
import { partName } from '../extract-parts.ts';
import { floatArray, floatNormals, floatPositions, uint32Indices } from '../lods/primitive-arrays.ts';
import { matrixScale } from '../lods/make-lods.ts';
import type { StepContext } from '../types.ts';

/** Step name used in logs. */
export const NAME = 'triangle-soup';

/** A part as the tiles carry it: the feature a vertex belongs to. */
export interface TilePart {
  group_id: string;
  name: string;
}

/** A texture image as the source had it, shared by the materials that use it. */
export interface TileTexture {
  image: Uint8Array;
  mimeType: string;
  name: string;
}

/** How a texture wraps along one axis (glTF's sampler modes). */
type WrapMode = ReturnType<TextureInfo['getWrapS']>;

/** A material's base-colour texture: which of the soup's textures, and how it wraps. */
export interface TileTextureRef {
  /** Index into the soup's `textures`. */
  texture: number;
  wrapS: WrapMode;
  wrapT: WrapMode;
}

/** The look of a material the tiles keep: its factors and its base-colour texture. */
export interface TileMaterial {
  baseColor: [number, number, number, number];
  /** Read through the soup's `uvs`, which hold the UV set this texture uses; null without one. */
  baseColorTexture: TileTextureRef | null;
  metallic: number;
  roughness: number;
  doubleSided: boolean;
  blend: boolean;
}

/**
 * Every triangle of a model in a few flat arrays, in world space (metres, +Y up), each vertex tagged with its part
 * and material, with its UVs and colour where the model has any: about 30 bytes a triangle (8 more a vertex for
 * each of UVs and colours), so the tiler holds the model once, compactly, and builds each tile's
 * glTF document from it alone.
 */
export interface TriangleSoup {
  /** Three floats per vertex. */
  positions: Float32Array;
  /**
   * Three floats per vertex, unit length; null when no primitive of the model has normals. Such a model is drawn
   * flat from its positions, by its levels as by its tiles (glTF's rule for a primitive without normals), so the
   * tiles carry none either: an STL's welded vertices would otherwise be smoothed across its hard edges.
   */
  normals: Float32Array | null;
  /** Index into `parts` per vertex. */
  vertexPart: Uint32Array;
  /** Index into `materials` per vertex. */
  vertexMaterial: Uint16Array;
  /**
   * Two floats per vertex: the UV set its material's base-colour texture reads (0 where it has none). Only when
   * some material has such a texture: 8 bytes a vertex then, none otherwise.
   */
  uvs: Float32Array | null;
  /**
   * Four normalized 16-bit values per vertex: its linear RGBA `COLOR_0` (white where it has none). Only when some
   * primitive has vertex colours: 8 bytes a vertex then, none otherwise.
   */
  colors: Uint16Array | null;
  /** Three vertex indices per triangle, counter-clockwise. */
  indices: Uint32Array;
  parts: TilePart[];
  materials: TileMaterial[];
  textures: TileTexture[];
}

/** The number of triangles in a soup. */
export function soupTriangleCount(soup: TriangleSoup): number {
  return soup.indices.length / 3;
}

/** Where one primitive, placed by one node, lies in a soup. */
export interface SoupPlacement {
  primitive: Primitive;
  node: Node;
  /** How much its node's world matrix magnifies it (its largest axis scale). */
  scale: number;
  /** The soup triangle of its first triangle: its triangles follow in their own order. */
  firstTriangle: number;
  triangles: number;
  /** The soup vertex of its vertex 0: its vertices follow in their own order. */
  firstVertex: number;
  /** Whether its node mirrors it, so each soup triangle has its second and third corners swapped. */
  mirrored: boolean;
}

/**
 * Copies every triangle primitive of `document` (its default scene first, every mesh node in scene order) into a
 * {@link TriangleSoup}, placed by its node's world matrix. Parts are the mesh nodes, named and identified as
 * extract-parts lists them (`extras.group_id`). Points and lines are left to the levels of detail, with a warning.
 * `onPlaced` hears where each primitive was put.
 */
export function collectTriangles(
  document: Document,
  context: StepContext,
  onPlaced: (placement: SoupPlacement) => void = () => {},
): TriangleSoup {
  const nodes = listMeshNodes(document);
  let vertexCount = 0;
  let indexCount = 0;
  let skipped = 0;
  let textured = false;
  let colored = false;
  let normaled = false;
  for (const { mesh } of nodes) {
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (!position) continue;
      if (primitive.getMode() !== Primitive.Mode.TRIANGLES) {
        skipped++;
        continue;
      }
      textured ||= textureSet(primitive.getMaterial()) !== null;
      colored ||= primitive.getAttribute('COLOR_0') !== null;
      normaled ||= primitive.getAttribute('NORMAL') !== null;
      vertexCount += position.getCount();
      indexCount += Math.floor((primitive.getIndices()?.getCount() ?? position.getCount()) / 3) * 3;
    }
  }
  if (skipped > 0) context.logger.warn(`${NAME}: ${skipped} point or line primitives are not tiled`);

  const soup: TriangleSoup = {
    positions: new Float32Array(vertexCount * 3),
    normals: normaled ? new Float32Array(vertexCount * 3) : null,
    vertexPart: new Uint32Array(vertexCount),
    vertexMaterial: new Uint16Array(vertexCount),
    uvs: textured ? new Float32Array(vertexCount * 2) : null,
    colors: colored ? new Uint16Array(vertexCount * 4).fill(0xffff) : null,
    indices: new Uint32Array(indexCount),
    parts: [],
    materials: [],
    textures: [],
  };
  const materialIndex = new Map<Material | null, number>();
  const textureIndex = new Map<Texture, number>();
  let vertexBase = 0;
  let indexBase = 0;
  nodes.forEach(({ node, mesh, world: matrix }, partIndex) => {
    const groupId = node.getExtras().group_id;
    soup.parts.push({
      group_id: typeof groupId === 'string' ? groupId : `${partIndex}`,
      name: partName(node, mesh, partIndex),
    });
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (!position || primitive.getMode() !== Primitive.Mode.TRIANGLES) continue;
      const material = primitive.getMaterial();
      let materialId = materialIndex.get(material);
      if (materialId === undefined) {
        materialId = soup.materials.length;
        materialIndex.set(material, materialId);
        soup.materials.push(tileMaterial(material, soup.textures, textureIndex));
      }
      const count = position.getCount();
      placeSurface(soup, vertexBase, primitive);
      placeVertices(soup, vertexBase, floatPositions(position), floatNormals(primitive), matrix);
      soup.vertexPart.fill(partIndex, vertexBase, vertexBase + count);
      soup.vertexMaterial.fill(materialId, vertexBase, vertexBase + count);
      const indices = uint32Indices(primitive);
      const triangles = Math.floor(indices.length / 3);
      // A mirroring matrix turns faces inside out: their winding is swapped back.
      const mirrored = determinant(matrix) < 0;
      const [second, third] = mirrored ? [2, 1] : [1, 2];
      onPlaced({
        primitive,
        node,
        scale: matrixScale(matrix),
        firstTriangle: indexBase / 3,
        triangles,
        firstVertex: vertexBase,
        mirrored,
      });
      const soupIndices = soup.indices;
      for (let t = 0; t < triangles; t++) {
        const at = indexBase + t * 3;
        soupIndices[at] = vertexBase + indices[t * 3];
        soupIndices[at + 1] = vertexBase + indices[t * 3 + second];
        soupIndices[at + 2] = vertexBase + indices[t * 3 + third];
      }
      // Only where other primitives of the model have normals: the tile shares its NORMAL attribute among them.
      if (soup.normals && !primitive.getAttribute('NORMAL')) {
        smoothNormals(soup.normals, soup, indexBase, indexBase + triangles * 3, vertexBase, count);
      }
      vertexBase += count;
      indexBase += triangles * 3;
    }
  });
  return soup;
}

/**
 * A material's factors and base-colour texture (added to `textures` once, however many materials use it); a
 * primitive without one is the glTF default, white and rough.
 */
function tileMaterial(
  material: Material | null,
  textures: TileTexture[],
  textureIndex: Map<Texture, number>,
): TileMaterial {
  if (!material)
    return {
      baseColor: [1, 1, 1, 1],
      baseColorTexture: null,
      metallic: 1,
      roughness: 1,
      doubleSided: false,
      blend: false,
    };
  const texture = material.getBaseColorTexture();
  let baseColorTexture: TileTextureRef | null = null;
  if (texture && textureSet(material) !== null) {
    let index = textureIndex.get(texture);
    if (index === undefined) {
      index =
        textures.push({
          image: texture.getImage()!,
          mimeType: texture.getMimeType(),
          name: texture.getName(),
        }) - 1;
      textureIndex.set(texture, index);
    }
    const info = material.getBaseColorTextureInfo()!;
    baseColorTexture = { texture: index, wrapS: info.getWrapS(), wrapT: info.getWrapT() };
  }
  return {
    baseColor: material.getBaseColorFactor() as [number, number, number, number],
    baseColorTexture,
    metallic: material.getMetallicFactor(),
    roughness: material.getRoughnessFactor(),
    doubleSided: material.getDoubleSided(),
    blend: material.getAlphaMode() === 'BLEND',
  };
}

/** The UV set a material's base-colour texture reads, or null when it has no texture with an image. */
function textureSet(material: Material | null): number | null {
  const texture = material?.getBaseColorTexture();
  if (!texture?.getImage()) return null;
  return material!.getBaseColorTextureInfo()!.getTexCoord();
}

/** Copies a primitive's texture coordinates (the set its material's texture reads) and colours into the soup. */
function placeSurface(soup: TriangleSoup, base: number, primitive: Primitive): void {
  const set = textureSet(primitive.getMaterial());
  const uv = set === null ? null : primitive.getAttribute(`TEXCOORD_${set}`);
  if (soup.uvs && uv) soup.uvs.set(floatArray(uv.getArray()!, uv.getNormalized()), base * 2);
  const color = primitive.getAttribute('COLOR_0');
  if (!soup.colors || !color) return;
  const values = floatArray(color.getArray()!, color.getNormalized());
  const size = color.getElementSize();
  for (let i = 0; i < color.getCount(); i++) {
    for (let k = 0; k < size; k++) {
      soup.colors[(base + i) * 4 + k] = Math.round(Math.min(1, Math.max(0, values[i * size + k])) * 0xffff);
    }
  }
}

/**
 * Writes a primitive's vertices into the soup from `base` on, positions by the world matrix and normals by its
 * cofactor matrix (the inverse transpose up to scale, right under non-uniform scaling), normalised.
 */
function placeVertices(
  soup: TriangleSoup,
  base: number,
  positions: Float32Array,
  normals: Float32Array | undefined,
  m: mat4,
): void {
  const count = positions.length / 3;
  // Columns of the cofactor matrix: b×c, c×a, a×b of the matrix's columns a, b, c.
  const [a, b, c] = [
    [m[0], m[1], m[2]],
    [m[4], m[5], m[6]],
    [m[8], m[9], m[10]],
  ];
  const cross = (u: number[], v: number[]) => [
    u[1] * v[2] - u[2] * v[1],
    u[2] * v[0] - u[0] * v[2],
    u[0] * v[1] - u[1] * v[0],
  ];
  const [n0, n1, n2] = [cross(b, c), cross(c, a), cross(a, b)];
  for (let i = 0; i < count; i++) {
    const [x, y, z] = [positions[i * 3], positions[i * 3 + 1], positions[i * 3 + 2]];
    const at = (base + i) * 3;
    soup.positions[at] = m[0] * x + m[4] * y + m[8] * z + m[12];
    soup.positions[at + 1] = m[1] * x + m[5] * y + m[9] * z + m[13];
    soup.positions[at + 2] = m[2] * x + m[6] * y + m[10] * z + m[14];
    if (!normals || !soup.normals) continue;
    const [u, v, w] = [normals[i * 3], normals[i * 3 + 1], normals[i * 3 + 2]];
    const nx = n0[0] * u + n1[0] * v + n2[0] * w;
    const ny = n0[1] * u + n1[1] * v + n2[1] * w;
    const nz = n0[2] * u + n1[2] * v + n2[2] * w;
    const length = Math.hypot(nx, ny, nz) || 1;
    soup.normals[at] = nx / length;
    soup.normals[at + 1] = ny / length;
    soup.normals[at + 2] = nz / length;
  }
}

/** Area-weighted vertex normals for a primitive that came without any. */
function smoothNormals(
  normals: Float32Array,
  soup: TriangleSoup,
  from: number,
  to: number,
  base: number,
  count: number,
): void {
  const { positions, indices } = soup;
  const normal = new Float64Array(3);
  // Indexed and written out per corner, allocating nothing: this runs once a triangle of a big STL.
  for (let at = from; at < to; at += 3) {
    const i = indices[at] * 3;
    const j = indices[at + 1] * 3;
    const k = indices[at + 2] * 3;
    faceNormal(positions, i, j, k, normal);
    addTo(normals, i, normal);
    addTo(normals, j, normal);
    addTo(normals, k, normal);
  }
  for (let v = base * 3; v < (base + count) * 3; v += 3) {
    const length = Math.hypot(normals[v], normals[v + 1], normals[v + 2]);
    if (length > 0) {
      normals[v] /= length;
      normals[v + 1] /= length;
      normals[v + 2] /= length;
    } else normals[v + 1] = 1;
  }
}

/** Adds a vector to the one at offset `at` of `target`. */
function addTo(target: Float32Array, at: number, vector: Float64Array): void {
  target[at] += vector[0];
  target[at + 1] += vector[1];
  target[at + 2] += vector[2];
}

/** Determinant of a matrix's linear part. */
function determinant(m: mat4): number {
  return (
    m[0] * (m[5] * m[10] - m[6] * m[9]) -
    m[4] * (m[1] * m[10] - m[2] * m[9]) +
    m[8] * (m[1] * m[6] - m[2] * m[5])
  );
}
