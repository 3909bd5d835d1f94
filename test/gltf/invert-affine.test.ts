import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MathUtils } from '@gltf-transform/core';
import type { mat4, vec3, vec4 } from '@gltf-transform/core';
import { invertAffine } from '../../src/gltf/invert-affine.ts';
import { multiply } from '../../src/gltf/multiply-matrices.ts';

const IDENTITY: mat4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** A matrix of a translation, a unit quaternion and a scale. */
function trs(translation: vec3, rotation: vec4, scale: vec3): mat4 {
  const length = Math.hypot(...rotation);
  const unit = rotation.map((value) => value / length) as vec4;
  return MathUtils.compose(translation, unit, scale, [...IDENTITY] as mat4);
}

void test('an affine matrix times its inverse is the identity, mirrored, sheared or not', () => {
  const cases: mat4[] = [
    IDENTITY,
    trs([1, -2, 3], [0.1, 0.7, -0.2, 0.6], [2, 0.5, 3]),
    trs([100, 0, -40], [0, 0, 0, 1], [-1, 1, 1]),
    // A turned node under an unevenly scaled parent: a shear no translation, rotation and scale can hold.
    multiply(trs([0, 0, 0], [0, 0, 0, 1], [1, 4, 1]), trs([5, 6, 7], [0.3, 0.2, 0.1, 0.9], [1, 1, 1])),
  ];
  for (const matrix of cases) {
    const inverse = invertAffine(matrix);
    assert.ok(inverse);
    for (const product of [multiply(matrix, inverse), multiply(inverse, matrix)])
      product.forEach((value, at) => assert.ok(Math.abs(value - IDENTITY[at]!) < 1e-12, `${at}: ${value}`));
  }
});

void test('a matrix that flattens space has no inverse', () => {
  assert.equal(invertAffine(trs([1, 2, 3], [0, 0, 0, 1], [1, 0, 1])), null);
});
