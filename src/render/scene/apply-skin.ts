import type { Primitive, Skin, mat4 } from '@gltf-transform/core';
import { readFloats } from './read-attribute.ts';

/** A skinned primitive posed in world space. */
export interface SkinnedGeometry {
  /** World-space xyz per vertex. */
  positions: Float32Array;
  /** Unit world-space normals per vertex, or `null` when the primitive has none. */
  normals: Float32Array | null;
  /** Whether the first joint mirrors, so triangle winding must flip to keep front faces in front. */
  mirrored: boolean;
}

/**
 * Poses a skinned primitive with its joints' current world transforms (the rest pose a viewer
 * shows before any animation plays): each vertex goes through the weighted sum of
 * `jointWorld × inverseBind` over `JOINTS_n`/`WEIGHTS_n`. As glTF requires, the transform of the
 * node holding the mesh is ignored. Returns `null` when the primitive lacks joints or weights.
 */
export function applySkin(primitive: Primitive, skin: Skin): SkinnedGeometry | null {
  const joints = skin.listJoints();
  const sets: [Float32Array, Float32Array][] = [];
  for (let set = 0; ; set++) {
    const j = primitive.getAttribute(`JOINTS_${set}`);
    const w = primitive.getAttribute(`WEIGHTS_${set}`);
    if (!j || !w) break;
    sets.push([readFloats(j), readFloats(w)]);
  }
  const positionAccessor = primitive.getAttribute('POSITION');
  if (sets.length === 0 || joints.length === 0 || !positionAccessor) return null;

  const inverseBind = skin.getInverseBindMatrices();
  const matrices = new Float64Array(joints.length * 16);
  const ibm = new Array<number>(16).fill(0) as mat4;
  joints.forEach((joint, index) => {
    const world = joint.getWorldMatrix();
    if (inverseBind && index < inverseBind.getCount()) inverseBind.getElement(index, ibm);
    else ibm.splice(0, 16, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
    for (let col = 0; col < 4; col++) {
      for (let row = 0; row < 4; row++) {
        let sum = 0;
        for (let k = 0; k < 4; k++) sum += world[k * 4 + row] * ibm[col * 4 + k];
        matrices[index * 16 + col * 4 + row] = sum;
      }
    }
  });

  const local = readFloats(positionAccessor);
  const normalAccessor = primitive.getAttribute('NORMAL');
  const localNormals =
    normalAccessor && normalAccessor.getCount() === positionAccessor.getCount()
      ? readFloats(normalAccessor)
      : null;
  const count = positionAccessor.getCount();
  const positions = new Float32Array(count * 3);
  const normals = localNormals ? new Float32Array(count * 3) : null;
  const m = new Float64Array(12);
  for (let v = 0; v < count; v++) {
    m.fill(0);
    for (const [jointIds, weights] of sets) {
      for (let k = 0; k < 4; k++) {
        const weight = weights[v * 4 + k];
        const joint = jointIds[v * 4 + k];
        if (!(weight !== 0) || !(joint >= 0 && joint < joints.length)) continue;
        const o = joint * 16;
        // Rows 0–2 of the column-major joint matrix; row 3 of an affine matrix is 0 0 0 1.
        for (let c = 0; c < 4; c++) {
          m[c * 3] += weight * matrices[o + c * 4];
          m[c * 3 + 1] += weight * matrices[o + c * 4 + 1];
          m[c * 3 + 2] += weight * matrices[o + c * 4 + 2];
        }
      }
    }
    const x = local[v * 3];
    const y = local[v * 3 + 1];
    const z = local[v * 3 + 2];
    positions[v * 3] = m[0] * x + m[3] * y + m[6] * z + m[9];
    positions[v * 3 + 1] = m[1] * x + m[4] * y + m[7] * z + m[10];
    positions[v * 3 + 2] = m[2] * x + m[5] * y + m[8] * z + m[11];
    if (normals && localNormals) {
      const nx = localNormals[v * 3];
      const ny = localNormals[v * 3 + 1];
      const nz = localNormals[v * 3 + 2];
      // Joint matrices are rotations and uniform scales in practice, so the matrix itself turns normals.
      const wx = m[0] * nx + m[3] * ny + m[6] * nz;
      const wy = m[1] * nx + m[4] * ny + m[7] * nz;
      const wz = m[2] * nx + m[5] * ny + m[8] * nz;
      const len = Math.sqrt(wx * wx + wy * wy + wz * wz);
      const s = len > 0 ? 1 / len : 0;
      normals[v * 3] = wx * s;
      normals[v * 3 + 1] = wy * s;
      normals[v * 3 + 2] = wz * s;
    }
  }
  const a = matrices;
  const det =
    a[0] * (a[5] * a[10] - a[6] * a[9]) -
    a[4] * (a[1] * a[10] - a[2] * a[9]) +
    a[8] * (a[1] * a[6] - a[2] * a[5]);
  return { positions, normals, mirrored: det < 0 };
}
