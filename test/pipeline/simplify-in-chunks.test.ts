import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { MeshoptSimplifier } from 'meshoptimizer';
import { simplifyInChunks } from '../../src/pipeline/lods/simplify-in-chunks.ts';
import type { SimplifyInChunksOptions } from '../../src/pipeline/lods/simplify-in-chunks.ts';
import { openEdges, torus } from './torus.ts';

before(() => MeshoptSimplifier.ready);

// 120,000 triangles, simplified to half within 0.1 % of its size (a 2.6-unit torus).
const mesh = torus(400, 150);
const settings = (chunkTriangles: number, onChunk?: (done: number) => void): SimplifyInChunksOptions => ({
  simplifier: MeshoptSimplifier,
  targetIndexCount: Math.floor(mesh.indices.length / 6) * 3,
  targetError: 0.0026,
  // No LockBorder: the torus has no border, so only the locks on shared vertices keep the pieces together.
  flags: ['ErrorAbsolute'],
  chunkTriangles,
  onChunk,
});

void test('a list no bigger than a piece is simplified in one call, as meshoptimizer would', () => {
  const [whole, error] = simplifyInChunks(mesh.indices, mesh.positions, settings(mesh.indices.length / 3));
  const [direct, directError] = MeshoptSimplifier.simplify(
    mesh.indices,
    mesh.positions,
    3,
    settings(0).targetIndexCount,
    0.0026,
    ['ErrorAbsolute'],
  );
  assert.deepEqual(whole, direct);
  assert.equal(error, directError);
});

void test('pieces meet without a crack, reach about the same count, and stay within the error', () => {
  const reports: number[] = [];
  const [pieces, error] = simplifyInChunks(
    mesh.indices,
    mesh.positions,
    settings(10_000, (done) => reports.push(done)),
  );
  const [whole] = simplifyInChunks(mesh.indices, mesh.positions, settings(mesh.indices.length / 3));
  assert.equal(openEdges(mesh.indices), 0);
  assert.equal(openEdges(pieces), 0, 'the simplified torus is still closed');
  const triangles = pieces.length / 3;
  assert.ok(
    Math.abs(triangles - whole.length / 3) < (whole.length / 3) * 0.05,
    `${triangles} triangles in pieces, ${whole.length / 3} in one call`,
  );
  assert.ok(error <= 0.0026 && error > 0);
  // Two reports while ordering, then one per piece of at most 10,000 triangles, ending with all of them.
  assert.ok(reports.length >= 2 + 12, `${reports.length} reports`);
  assert.equal(reports.at(-1), mesh.indices.length / 3);
  assert.ok(reports.every((done, i) => i === 0 || done >= reports[i - 1]));
});

void test('every vertex the pieces keep is a vertex of the source', () => {
  const [pieces] = simplifyInChunks(mesh.indices, mesh.positions, settings(7_000));
  const used = new Set(mesh.indices);
  assert.ok(pieces.every((vertex) => used.has(vertex)));
});
