/** Maps the parts of a loaded glTF scene (nodes with `userData.group_id`) to the meshes that draw them. */
import type { Material, Mesh, Object3D, Points } from 'three';

/** The part a scene object belongs to: its own group id or its nearest ancestor's, else null. */
export function groupIdOf(object: Object3D | null): string | null {
  for (let node = object; node; node = node.parent) {
    const id: unknown = node.userData.group_id;
    if (typeof id === 'string' && id.length > 0) return id;
  }
  return null;
}

/**
 * Collects the meshes of each part. GLTFLoader makes the node itself the mesh when it has one
 * primitive and a group of child meshes otherwise, so a mesh belongs to its nearest tagged ancestor.
 */
export function collectPartMeshes(root: Object3D): Map<string, Mesh[]> {
  const parts = new Map<string, Mesh[]>();
  root.traverse((object) => {
    if (!(object as Mesh).isMesh) return;
    const id = groupIdOf(object);
    if (id === null) return;
    const list = parts.get(id) ?? [];
    list.push(object as Mesh);
    parts.set(id, list);
  });
  return parts;
}

/** Triangles drawn by the meshes under `root`. */
export function countTriangles(root: Object3D): number {
  let triangles = 0;
  root.traverse((object) => {
    const mesh = object as Mesh;
    if (!mesh.isMesh) return;
    const geometry = mesh.geometry;
    const count = geometry.index ? geometry.index.count : (geometry.getAttribute('position')?.count ?? 0);
    triangles += Math.floor(count / 3);
  });
  return triangles;
}

/** Points drawn by the point clouds (POINTS primitives) under `root`, within each one's draw range. */
export function countPoints(root: Object3D): number {
  let points = 0;
  root.traverse((object) => {
    const cloud = object as Points;
    if (!cloud.isPoints) return;
    const geometry = cloud.geometry;
    const stored = geometry.index ? geometry.index.count : (geometry.getAttribute('position')?.count ?? 0);
    const { start, count } = geometry.drawRange;
    points += Math.max(0, Math.min(stored, start + count) - start);
  });
  return points;
}

/** What a loaded level draws: triangles of its meshes and points of its point clouds. */
export interface DrawnCounts {
  triangles: number;
  points: number;
}

/** Triangles and points drawn under `root`. */
export function drawnCounts(root: Object3D): DrawnCounts {
  return { triangles: countTriangles(root), points: countPoints(root) };
}

/** True when the object and all its ancestors are visible. */
export function isShown(object: Object3D): boolean {
  for (let node: Object3D | null = object; node; node = node.parent) if (!node.visible) return false;
  return true;
}

/**
 * The loaded material of every mesh in `parts`: kept from `known` for meshes seen before (which may be painted
 * now), read off the mesh for new ones. Meshes gone (tiles unloaded) are left out.
 */
export function originalMaterials(
  parts: Map<string, Mesh[]>,
  known: Map<Mesh, Material | Material[]>,
): Map<Mesh, Material | Material[]> {
  const originals = new Map<Mesh, Material | Material[]>();
  for (const meshes of parts.values()) {
    for (const mesh of meshes) originals.set(mesh, known.get(mesh) ?? mesh.material);
  }
  return originals;
}
