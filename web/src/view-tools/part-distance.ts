/**
 * The shortest distance between two parts: every vertex of each against every triangle of the other, in world
 * space, which is exact whenever the closest pair involves a vertex (faces, corners and edges against faces) and
 * an upper bound otherwise (two edges crossing askew). The work is vertices × triangles, so parts beyond
 * {@link MAX_PAIRS} are sampled by a stride over their vertices.
 */
import { Triangle, Vector3 } from 'three';
import type { Mesh } from 'three';

/** Vertex–triangle pairs one direction may test before its vertices are sampled. */
export const MAX_PAIRS = 20_000_000;

/** The two closest points found, one on each part, and their distance. */
export interface PartGap {
  distance: number;
  from: Vector3;
  to: Vector3;
}

/** World positions of a part's vertices, and its triangles as triples of indices into them. */
interface WorldMesh {
  points: Vector3[];
  triangles: [number, number, number][];
}

function worldMeshes(meshes: readonly Mesh[]): WorldMesh {
  const points: Vector3[] = [];
  const triangles: [number, number, number][] = [];
  for (const mesh of meshes) {
    const position = mesh.geometry?.getAttribute('position');
    if (!position) continue;
    mesh.updateWorldMatrix(true, false);
    const base = points.length;
    for (let i = 0; i < position.count; i += 1) {
      points.push(mesh.getVertexPosition(i, new Vector3()).applyMatrix4(mesh.matrixWorld));
    }
    const index = mesh.geometry.index;
    const count = index ? index.count : position.count;
    for (let i = 0; i + 2 < count; i += 3) {
      const at = (k: number) => base + (index ? index.getX(i + k) : i + k);
      triangles.push([at(0), at(1), at(2)]);
    }
  }
  return { points, triangles };
}

/** The closest pair between `a`'s vertices and `b`'s triangles. */
function vertexToTriangles(a: WorldMesh, b: WorldMesh, best: PartGap | null): PartGap | null {
  const stride = Math.max(1, Math.ceil((a.points.length * b.triangles.length) / MAX_PAIRS));
  const triangle = new Triangle();
  const closest = new Vector3();
  let found = best;
  for (let i = 0; i < a.points.length; i += stride) {
    const point = a.points[i];
    for (const [x, y, z] of b.triangles) {
      triangle.set(b.points[x], b.points[y], b.points[z]);
      triangle.closestPointToPoint(point, closest);
      const distance = closest.distanceTo(point);
      if (!found || distance < found.distance) found = { distance, from: point.clone(), to: closest.clone() };
    }
  }
  return found;
}

/** The shortest distance between the meshes of two parts, or null when either draws no triangle. */
export function partGap(a: readonly Mesh[], b: readonly Mesh[]): PartGap | null {
  const first = worldMeshes(a);
  const second = worldMeshes(b);
  if (first.triangles.length === 0 || second.triangles.length === 0) return null;
  const forward = vertexToTriangles(first, second, null);
  const back = vertexToTriangles(second, first, null);
  if (!back) return forward;
  const reversed = { distance: back.distance, from: back.to, to: back.from };
  return forward && forward.distance <= reversed.distance ? forward : reversed;
}
