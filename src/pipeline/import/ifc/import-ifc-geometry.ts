import type { IfcAPI } from 'web-ifc';

/** The triangles of one product in one colour, in world space (metres, +Y up as web-ifc returns them). */
export interface IfcColorGroup {
  /** Linear RGBA. */
  color: [number, number, number, number];
  positions: number[];
  normals: number[];
  indices: number[];
}

/** The geometry of one product, grouped by colour. */
export interface IfcProductGeometry {
  expressID: number;
  groups: IfcColorGroup[];
  triangles: number;
}

/**
 * Streams every product's placed geometry out of web-ifc, baking each placement into the vertices
 * and merging pieces of the same colour, because the meshes live in WebAssembly memory that is
 * reused as soon as the callback returns; `onProduct` hears of each product as it is streamed.
 */
export function readProductGeometry(
  api: IfcAPI,
  modelID: number,
  onProduct?: () => void,
): IfcProductGeometry[] {
  const products: IfcProductGeometry[] = [];
  // Heard from inside the stream: tessellating a big building is most of an IFC import's time. The stream goes
  // type by type, each with its own count, so it tells no fraction of the whole.
  api.StreamAllMeshes(modelID, (mesh) => {
    onProduct?.();
    const groups = new Map<string, IfcColorGroup>();
    let triangles = 0;
    const placed = mesh.geometries;
    for (let i = 0; i < placed.size(); i++) {
      const piece = placed.get(i);
      const geometry = api.GetGeometry(modelID, piece.geometryExpressID);
      try {
        const vertices = api.GetVertexArray(geometry.GetVertexData(), geometry.GetVertexDataSize());
        const indices = api.GetIndexArray(geometry.GetIndexData(), geometry.GetIndexDataSize());
        if (indices.length < 3 || vertices.length < 6) continue;
        const color: [number, number, number, number] = [
          toLinear(piece.color.x),
          toLinear(piece.color.y),
          toLinear(piece.color.z),
          clamp(piece.color.w),
        ];
        const key = color.map((value) => Math.round(value * 1000)).join(',');
        const group = groups.get(key) ?? { color, positions: [], normals: [], indices: [] };
        groups.set(key, group);
        appendPlaced(group, vertices, indices, piece.flatTransformation);
        triangles += Math.floor(indices.length / 3);
      } finally {
        geometry.delete();
      }
    }
    if (triangles > 0) products.push({ expressID: mesh.expressID, groups: [...groups.values()], triangles });
  });
  return products;
}

/** Appends interleaved position+normal vertices transformed by a column-major 4×4 matrix. */
function appendPlaced(group: IfcColorGroup, vertices: Float32Array, indices: Uint32Array, m: number[]): void {
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
  const determinant =
    m[0] * (m[5] * m[10] - m[6] * m[9]) -
    m[4] * (m[1] * m[10] - m[2] * m[9]) +
    m[8] * (m[1] * m[6] - m[2] * m[5]);
  // A mirroring placement turns faces inside out unless the winding is flipped with it.
  const flip = determinant < 0;
  for (let i = 0; i + 2 < indices.length; i += 3) {
    if (flip) group.indices.push(base + indices[i], base + indices[i + 2], base + indices[i + 1]);
    else group.indices.push(base + indices[i], base + indices[i + 1], base + indices[i + 2]);
  }
}

function clamp(value: number): number {
  return Math.min(1, Math.max(0, Number.isFinite(value) ? value : 1));
}

/** IFC colours are display (sRGB) values; glTF colour factors are linear. */
function toLinear(value: number): number {
  const c = clamp(value);
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}
