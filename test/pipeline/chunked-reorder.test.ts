import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MeshoptEncoder } from 'meshoptimizer';
import { chunkedReorderEncoder } from '../../src/pipeline/lods/chunked-reorder.ts';
import { torus } from './torus.ts';

/** Each triangle as its three vertices (in the list's numbering), turned to start at its smallest: order-free. */
function triangleSet(indices: ArrayLike<number>, vertexOf: (index: number) => number): Set<string> {
  const triangles = new Set<string>();
  for (let t = 0; t < indices.length; t += 3) {
    const corners = [vertexOf(indices[t]), vertexOf(indices[t + 1]), vertexOf(indices[t + 2])];
    const first = corners.indexOf(Math.min(...corners));
    triangles.add([0, 1, 2].map((k) => corners[(first + k) % 3]).join(','));
  }
  return triangles;
}

/** The vertex each new number stands for, from a remap of old → new. */
function inverse(remap: Uint32Array, used: number): Uint32Array {
  const old = new Uint32Array(used);
  remap.forEach((index, vertex) => {
    if (index !== 0xffffffff) old[index] = vertex;
  });
  return old;
}

void test('a list bigger than a piece is reordered in pieces: the same triangles, facing the same way', async () => {
  await MeshoptEncoder.ready;
  const mesh = torus(200, 100);
  const indices = mesh.indices.slice();
  const [remap, used] = chunkedReorderEncoder(MeshoptEncoder, 4096).reorderMesh(indices, true, true);
  assert.equal(used, mesh.positions.length / 3, 'every vertex is used once');
  assert.equal(new Set(remap).size, used, 'each vertex has a number of its own');
  const old = inverse(remap, used);
  assert.deepEqual(
    triangleSet(indices, (index) => old[index]),
    triangleSet(mesh.indices, (index) => index),
  );
  // Numbered in first use, as the vertex codec wants: each new number is one more than the highest before it.
  let highest = -1;
  for (const index of indices) {
    assert.ok(index <= highest + 1, `vertex ${index} comes after ${highest}`);
    highest = Math.max(highest, index);
  }
});

void test('pieces compress about as well as the whole list reordered at once', async () => {
  await MeshoptEncoder.ready;
  const mesh = torus(400, 200);
  const encodedBytes = (chunkTriangles: number): number => {
    const indices = mesh.indices.slice();
    const [remap, used] = chunkedReorderEncoder(MeshoptEncoder, chunkTriangles).reorderMesh(
      indices,
      true,
      true,
    );
    const positions = new Float32Array(used * 3);
    remap.forEach((index, vertex) => {
      if (index !== 0xffffffff) positions.set(mesh.positions.subarray(vertex * 3, vertex * 3 + 3), index * 3);
    });
    return (
      MeshoptEncoder.encodeIndexBuffer(new Uint8Array(indices.buffer), indices.length, 4).byteLength +
      MeshoptEncoder.encodeVertexBuffer(new Uint8Array(positions.buffer), used, 12).byteLength
    );
  };
  const whole = encodedBytes(1 << 20);
  const pieces = encodedBytes(8192);
  assert.ok(pieces <= whole * 1.05, `${pieces} bytes in pieces against ${whole} whole`);
});

void test('a list no bigger than a piece gets the encoder’s own reorder', async () => {
  await MeshoptEncoder.ready;
  const mesh = torus(40, 20);
  const own = mesh.indices.slice();
  const chunked = mesh.indices.slice();
  const [ownRemap, ownUsed] = MeshoptEncoder.reorderMesh(own, true, true);
  const [remap, used] = chunkedReorderEncoder(MeshoptEncoder, 1600).reorderMesh(chunked, true, true);
  assert.equal(used, ownUsed);
  assert.deepEqual(remap, ownRemap);
  assert.deepEqual(chunked, own);
});
