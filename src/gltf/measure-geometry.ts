import { Primitive } from '@gltf-transform/core';
import type { Document, Mesh, Node, mat4 } from '@gltf-transform/core';
import { multiply } from './multiply-matrices.ts';

/** An axis-aligned box in glTF scene units (metres after import). */
export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

/** A running axis-aligned box; `Infinity`/`-Infinity` until a point is added. */
export interface BoxAccumulator {
  min: [number, number, number];
  max: [number, number, number];
}

/** An empty box, ready to grow. */
export function emptyBox(): BoxAccumulator {
  return { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
}

/** The box as {@link Bounds}; an empty box (no geometry) collapses to the origin. */
export function toBounds(box: BoxAccumulator): Bounds {
  if (box.min[0] > box.max[0]) return { min: [0, 0, 0], max: [0, 0, 0] };
  return { min: [...box.min], max: [...box.max] };
}

/** Grows `into` by another box. */
export function unionBox(into: BoxAccumulator, other: BoxAccumulator): void {
  for (let axis = 0; axis < 3; axis++) {
    into.min[axis] = Math.min(into.min[axis], other.min[axis]);
    into.max[axis] = Math.max(into.max[axis], other.max[axis]);
  }
}

/** Triangles a primitive draws: strips and fans draw n − 2, points and lines none. */
export function primitiveTriangleCount(primitive: Primitive): number {
  const indices = primitive.getIndices();
  const count = indices ? indices.getCount() : (primitive.getAttribute('POSITION')?.getCount() ?? 0);
  switch (primitive.getMode()) {
    case Primitive.Mode.TRIANGLES:
      return Math.floor(count / 3);
    case Primitive.Mode.TRIANGLE_STRIP:
    case Primitive.Mode.TRIANGLE_FAN:
      return Math.max(0, count - 2);
    default:
      return 0;
  }
}

/** Triangles drawn by one placement of a mesh. */
export function meshTriangleCount(mesh: Mesh): number {
  let triangles = 0;
  for (const primitive of mesh.listPrimitives()) triangles += primitiveTriangleCount(primitive);
  return triangles;
}

/** Vertices stored by a mesh (POSITION count of each primitive). */
export function meshVertexCount(mesh: Mesh): number {
  let vertices = 0;
  for (const primitive of mesh.listPrimitives())
    vertices += primitive.getAttribute('POSITION')?.getCount() ?? 0;
  return vertices;
}

/**
 * World-space box of a mesh placed by `matrix`, from every vertex rather than the accessor's min/max,
 * so that rotated parts get a tight box.
 */
export function meshWorldBox(mesh: Mesh, matrix: mat4): BoxAccumulator {
  const box = emptyBox();
  const [m0, m1, m2, , m4, m5, m6, , m8, m9, m10, , m12, m13, m14] = matrix;
  const element: number[] = [0, 0, 0];
  for (const primitive of mesh.listPrimitives()) {
    const position = primitive.getAttribute('POSITION');
    if (!position) continue;
    const array = position.getArray();
    const direct = array instanceof Float32Array ? array : undefined;
    for (let i = 0, n = position.getCount(); i < n; i++) {
      let x: number, y: number, z: number;
      if (direct) {
        x = direct[i * 3];
        y = direct[i * 3 + 1];
        z = direct[i * 3 + 2];
      } else {
        // Quantized positions: the accessor decodes normalized integers.
        position.getElement(i, element);
        [x, y, z] = element;
      }
      const wx = m0 * x + m4 * y + m8 * z + m12;
      const wy = m1 * x + m5 * y + m9 * z + m13;
      const wz = m2 * x + m6 * y + m10 * z + m14;
      if (wx < box.min[0]) box.min[0] = wx;
      if (wy < box.min[1]) box.min[1] = wy;
      if (wz < box.min[2]) box.min[2] = wz;
      if (wx > box.max[0]) box.max[0] = wx;
      if (wy > box.max[1]) box.max[1] = wy;
      if (wz > box.max[2]) box.max[2] = wz;
    }
  }
  return box;
}

/**
 * A node that carries a mesh, with its ancestors from its scene down and its world matrix: the walk that found it
 * multiplies each matrix once, where `Node.getWorldMatrix` walks the graph up from every node again (about a second
 * of processor time over a conversion's six stages at 100,000 parts).
 */
export interface MeshNode {
  node: Node;
  mesh: Mesh;
  ancestors: Node[];
  /** The node's world matrix as the walk found it, equal to `node.getWorldMatrix()` then. */
  world: mat4;
}

/** Nodes that carry a mesh, in depth-first order over every scene (each node once), with their ancestors. */
export function listMeshNodes(document: Document): MeshNode[] {
  const root = document.getRoot();
  const scenes = root.listScenes();
  const first = root.getDefaultScene() ?? scenes[0];
  const ordered = first ? [first, ...scenes.filter((s) => s !== first)] : [];
  return meshNodesUnder(ordered.flatMap((scene) => scene.listChildren()));
}

/**
 * Nodes that carry a mesh under `roots`, depth first (each node once), with their ancestors. Each root's world
 * matrix is its own: `roots` are a scene's top-level nodes.
 */
export function meshNodesUnder(roots: readonly Node[]): MeshNode[] {
  const found: MeshNode[] = [];
  const seen = new Set<Node>();
  const visit = (node: Node, ancestors: Node[], parentWorld: mat4 | null): void => {
    if (seen.has(node)) return;
    seen.add(node);
    // The product in the order getWorldMatrix takes it, so the two agree to the bit.
    const world = parentWorld ? multiply(parentWorld, node.getMatrix()) : node.getMatrix();
    const mesh = node.getMesh();
    if (mesh) found.push({ node, mesh, ancestors, world });
    const children = node.listChildren();
    // A leaf (most nodes of a model of many parts) needs no path of its own.
    if (children.length === 0) return;
    const path = [...ancestors, node];
    for (const child of children) visit(child, path, world);
  };
  for (const node of roots) visit(node, [], null);
  return found;
}
