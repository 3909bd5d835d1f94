import { Primitive } from '@gltf-transform/core';
import type { Document, Material, mat4 } from '@gltf-transform/core';
import { faceNormal } from '../../gltf/face-normal.ts';
import { listMeshNodes } from '../../gltf/measure-geometry.ts';
import { partName } from '../extract-parts.ts';
import { floatNormals, floatPositions, uint32Indices } from '../lods/primitive-arrays.ts';
import type { StepContext } from '../types.ts';

/** Step name used in logs. */
export const NAME = 'triangle-soup';

/** A part as the tiles carry it: the feature a vertex belongs to. */
export interface TilePart {
  group_id: string;
  name: string;
}

/** The look of a material the tiles keep: its factors, not its textures. */
export interface TileMaterial {
  baseColor: [number, number, number, number];
  metallic: number;
  roughness: number;
  doubleSided: boolean;
  blend: boolean;
}

/**
 * Every triangle of a model in a few flat arrays, in world space (metres, +Y up), each vertex tagged with its part
 * and material: about 30 bytes a triangle, so the tiler holds the model once, compactly, and builds each tile's
 * glTF document from it alone.
 */
export interface TriangleSoup {
  /** Three floats per vertex. */
  positions: Float32Array;
  /** Three floats per vertex, unit length. */
  normals: Float32Array;
  /** Index into `parts` per vertex. */
  vertexPart: Uint32Array;
  /** Index into `materials` per vertex. */
  vertexMaterial: Uint16Array;
  /** Three vertex indices per triangle, counter-clockwise. */
  indices: Uint32Array;
  parts: TilePart[];
  materials: TileMaterial[];
}

/** The number of triangles in a soup. */
export function soupTriangleCount(soup: TriangleSoup): number {
  return soup.indices.length / 3;
}

/**
 * Copies every triangle primitive of `document` (its default scene first, every mesh node in scene order) into a
 * {@link TriangleSoup}, placed by its node's world matrix. Parts are the mesh nodes, named and identified as
 * extract-parts lists them (`extras.group_id`). Points and lines are left to the levels of detail, with a warning.
 */
export function collectTriangles(document: Document, context: StepContext): TriangleSoup {
  const nodes = listMeshNodes(document);
  let vertexCount = 0;
  let indexCount = 0;
  let skipped = 0;
  for (const { mesh } of nodes) {
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (!position) continue;
      if (primitive.getMode() !== Primitive.Mode.TRIANGLES) {
        skipped++;
        continue;
      }
      vertexCount += position.getCount();
      indexCount += Math.floor((primitive.getIndices()?.getCount() ?? position.getCount()) / 3) * 3;
    }
  }
  if (skipped > 0) context.logger.warn(`${NAME}: ${skipped} point or line primitives are not tiled`);

  const soup: TriangleSoup = {
    positions: new Float32Array(vertexCount * 3),
    normals: new Float32Array(vertexCount * 3),
    vertexPart: new Uint32Array(vertexCount),
    vertexMaterial: new Uint16Array(vertexCount),
    indices: new Uint32Array(indexCount),
    parts: [],
    materials: [],
  };
  const materialIndex = new Map<Material | null, number>();
  let vertexBase = 0;
  let indexBase = 0;
  nodes.forEach(({ node, mesh }, partIndex) => {
    const groupId = node.getExtras().group_id;
    soup.parts.push({
      group_id: typeof groupId === 'string' ? groupId : `${partIndex}`,
      name: partName(node, mesh, partIndex),
    });
    const matrix = node.getWorldMatrix();
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (!position || primitive.getMode() !== Primitive.Mode.TRIANGLES) continue;
      const material = primitive.getMaterial();
      let materialId = materialIndex.get(material);
      if (materialId === undefined) {
        materialId = soup.materials.length;
        materialIndex.set(material, materialId);
        soup.materials.push(tileMaterial(material));
      }
      const count = position.getCount();
      placeVertices(soup, vertexBase, floatPositions(position), floatNormals(primitive), matrix);
      soup.vertexPart.fill(partIndex, vertexBase, vertexBase + count);
      soup.vertexMaterial.fill(materialId, vertexBase, vertexBase + count);
      const indices = uint32Indices(primitive);
      const triangles = Math.floor(indices.length / 3);
      // A mirroring matrix turns faces inside out: their winding is swapped back.
      const mirrored = determinant(matrix) < 0;
      for (let t = 0; t < triangles; t++) {
        const at = indexBase + t * 3;
        soup.indices[at] = vertexBase + indices[t * 3];
        soup.indices[at + 1] = vertexBase + indices[t * 3 + (mirrored ? 2 : 1)];
        soup.indices[at + 2] = vertexBase + indices[t * 3 + (mirrored ? 1 : 2)];
      }
      if (!primitive.getAttribute('NORMAL')) {
        smoothNormals(soup, indexBase, indexBase + triangles * 3, vertexBase, count);
      }
      vertexBase += count;
      indexBase += triangles * 3;
    }
  });
  return soup;
}

/** A material's factors; a primitive without one is the glTF default, white and rough. */
function tileMaterial(material: Material | null): TileMaterial {
  if (!material)
    return { baseColor: [1, 1, 1, 1], metallic: 1, roughness: 1, doubleSided: false, blend: false };
  return {
    baseColor: material.getBaseColorFactor() as [number, number, number, number],
    metallic: material.getMetallicFactor(),
    roughness: material.getRoughnessFactor(),
    doubleSided: material.getDoubleSided(),
    blend: material.getAlphaMode() === 'BLEND',
  };
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
    if (!normals) continue;
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
function smoothNormals(soup: TriangleSoup, from: number, to: number, base: number, count: number): void {
  const { positions, normals, indices } = soup;
  const normal = new Float64Array(3);
  for (let at = from; at < to; at += 3) {
    const [i, j, k] = [indices[at] * 3, indices[at + 1] * 3, indices[at + 2] * 3];
    const [nx, ny, nz] = faceNormal(positions, i, j, k, normal);
    for (const vertex of [i, j, k]) {
      normals[vertex] += nx;
      normals[vertex + 1] += ny;
      normals[vertex + 2] += nz;
    }
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

/** Determinant of a matrix's linear part. */
function determinant(m: mat4): number {
  return (
    m[0] * (m[5] * m[10] - m[6] * m[9]) -
    m[4] * (m[1] * m[10] - m[2] * m[9]) +
    m[8] * (m[1] * m[6] - m[2] * m[5])
  );
}
