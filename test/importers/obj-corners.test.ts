// A part's corner set (obj-corners.ts) past the room it starts with: every corner keeps the vertex it was first
// given however often its tables grow, and the arrays it hands over hold exactly its corners and triangles.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CornerSet, type ObjVertexData } from '../../src/pipeline/import/obj/obj-corners.ts';

/** File-wide data of `count` positions (x = index), as many uvs and normals, each telling its index apart. */
function vertexData(count: number): ObjVertexData {
  const positions = new Float32Array(count * 3);
  const uvs = new Float32Array(count * 2);
  const normals = new Float32Array(count * 3);
  for (let i = 0; i < count; i++) {
    positions.set([i, 2 * i, 3 * i], i * 3);
    uvs.set([i / count, 0.25], i * 2);
    normals.set([0, 0, 1], i * 3);
  }
  return { positions, uvs, normals };
}

void test('keeps each corner its first vertex through every growth, and hands over exact arrays', () => {
  const count = 1_000;
  const corners = new CornerSet();
  const first: number[] = [];
  for (let v = 0; v < count; v++) first.push(corners.add(v, v, v));
  // The same corners again, after all the growth, and corners that differ only in their uv or normal.
  for (let v = 0; v < count; v++) assert.equal(corners.add(v, v, v), first[v]);
  assert.deepEqual(first, [...first.keys()], 'vertices numbered in the order corners first came');
  const withoutUv = corners.add(5, -1, 5);
  const withoutNormal = corners.add(5, 5, -1);
  assert.deepEqual([withoutUv, withoutNormal], [count, count + 1]);
  for (let t = 0; t + 2 < count; t += 3) corners.triangles.add(t, t + 1, t + 2);
  const triangles = corners.triangles.count;

  const arrays = corners.take(vertexData(count));
  assert.equal(arrays.positions.length, (count + 2) * 3);
  assert.deepEqual(
    [...arrays.positions.subarray(17 * 3, 18 * 3)],
    [17, 34, 51],
    'the 17th corner, past the start',
  );
  assert.deepEqual([...arrays.positions.subarray(count * 3, count * 3 + 3)], [5, 10, 15]);
  assert.equal(arrays.uvs!.length, (count + 2) * 2);
  // OBJ's v runs up, glTF's down; a corner with no uv keeps zeros.
  assert.deepEqual([...arrays.uvs!.subarray(17 * 2, 18 * 2)], [Math.fround(17 / count), 0.75]);
  assert.deepEqual([...arrays.uvs!.subarray(count * 2, count * 2 + 2)], [0, 0]);
  assert.deepEqual(
    [...arrays.normals!.subarray((count + 1) * 3)],
    [0, 0, 0],
    'no normal: zero, repaired later',
  );
  assert.equal(arrays.indices.length, triangles * 3, 'the triangles, trimmed to their count');
  assert.deepEqual([...arrays.indices.subarray(0, 6)], [0, 1, 2, 3, 4, 5]);
});

void test('a part with fewer corners than its starting room hands over its own only', () => {
  const corners = new CornerSet();
  for (const v of [0, 1, 2, 1, 2, 3]) corners.add(v, -1, -1);
  corners.triangles.add(0, 1, 2);
  corners.triangles.add(1, 2, 3);
  const arrays = corners.take(vertexData(4));
  assert.equal(corners.count, 4);
  assert.equal(arrays.positions.length, 12);
  assert.equal(arrays.uvs, undefined, 'no corner named a uv');
  assert.equal(arrays.normals, undefined, 'no corner named a normal');
  assert.deepEqual([...arrays.indices], [0, 1, 2, 1, 2, 3]);
});
