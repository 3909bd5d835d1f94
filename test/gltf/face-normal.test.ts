import assert from 'node:assert/strict';
import { it } from 'node:test';
import { faceNormal } from '../../src/gltf/face-normal.ts';

void it('gives (b − a) × (c − a): the winding’s side, twice the area long', () => {
  // A right triangle of legs 2 and 3 in the z = 1 plane, counter-clockwise seen from +z, after one unused vertex.
  const positions = new Float32Array([9, 9, 9, 0, 0, 1, 2, 0, 1, 0, 3, 1]);
  const out = new Float64Array(3);
  assert.equal(faceNormal(positions, 3, 6, 9, out), out);
  assert.deepEqual([...out], [0, 0, 6]);
  faceNormal(positions, 3, 9, 6, out);
  assert.deepEqual([...out], [0, 0, -6], 'the other winding faces the other way');
  faceNormal([0, 0, 0, 1, 1, 1, 2, 2, 2], 0, 3, 6, out);
  assert.deepEqual([...out], [0, 0, 0], 'a degenerate triangle has no area');
});
