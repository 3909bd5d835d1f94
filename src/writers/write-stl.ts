import type { FlatScene } from './flatten-parts.ts';
import { flatTriangleCount } from './flatten-parts.ts';
import { UNITS_PER_METRE, type ExportUnit } from './export-formats.ts';
import { toPrintFrame } from './print-frame.ts';
import { faceNormal } from '../gltf/face-normal.ts';

const HEADER_BYTES = 80;
const TRIANGLE_BYTES = 50;

/**
 * Writes binary STL: every triangle of every part in world space, each with its face normal, in `unit` (millimetres
 * unless asked otherwise: STL stores bare numbers and slicers read them as millimetres) and with +Z up, as printers
 * and CAD tools stand a part. STL has no parts or colours.
 */
export function writeStl(scene: FlatScene, title: string, unit: ExportUnit): Uint8Array {
  const count = flatTriangleCount(scene);
  const scale = UNITS_PER_METRE[unit];
  const bytes = new Uint8Array(HEADER_BYTES + 4 + count * TRIANGLE_BYTES);
  const view = new DataView(bytes.buffer);
  // A header starting with "solid" makes some readers take the file for ASCII STL.
  const header = `Vitrine export: ${title}`.replace(/^solid/i, 'Solid').slice(0, HEADER_BYTES);
  bytes.set(new TextEncoder().encode(header).subarray(0, HEADER_BYTES));
  view.setUint32(HEADER_BYTES, count, true);
  const normal = new Float64Array(3);
  let offset = HEADER_BYTES + 4;
  for (const part of scene.parts) {
    for (const primitive of part.primitives) {
      const p = toPrintFrame(primitive.positions, scale);
      const { indices } = primitive;
      for (let t = 0; t < indices.length; t += 3) {
        const a = indices[t] * 3;
        const b = indices[t + 1] * 3;
        const c = indices[t + 2] * 3;
        faceNormal(p, a, b, c, normal);
        const nx = normal[0];
        const ny = normal[1];
        const nz = normal[2];
        const length = Math.hypot(nx, ny, nz) || 1;
        view.setFloat32(offset, nx / length, true);
        view.setFloat32(offset + 4, ny / length, true);
        view.setFloat32(offset + 8, nz / length, true);
        offset += 12;
        for (const corner of [a, b, c]) {
          view.setFloat32(offset, p[corner], true);
          view.setFloat32(offset + 4, p[corner + 1], true);
          view.setFloat32(offset + 8, p[corner + 2], true);
          offset += 12;
        }
        // Attribute byte count: unused.
        offset += 2;
      }
    }
  }
  return bytes;
}
