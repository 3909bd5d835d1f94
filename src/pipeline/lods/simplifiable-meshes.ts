import { Primitive } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import { meshTriangleCount } from '../../gltf/measure-geometry.ts';

/**
 * Whether any mesh of `document` is big enough for the levels to simplify: a triangle mesh of `minTriangles` or
 * more, or a point primitive of as many points. When none is, LOD 1 and 2 are LOD 0's document as it stands.
 */
export function hasSimplifiableMeshes(document: Document, minTriangles: number): boolean {
  return document
    .getRoot()
    .listMeshes()
    .some(
      (mesh) =>
        meshTriangleCount(mesh) >= minTriangles ||
        mesh.listPrimitives().some((primitive) => {
          const position = primitive.getAttribute('POSITION');
          return primitive.getMode() === Primitive.Mode.POINTS && (position?.getCount() ?? 0) >= minTriangles;
        }),
    );
}
