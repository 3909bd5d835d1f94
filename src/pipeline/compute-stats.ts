import type { Document } from '@gltf-transform/core';
import {
  emptyBox,
  listMeshNodes,
  meshTriangleCount,
  meshVertexCount,
  meshWorldBox,
  toBounds,
  unionBox,
} from '../gltf/measure-geometry.ts';
import type { Bounds } from './types.ts';

/** Totals of a document, counting a mesh once per node that places it. */
export interface DocumentStats {
  triangle_count: number;
  vertex_count: number;
  /** World-space box of every placed mesh. */
  bounds: Bounds;
}

/** Triangle count, vertex count and world-space bounds of the scene as it is drawn. */
export function computeStats(document: Document): DocumentStats {
  let triangles = 0;
  let vertices = 0;
  const box = emptyBox();
  for (const { mesh, world } of listMeshNodes(document)) {
    triangles += meshTriangleCount(mesh);
    vertices += meshVertexCount(mesh);
    unionBox(box, meshWorldBox(mesh, world));
  }
  return { triangle_count: triangles, vertex_count: vertices, bounds: toBounds(box) };
}
