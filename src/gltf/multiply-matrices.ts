import type { mat4 } from '@gltf-transform/core';

/**
 * The column-major 4×4 product a·b, summed in the order glTF-Transform's `Node.getWorldMatrix` sums it, so a world
 * matrix built with it equals that one to the bit.
 */
export function multiply(a: mat4, b: mat4): mat4 {
  const out = new Array<number>(16).fill(0) as mat4;
  for (let col = 0; col < 4; col++) {
    for (let row = 0; row < 4; row++) {
      // Started from the first product, not from 0: 0 + (-0) would turn a negative zero positive.
      let sum = a[row] * b[col * 4];
      for (let k = 1; k < 4; k++) sum += a[k * 4 + row] * b[col * 4 + k];
      out[col * 4 + row] = sum;
    }
  }
  return out;
}
