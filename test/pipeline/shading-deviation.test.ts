import assert from 'node:assert/strict';
import { it } from 'node:test';
import { measureSurface } from '../../src/pipeline/lods/shading-deviation.ts';

// Two right triangles of legs 2 in the z = 0 plane, facing +z: area 4.
const positions = new Float32Array([0, 0, 0, 2, 0, 0, 0, 2, 0, 2, 2, 0]);
const indices = new Uint32Array([0, 1, 2, 1, 3, 2]);
const normalsAll = (x: number, y: number, z: number) =>
  new Float32Array([x, y, z, x, y, z, x, y, z, x, y, z]);

void it('measures the area, and no wrong shading when normals follow the faces', () => {
  assert.deepEqual(measureSurface(positions, normalsAll(0, 0, 1), indices), { area: 4, deviatingShare: 0 });
});

void it('counts the whole area when every normal points away from its face', () => {
  const { area, deviatingShare } = measureSurface(positions, normalsAll(0, 0, -1), indices);
  assert.equal(area, 4);
  // Three thirds of each triangle, summed in floating point.
  assert.ok(Math.abs(deviatingShare - 1) < 1e-12, String(deviatingShare));
});

void it('counts a corner for a third of its triangle, at more than 45° only', () => {
  const normals = normalsAll(0, 0, 1);
  // Vertex 0 is a corner of the first triangle only: tilted 60° it shades a third of half the area wrongly.
  normals.set([Math.sin(Math.PI / 3), 0, Math.cos(Math.PI / 3)], 0);
  assert.equal(measureSurface(positions, normals, indices).deviatingShare, 1 / 6);
  normals.set([Math.sin(Math.PI / 6), 0, Math.cos(Math.PI / 6)], 0);
  assert.equal(measureSurface(positions, normals, indices).deviatingShare, 0, '30° is within bounds');
});

void it('gives the area and no share without normals', () => {
  assert.deepEqual(measureSurface(positions, undefined, indices), { area: 4, deviatingShare: 0 });
});
