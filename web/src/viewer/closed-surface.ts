/**
 * Whether a mesh's triangles close up into a solid, so a section through it has an inside to cap. The stencil caps
 * count surface crossings along each view ray; an open shell (a single sheet, a body panel) would leave a count on
 * rays that never enter a solid and get a cap where there is none.
 */
import type { BufferGeometry } from 'three';

/** Meshes above this many triangles are not checked (too slow for the page) and so not capped. */
export const MAX_CHECKED_TRIANGLES = 1_000_000;

/**
 * True when every edge, with vertices joined by position (glTF splits them at hard edges and seams), is shared by
 * an even number of triangles: then every ray crosses the surface an even number of times.
 */
export function isClosedSurface(geometry: BufferGeometry): boolean {
  const position = geometry.getAttribute('position');
  if (!position) return false;
  const index = geometry.index;
  const corners = index ? index.count : position.count;
  const triangles = Math.floor(corners / 3);
  if (triangles === 0 || triangles > MAX_CHECKED_TRIANGLES) return false;
  // One id per distinct position.
  const ids = new Map<string, number>();
  const idOf = new Uint32Array(position.count);
  for (let vertex = 0; vertex < position.count; vertex++) {
    const key = `${position.getX(vertex)},${position.getY(vertex)},${position.getZ(vertex)}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    idOf[vertex] = id;
  }
  const distinct = ids.size;
  const edges = new Map<number, number>();
  const corner = (at: number): number => idOf[index ? index.getX(at) : at];
  for (let triangle = 0; triangle < triangles; triangle++) {
    const a = corner(triangle * 3);
    const b = corner(triangle * 3 + 1);
    const c = corner(triangle * 3 + 2);
    for (const [from, to] of [
      [a, b],
      [b, c],
      [c, a],
    ]) {
      if (from === to) continue;
      const key = Math.min(from, to) * distinct + Math.max(from, to);
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
  }
  for (const count of edges.values()) if (count % 2 !== 0) return false;
  return true;
}
