import { Primitive } from '@gltf-transform/core';
import type { Accessor, Document, Material, mat4 } from '@gltf-transform/core';
import { listMeshNodes } from '../gltf/measure-geometry.ts';
import { determinant3, transformPositions } from '../render/scene/transform-vertices.ts';

/** One triangle list of a part in world space (metres, +Y up), with its glTF material. */
export interface FlatPrimitive {
  /** x, y, z per vertex. */
  positions: Float32Array;
  /** Unit normals per vertex, when the source has them. */
  normals?: Float32Array;
  /** u, v per vertex (glTF's convention: v down from the top of the image), when the source has them. */
  uvs?: Float32Array;
  /** Three vertex indices per triangle, counter-clockwise seen from the front. */
  indices: Uint32Array;
  material: Material | null;
}

/** A part (a node that carries a mesh) with its triangles baked into world space. */
export interface FlatPart {
  name: string;
  groupId: string | undefined;
  primitives: FlatPrimitive[];
}

/** The parts of a scene, flattened for the formats that have no node hierarchy or instancing. */
export interface FlatScene {
  parts: FlatPart[];
  /** Point and line primitives, which only GLB and USDZ could carry; the triangle formats leave them out. */
  skippedPrimitives: number;
}

/**
 * Lists the document's parts in depth-first scene order (the order of `GET /parts`) with every triangle
 * primitive transformed by its node's world matrix; strips and fans become triangle lists.
 */
export function flattenParts(document: Document): FlatScene {
  const parts: FlatPart[] = [];
  let skippedPrimitives = 0;
  listMeshNodes(document).forEach(({ node, mesh, world: matrix }, index) => {
    const primitives: FlatPrimitive[] = [];
    for (const primitive of mesh.listPrimitives()) {
      const flat = flattenPrimitive(primitive, matrix);
      if (flat) primitives.push(flat);
      else skippedPrimitives++;
    }
    const groupId = node.getExtras().group_id;
    parts.push({
      name: node.getName() || mesh.getName() || `Part ${index + 1}`,
      groupId: typeof groupId === 'string' ? groupId : undefined,
      primitives,
    });
  });
  return { parts, skippedPrimitives };
}

/** Triangles drawn by a flattened scene. */
export function flatTriangleCount(scene: FlatScene): number {
  let triangles = 0;
  for (const part of scene.parts) for (const p of part.primitives) triangles += p.indices.length / 3;
  return triangles;
}

function flattenPrimitive(primitive: Primitive, matrix: mat4): FlatPrimitive | undefined {
  const position = primitive.getAttribute('POSITION');
  if (!position) return undefined;
  const mode = primitive.getMode();
  const order = readIndices(primitive, position.getCount());
  let indices: Uint32Array;
  if (mode === Primitive.Mode.TRIANGLES) indices = order.subarray(0, order.length - (order.length % 3));
  else if (mode === Primitive.Mode.TRIANGLE_STRIP) indices = stripToList(order);
  else if (mode === Primitive.Mode.TRIANGLE_FAN) indices = fanToList(order);
  else return undefined;

  // A mirroring matrix turns the winding around; swapping two corners keeps the front face in front.
  if (determinant3(matrix) < 0) {
    for (let i = 0; i < indices.length; i += 3) {
      const b = indices[i + 1];
      indices[i + 1] = indices[i + 2];
      indices[i + 2] = b;
    }
  }
  const positions = transformPositions(readVec(position, 3), matrix);
  const normalAccessor = primitive.getAttribute('NORMAL');
  const uvAccessor = primitive.getAttribute('TEXCOORD_0');
  return {
    positions,
    normals: normalAccessor ? transformNormals(readVec(normalAccessor, 3), matrix) : undefined,
    uvs: uvAccessor ? readVec(uvAccessor, 2) : undefined,
    indices,
    material: primitive.getMaterial(),
  };
}

function readIndices(primitive: Primitive, vertexCount: number): Uint32Array {
  const accessor = primitive.getIndices();
  if (!accessor) return Uint32Array.from({ length: vertexCount }, (_, i) => i);
  return Uint32Array.from(accessor.getArray() ?? []);
}

/** An accessor's elements as floats, normalized integers decoded. */
function readVec(accessor: Accessor, size: number): Float32Array {
  const count = accessor.getCount();
  const array = accessor.getArray();
  if (array instanceof Float32Array && accessor.getElementSize() === size) return array.slice();
  const out = new Float32Array(count * size);
  const element: number[] = [];
  for (let i = 0; i < count; i++) {
    accessor.getElement(i, element);
    for (let c = 0; c < size; c++) out[i * size + c] = element[c] ?? 0;
  }
  return out;
}

function stripToList(order: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.max(0, order.length - 2) * 3);
  for (let i = 0; i + 2 < order.length; i++) {
    // Every other triangle of a strip is wound the other way round.
    const even = i % 2 === 0;
    out.set(even ? [order[i], order[i + 1], order[i + 2]] : [order[i + 1], order[i], order[i + 2]], i * 3);
  }
  return out;
}

function fanToList(order: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.max(0, order.length - 2) * 3);
  for (let i = 1; i + 1 < order.length; i++) out.set([order[0], order[i], order[i + 1]], (i - 1) * 3);
  return out;
}

/** Normals through the inverse transpose of the matrix's 3 × 3 part (the cofactor matrix), renormalised. */
function transformNormals(normals: Float32Array, m: mat4): Float32Array {
  const c = [
    m[5] * m[10] - m[6] * m[9],
    m[6] * m[8] - m[4] * m[10],
    m[4] * m[9] - m[5] * m[8],
    m[2] * m[9] - m[1] * m[10],
    m[0] * m[10] - m[2] * m[8],
    m[1] * m[8] - m[0] * m[9],
    m[1] * m[6] - m[2] * m[5],
    m[2] * m[4] - m[0] * m[6],
    m[0] * m[5] - m[1] * m[4],
  ];
  const sign = determinant3(m) < 0 ? -1 : 1;
  for (let i = 0; i < normals.length; i += 3) {
    const x = normals[i];
    const y = normals[i + 1];
    const z = normals[i + 2];
    const nx = c[0] * x + c[3] * y + c[6] * z;
    const ny = c[1] * x + c[4] * y + c[7] * z;
    const nz = c[2] * x + c[5] * y + c[8] * z;
    const length = Math.hypot(nx, ny, nz) || 1;
    normals[i] = (sign * nx) / length;
    normals[i + 1] = (sign * ny) / length;
    normals[i + 2] = (sign * nz) / length;
  }
  return normals;
}
