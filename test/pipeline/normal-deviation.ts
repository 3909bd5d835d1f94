// How far a document's vertex normals stray from the faces they shade: the measure of shading a LOD must keep.
import { Primitive } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import { listMeshNodes } from '../../src/gltf/measure-geometry.ts';

/** Angle beyond which a corner's normal is counted as shading its face wrongly. */
export const DEVIATION_DEGREES = 45;

/**
 * Share (0–1) of the triangle area whose vertex normals lie more than `degrees` from their face's normal: each
 * corner stands for a third of its triangle's area. Measured in each mesh's own space, every mesh once.
 * Triangles without normals are shaded flat by a viewer, so they count as area that deviates nowhere.
 */
export function normalDeviationShare(document: Document, degrees = DEVIATION_DEGREES): number {
  const limit = Math.cos((degrees * Math.PI) / 180);
  const meshes = new Set(listMeshNodes(document).map(({ mesh }) => mesh));
  let total = 0;
  let deviating = 0;
  for (const mesh of meshes) {
    for (const primitive of mesh.listPrimitives()) {
      if (primitive.getMode() !== Primitive.Mode.TRIANGLES) continue;
      const position = primitive.getAttribute('POSITION');
      if (!position) continue;
      const normal = primitive.getAttribute('NORMAL');
      const indices = primitive.getIndices();
      const count = indices?.getCount() ?? position.getCount();
      const corner = (i: number) => indices?.getScalar(i) ?? i;
      const p: number[][] = [[], [], []];
      const n: number[] = [];
      for (let t = 0; t + 2 < count; t += 3) {
        const ids = [corner(t), corner(t + 1), corner(t + 2)];
        for (let k = 0; k < 3; k++) position.getElement(ids[k], p[k]);
        const u = [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]];
        const v = [p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]];
        const face = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        const twiceArea = Math.hypot(face[0], face[1], face[2]);
        if (!(twiceArea > 0)) continue;
        total += twiceArea / 2;
        if (!normal) continue;
        for (let k = 0; k < 3; k++) {
          normal.getElement(ids[k], n);
          const length = Math.hypot(n[0], n[1], n[2]);
          const cosine =
            length > 0 ? (n[0] * face[0] + n[1] * face[1] + n[2] * face[2]) / (length * twiceArea) : -1;
          if (cosine < limit) deviating += twiceArea / 6;
        }
      }
    }
  }
  return total > 0 ? deviating / total : 0;
}
