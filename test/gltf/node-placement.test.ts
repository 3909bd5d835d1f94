import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MathUtils } from '@gltf-transform/core';
import type { mat4, vec3, vec4 } from '@gltf-transform/core';
import { multiply } from '../../src/gltf/multiply-matrices.ts';
import { placementOf } from '../../src/gltf/node-placement.ts';

const IDENTITY: mat4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const compose = (t: vec3, r: vec4, s: vec3) => MathUtils.compose(t, r, s, [...IDENTITY] as mat4);
const TURN: vec4 = [0, Math.sin(0.4), 0, Math.cos(0.4)];

void test('a matrix of a translation, a rotation and a scale gives them back, a mirror as a negative scale', () => {
  const placement = placementOf(compose([1, -2, 30], TURN, [2, 3, 0.5]))!;
  assert.deepEqual(placement.translation, [1, -2, 30]);
  placement.scale.forEach((value, axis) => assert.ok(Math.abs(value - [2, 3, 0.5][axis]!) < 1e-9));
  placement.rotation.forEach((value, axis) =>
    assert.ok(Math.abs(Math.abs(value) - Math.abs(TURN[axis]!)) < 1e-9),
  );
  const mirrored = placementOf(compose([0, 0, 0], [0, 0, 0, 1], [-1, 1, 1]))!;
  assert.ok(mirrored.scale[0] * mirrored.scale[1] * mirrored.scale[2] < 0);
});

void test('a node turned under a parent scaled unevenly shears: it has no placement', () => {
  const parent = compose([0, 0, 0], [0, 0, 0, 1], [1, 4, 1]);
  const turnedAboutX = compose([5, 6, 7], [Math.sin(0.4), 0, 0, Math.cos(0.4)], [1, 1, 1]);
  assert.equal(placementOf(multiply(parent, turnedAboutX)), null);
  assert.ok(placementOf(multiply(turnedAboutX, parent)), 'scaled first, then turned: no shear');
});
