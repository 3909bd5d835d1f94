// A building places the same geometry again and again (a window type, a column, a bolt): web-ifc gives each
// product's pieces as geometries and placements. A product placed by one matrix that a node can hold draws its
// geometry in its own frame, the matrix on its node, so every product of the same pieces shares one mesh (and the
// levels draw them as instances, instance-parts.ts); any other product is baked into the scene's frame as one mesh.
import type { Buffer as GltfBuffer, Document, Material, Mesh, Node, mat4 } from '@gltf-transform/core';
import { determinant3 } from '../../../render/scene/transform-vertices.ts';
import type { IfcGeometry, IfcPiece, IfcProductGeometry } from './import-ifc-geometry.ts';

/** The triangles of one product in one colour, gathered before they become a primitive. */
interface ColorGroup {
  color: [number, number, number, number];
  positions: number[];
  normals: number[];
  indices: number[];
}

/** How far from square a placement's axes may be (the cosine between two) and still be held by a node. */
const SQUARE_TOLERANCE = 1e-6;

/** Makes the mesh of each product: shared between products of the same pieces when their placement allows. */
export class IfcProductMeshes {
  private readonly shared = new Map<string, Mesh>();
  /** Products drawn with the mesh of an earlier product. */
  reused = 0;

  constructor(
    private readonly document: Document,
    private readonly buffer: GltfBuffer,
    private readonly geometries: ReadonlyMap<number, IfcGeometry>,
    private readonly materialFor: (color: [number, number, number, number]) => Material,
  ) {}

  /**
   * Gives `node` its product's mesh. Placed by its node when the product's pieces share one matrix without
   * shear or mirror and the node has no children for the matrix to move too; baked otherwise.
   */
  place(node: Node, product: IfcProductGeometry): void {
    const matrix = nodePlacement(product.pieces);
    if (!matrix || node.listChildren().length > 0) {
      node.setMesh(this.build(node.getName(), product.pieces, true));
      return;
    }
    const key = product.pieces
      .map((piece) => `${piece.geometryID}:${piece.colorKey}`)
      .sort()
      .join(';');
    let mesh = this.shared.get(key);
    if (mesh) this.reused++;
    else this.shared.set(key, (mesh = this.build(node.getName(), product.pieces, false)));
    node.setMesh(mesh).setMatrix(matrix);
  }

  /** A mesh of one primitive a colour: the pieces in the scene's frame (`baked`), or in their own. */
  private build(name: string, pieces: readonly IfcPiece[], baked: boolean): Mesh {
    const groups = new Map<string, ColorGroup>();
    for (const piece of pieces) {
      const geometry = this.geometries.get(piece.geometryID);
      if (!geometry) continue;
      const group = groups.get(piece.colorKey) ?? {
        color: piece.color,
        positions: [],
        normals: [],
        indices: [],
      };
      groups.set(piece.colorKey, group);
      appendPlaced(group, geometry, baked ? piece.matrix : undefined);
    }
    const mesh = this.document.createMesh(name);
    for (const group of groups.values())
      mesh.addPrimitive(this.primitive(group).setMaterial(this.materialFor(group.color)));
    return mesh;
  }

  private primitive(group: ColorGroup) {
    const { document, buffer } = this;
    const vertexCount = group.positions.length / 3;
    const indices = vertexCount > 65535 ? new Uint32Array(group.indices) : new Uint16Array(group.indices);
    return document
      .createPrimitive()
      .setAttribute(
        'POSITION',
        document
          .createAccessor()
          .setType('VEC3')
          .setArray(new Float32Array(group.positions))
          .setBuffer(buffer),
      )
      .setAttribute(
        'NORMAL',
        document.createAccessor().setType('VEC3').setArray(new Float32Array(group.normals)).setBuffer(buffer),
      )
      .setIndices(document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer));
  }
}

/**
 * The one matrix every piece of a product is placed by, when a node can hold it: finite, its axes square to one
 * another (a scale along each, no shear) and not mirrored. Undefined otherwise.
 */
export function nodePlacement(pieces: readonly IfcPiece[]): mat4 | undefined {
  const [first] = pieces;
  if (!first || first.matrix.length !== 16 || !first.matrix.every(Number.isFinite)) return undefined;
  if (!pieces.every((piece) => piece.matrix.every((value, i) => value === first.matrix[i]))) return undefined;
  const m = first.matrix;
  if (m[3] !== 0 || m[7] !== 0 || m[11] !== 0 || m[15] !== 1) return undefined;
  const axes = [0, 4, 8].map((at) => [m[at], m[at + 1], m[at + 2]]);
  const lengths = axes.map((axis) => Math.hypot(axis[0], axis[1], axis[2]));
  if (lengths.some((length) => !(length > 0))) return undefined;
  for (const [a, b] of [
    [0, 1],
    [0, 2],
    [1, 2],
  ]) {
    const dot = axes[a][0] * axes[b][0] + axes[a][1] * axes[b][1] + axes[a][2] * axes[b][2];
    if (Math.abs(dot) > SQUARE_TOLERANCE * lengths[a] * lengths[b]) return undefined;
  }
  return determinant3(m as unknown as mat4) > 0 ? (m as unknown as mat4) : undefined;
}

/** Appends interleaved position+normal vertices, transformed by a column-major 4×4 matrix when one is given. */
function appendPlaced(group: ColorGroup, geometry: IfcGeometry, m: number[] | undefined): void {
  const { vertices, indices } = geometry;
  const base = group.positions.length / 3;
  for (let i = 0; i + 5 < vertices.length; i += 6) {
    const [x, y, z, nx, ny, nz] = [
      vertices[i],
      vertices[i + 1],
      vertices[i + 2],
      vertices[i + 3],
      vertices[i + 4],
      vertices[i + 5],
    ];
    if (!m) {
      group.positions.push(x, y, z);
      group.normals.push(nx, ny, nz);
      continue;
    }
    group.positions.push(
      m[0] * x + m[4] * y + m[8] * z + m[12],
      m[1] * x + m[5] * y + m[9] * z + m[13],
      m[2] * x + m[6] * y + m[10] * z + m[14],
    );
    // Placements are rigid with at most uniform scale, so the upper 3×3 turns normals too.
    const tx = m[0] * nx + m[4] * ny + m[8] * nz;
    const ty = m[1] * nx + m[5] * ny + m[9] * nz;
    const tz = m[2] * nx + m[6] * ny + m[10] * nz;
    const length = Math.hypot(tx, ty, tz) || 1;
    group.normals.push(tx / length, ty / length, tz / length);
  }
  // A mirroring placement turns faces inside out unless the winding is flipped with it.
  const flip = m !== undefined && determinant3(m as unknown as mat4) < 0;
  for (let i = 0; i + 2 < indices.length; i += 3) {
    if (flip) group.indices.push(base + indices[i], base + indices[i + 2], base + indices[i + 1]);
    else group.indices.push(base + indices[i], base + indices[i + 1], base + indices[i + 2]);
  }
}
