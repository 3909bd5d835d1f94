import { writeFile } from 'node:fs/promises';
import type { Document, Primitive } from '@gltf-transform/core';

/** An indexed triangle list. */
export interface TriangleMesh {
  positions: Float32Array<ArrayBuffer>;
  indices: Uint32Array<ArrayBuffer>;
}

/**
 * A closed torus of `around × tube × 2` triangles on shared vertices, like a scanned surface: every edge is used
 * by exactly two triangles, so any crack a simplification opens shows as an edge used once.
 */
export function torus(around: number, tube: number): TriangleMesh {
  const positions = new Float32Array(around * tube * 3);
  for (let i = 0; i < around; i++) {
    const u = (i / around) * Math.PI * 2;
    for (let j = 0; j < tube; j++) {
      const v = (j / tube) * Math.PI * 2;
      const at = (i * tube + j) * 3;
      positions[at] = (1 + 0.3 * Math.cos(v)) * Math.cos(u);
      positions[at + 1] = 0.3 * Math.sin(v);
      positions[at + 2] = (1 + 0.3 * Math.cos(v)) * Math.sin(u);
    }
  }
  const indices = new Uint32Array(around * tube * 6);
  let k = 0;
  for (let i = 0; i < around; i++) {
    for (let j = 0; j < tube; j++) {
      const a = i * tube + j;
      const b = ((i + 1) % around) * tube + j;
      const c = ((i + 1) % around) * tube + ((j + 1) % tube);
      const d = i * tube + ((j + 1) % tube);
      indices.set([a, b, c, a, c, d], k);
      k += 6;
    }
  }
  return { positions, indices };
}

/** Writes a mesh as a binary STL (three corners per triangle, zero normals). */
export async function writeBinaryStl(file: string, mesh: TriangleMesh): Promise<void> {
  const count = mesh.indices.length / 3;
  const bytes = Buffer.alloc(84 + count * 50);
  bytes.writeUInt32LE(count, 80);
  for (let t = 0; t < count; t++) {
    for (let corner = 0; corner < 3; corner++) {
      const vertex = mesh.indices[t * 3 + corner] * 3;
      for (let axis = 0; axis < 3; axis++)
        bytes.writeFloatLE(mesh.positions[vertex + axis], 84 + t * 50 + 12 + corner * 12 + axis * 4);
    }
  }
  await writeFile(file, bytes);
}

/** Edges used by exactly one triangle: none on a closed surface. */
export function openEdges(indices: Uint32Array): number {
  const uses = new Map<string, number>();
  for (let t = 0; t < indices.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const a = indices[t + e];
      const b = indices[t + ((e + 1) % 3)];
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      uses.set(key, (uses.get(key) ?? 0) + 1);
    }
  }
  let open = 0;
  for (const count of uses.values()) if (count === 1) open++;
  return open;
}

/** A {@link torus} as a primitive of `document`, positions and indices only, in its first buffer (made if none). */
export function torusPrimitive(document: Document, around: number, tube = around): Primitive {
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  const mesh = torus(around, tube);
  return document
    .createPrimitive()
    .setAttribute(
      'POSITION',
      document.createAccessor().setType('VEC3').setArray(mesh.positions).setBuffer(buffer),
    )
    .setIndices(document.createAccessor().setType('SCALAR').setArray(mesh.indices).setBuffer(buffer));
}
