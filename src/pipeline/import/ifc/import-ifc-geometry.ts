import type { IfcAPI } from 'web-ifc';

/** One geometry as web-ifc tessellated it, in its own frame: x, y, z, nx, ny, nz per vertex, and triangles. */
export interface IfcGeometry {
  vertices: Float32Array<ArrayBuffer>;
  indices: Uint32Array<ArrayBuffer>;
}

/** One piece of a product: a geometry, its colour (linear RGBA) and where it is placed (column-major 4×4). */
export interface IfcPiece {
  geometryID: number;
  color: [number, number, number, number];
  /** The colour as a key: its channels to a thousandth. */
  colorKey: string;
  matrix: number[];
}

/** The pieces of one product. */
export interface IfcProductGeometry {
  expressID: number;
  pieces: IfcPiece[];
  triangles: number;
}

/** Every product's pieces, and each geometry they draw, read once however many pieces place it. */
export interface IfcModelGeometry {
  products: IfcProductGeometry[];
  geometries: Map<number, IfcGeometry>;
}

/**
 * Streams every product's placed geometry out of web-ifc: the pieces each product is made of, and each geometry
 * copied once out of WebAssembly memory (reused as soon as the callback returns), so a window type placed 500 times
 * is held once. `onProduct` hears of each product as it is streamed.
 */
export function readProductGeometry(api: IfcAPI, modelID: number, onProduct?: () => void): IfcModelGeometry {
  const products: IfcProductGeometry[] = [];
  const geometries = new Map<number, IfcGeometry | null>();
  const geometryOf = (geometryID: number): IfcGeometry | null => {
    const known = geometries.get(geometryID);
    if (known !== undefined) return known;
    const geometry = api.GetGeometry(modelID, geometryID);
    try {
      const vertices = api.GetVertexArray(geometry.GetVertexData(), geometry.GetVertexDataSize());
      const indices = api.GetIndexArray(geometry.GetIndexData(), geometry.GetIndexDataSize());
      const read =
        indices.length < 3 || vertices.length < 6
          ? null
          : { vertices: new Float32Array(vertices), indices: new Uint32Array(indices) };
      geometries.set(geometryID, read);
      return read;
    } finally {
      geometry.delete();
    }
  };
  // Heard from inside the stream: tessellating a big building is most of an IFC import's time. The stream goes
  // type by type, each with its own count, so it tells no fraction of the whole.
  api.StreamAllMeshes(modelID, (mesh) => {
    onProduct?.();
    const pieces: IfcPiece[] = [];
    let triangles = 0;
    const placed = mesh.geometries;
    for (let i = 0; i < placed.size(); i++) {
      const piece = placed.get(i);
      const geometry = geometryOf(piece.geometryExpressID);
      if (!geometry) continue;
      const color: [number, number, number, number] = [
        toLinear(piece.color.x),
        toLinear(piece.color.y),
        toLinear(piece.color.z),
        clamp(piece.color.w),
      ];
      pieces.push({
        geometryID: piece.geometryExpressID,
        color,
        colorKey: color.map((value) => Math.round(value * 1000)).join(','),
        matrix: [...piece.flatTransformation],
      });
      triangles += Math.floor(geometry.indices.length / 3);
    }
    if (triangles > 0) products.push({ expressID: mesh.expressID, pieces, triangles });
  });
  const held = new Map<number, IfcGeometry>();
  for (const [id, geometry] of geometries) if (geometry) held.set(id, geometry);
  return { products, geometries: held };
}

function clamp(value: number): number {
  return Math.min(1, Math.max(0, Number.isFinite(value) ? value : 1));
}

/** IFC colours are display (sRGB) values; glTF colour factors are linear. */
function toLinear(value: number): number {
  const c = clamp(value);
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}
