import { MathUtils } from '@gltf-transform/core';
import type { mat4, vec3, vec4 } from '@gltf-transform/core';

/** Largest difference, relative to the matrix's scale, between a matrix and its placement recomposed. */
const SHEAR_TOLERANCE = 1e-6;

/** A matrix as a node or an instance holds it: translation, rotation and scale. */
export interface Placement {
  translation: vec3;
  rotation: vec4;
  scale: vec3;
}

/**
 * A matrix as translation, rotation and scale; null when those cannot hold it: it shears (a rotated node under a
 * parent scaled unevenly). A mirroring matrix gives a negative scale.
 */
export function placementOf(matrix: mat4): Placement | null {
  const translation: vec3 = [0, 0, 0];
  const rotation: vec4 = [0, 0, 0, 1];
  const scale: vec3 = [1, 1, 1];
  MathUtils.decompose(matrix, translation, rotation, scale);
  const again = MathUtils.compose(translation, rotation, scale, new Array(16).fill(0) as unknown as mat4);
  const size = Math.max(...scale.map(Math.abs));
  // The translation is taken as it is: only the 3×3 part (and its zero row) can disagree.
  for (let at = 0; at < 12; at++) {
    if (Math.abs(again[at]! - matrix[at]!) > SHEAR_TOLERANCE * size) return null;
  }
  return { translation, rotation, scale };
}
