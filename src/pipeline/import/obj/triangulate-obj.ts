import { triangulatePolygon } from '../triangulate-polygon.ts';

/** OBJ faces of more than three corners, anywhere in the text. */
const POLYGON_FACE = /^[ \t]*f[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+\S/m;

/**
 * Rewrites every OBJ face of more than three corners as the triangles of {@link triangulatePolygon},
 * keeping each corner's `v/vt/vn` reference as written (relative indices stay valid because the new
 * lines stand where the face stood). Returns `undefined` when the file has no such face.
 */
export function triangulateObjPolygons(bytes: Uint8Array): Uint8Array | undefined {
  const text = new TextDecoder().decode(bytes);
  if (!POLYGON_FACE.test(text)) return undefined;
  // A trailing backslash continues a statement on the next line.
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const positions: number[] = [];
  let changed = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const fields = line.trim().split(/\s+/);
    if (fields[0] === 'v' && fields.length >= 4) {
      positions.push(Number(fields[1]), Number(fields[2]), Number(fields[3]));
    } else if (fields[0] === 'f' && fields.length > 4) {
      const corners = fields.slice(1);
      const triangles = triangulateCorners(corners, positions);
      if (!triangles) continue;
      lines[index] = triangles.join('\n');
      changed = true;
    }
  }
  return changed ? new TextEncoder().encode(lines.join('\n')) : undefined;
}

/** One face's triangles as `f` lines, or `undefined` when a corner cannot be resolved. */
function triangulateCorners(corners: string[], positions: number[]): string[] | undefined {
  const vertexCount = positions.length / 3;
  const points = new Float64Array(corners.length * 3);
  for (let i = 0; i < corners.length; i++) {
    const reference = Number.parseInt(corners[i], 10);
    // OBJ counts from 1; negative references count back from the last vertex read.
    const vertex = reference < 0 ? vertexCount + reference : reference - 1;
    if (!Number.isInteger(vertex) || vertex < 0 || vertex >= vertexCount) return undefined;
    points.set(positions.slice(vertex * 3, vertex * 3 + 3), i * 3);
  }
  const triangles = triangulatePolygon(points);
  if (triangles.length === 0) return undefined;
  const result: string[] = [];
  for (let t = 0; t < triangles.length; t += 3) {
    result.push(`f ${corners[triangles[t]]} ${corners[triangles[t + 1]]} ${corners[triangles[t + 2]]}`);
  }
  return result;
}
