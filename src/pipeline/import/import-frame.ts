import type { Document, mat4, vec4 } from '@gltf-transform/core';
import { multiply } from '../../gltf/multiply-matrices.ts';

/** An up axis a source may declare: a signed coordinate axis. */
export type UpAxis = '+X' | '-X' | '+Y' | '-Y' | '+Z' | '-Z';

const H = Math.SQRT1_2;

/** Rotations (quaternions, xyzw) that turn each signed axis to +Y without mirroring the model. */
const TO_Y_UP: Record<UpAxis, vec4> = {
  '+Y': [0, 0, 0, 1],
  '-Y': [1, 0, 0, 0],
  '+Z': [-H, 0, 0, H],
  '-Z': [H, 0, 0, H],
  '+X': [0, 0, H, H],
  '-X': [0, 0, -H, H],
};

/**
 * Scales a document to metres and turns it to +Y up by changing only the transforms of the scene's
 * top-level nodes, so node names, paths and vertex data stay as the source had them.
 */
export function toMetresYUp(document: Document, metresPerUnit: number, upAxis: UpAxis | 'unknown'): void {
  const rotation = upAxis === 'unknown' ? TO_Y_UP['+Y'] : TO_Y_UP[upAxis];
  if (metresPerUnit === 1 && rotation === TO_Y_UP['+Y']) return;
  const correction = compose(rotation, metresPerUnit);
  const roots = new Set(
    document
      .getRoot()
      .listScenes()
      .flatMap((scene) => scene.listChildren()),
  );
  for (const node of roots) node.setMatrix(multiply(correction, node.getMatrix()));
}

/** Column-major matrix of a rotation followed by a uniform scale. */
function compose([x, y, z, w]: vec4, s: number): mat4 {
  return [
    (1 - 2 * (y * y + z * z)) * s,
    2 * (x * y + z * w) * s,
    2 * (x * z - y * w) * s,
    0,
    2 * (x * y - z * w) * s,
    (1 - 2 * (x * x + z * z)) * s,
    2 * (y * z + x * w) * s,
    0,
    2 * (x * z + y * w) * s,
    2 * (y * z - x * w) * s,
    (1 - 2 * (x * x + y * y)) * s,
    0,
    0,
    0,
    0,
    1,
  ];
}
