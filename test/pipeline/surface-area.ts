// World-space surface areas of a document's triangles, in total and per part, for the fidelity tests.
import { Primitive } from '@gltf-transform/core';
import type { Document, Mesh, mat4 } from '@gltf-transform/core';
import { listMeshNodes } from '../../src/gltf/measure-geometry.ts';

/** Area of a mesh's triangles placed by `matrix` (strips and fans included; points and lines have none). */
export function meshArea(mesh: Mesh, matrix: mat4): number {
  let area = 0;
  const a = [0, 0, 0];
  const b = [0, 0, 0];
  const c = [0, 0, 0];
  const place = (out: number[], input: number[]) => {
    const [x, y, z] = input;
    out[0] = matrix[0] * x + matrix[4] * y + matrix[8] * z + matrix[12];
    out[1] = matrix[1] * x + matrix[5] * y + matrix[9] * z + matrix[13];
    out[2] = matrix[2] * x + matrix[6] * y + matrix[10] * z + matrix[14];
  };
  for (const primitive of mesh.listPrimitives()) {
    const position = primitive.getAttribute('POSITION');
    if (!position) continue;
    const count = primitive.getIndices()?.getCount() ?? position.getCount();
    const index = (i: number) => primitive.getIndices()?.getScalar(i) ?? i;
    const corners: [number, number, number][] = [];
    const mode = primitive.getMode();
    if (mode === Primitive.Mode.TRIANGLES) {
      for (let i = 0; i + 2 < count; i += 3) corners.push([index(i), index(i + 1), index(i + 2)]);
    } else if (mode === Primitive.Mode.TRIANGLE_STRIP) {
      for (let i = 0; i + 2 < count; i++) corners.push([index(i), index(i + 1), index(i + 2)]);
    } else if (mode === Primitive.Mode.TRIANGLE_FAN) {
      for (let i = 1; i + 1 < count; i++) corners.push([index(0), index(i), index(i + 1)]);
    }
    for (const [i, j, k] of corners) {
      place(a, position.getElement(i, []));
      place(b, position.getElement(j, []));
      place(c, position.getElement(k, []));
      const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
      const v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
      area += Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]) / 2;
    }
  }
  return area;
}

/** Surface area of every placed mesh, by the node's `extras.group_id` (or name), and the total. */
export function surfaceAreas(document: Document): { total: number; parts: Map<string, number> } {
  const parts = new Map<string, number>();
  let total = 0;
  for (const { node, mesh } of listMeshNodes(document)) {
    const area = meshArea(mesh, node.getWorldMatrix());
    const key = String(node.getExtras().group_id ?? node.getName());
    parts.set(key, (parts.get(key) ?? 0) + area);
    total += area;
  }
  return { total, parts };
}
