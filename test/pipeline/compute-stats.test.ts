import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Primitive } from '@gltf-transform/core';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { addRawMesh, addSphere, emptyDocument } from './documents.ts';

void test('counts triangles and vertices of a placed sphere and bounds it', () => {
  const document = emptyDocument();
  const sphere = addSphere(document, 16, 8);
  document.getRoot().listScenes()[0].addChild(document.createNode('Ball').setMesh(sphere));
  const stats = computeStats(document);
  assert.equal(stats.triangle_count, 2 * 16 * 7);
  assert.equal(stats.vertex_count, 17 * 9);
  for (let axis = 0; axis < 3; axis++) {
    assert.ok(Math.abs(stats.bounds.min[axis] + 1) < 1e-6);
    assert.ok(Math.abs(stats.bounds.max[axis] - 1) < 1e-6);
  }
});

void test('counts a mesh once per node that places it, in world space', () => {
  const document = emptyDocument();
  const sphere = addSphere(document, 8, 4);
  const scene = document.getRoot().listScenes()[0];
  const group = document.createNode('Group').setTranslation([0, 5, 0]);
  group.addChild(document.createNode('A').setMesh(sphere));
  group.addChild(document.createNode('B').setMesh(sphere).setTranslation([10, 0, 0]).setScale([2, 2, 2]));
  scene.addChild(group);
  // A node outside every scene is not drawn and not counted.
  document.createNode('Orphan').setMesh(sphere);
  const stats = computeStats(document);
  assert.equal(stats.triangle_count, 2 * 2 * 8 * 3);
  assert.equal(stats.vertex_count, 2 * 9 * 5);
  assert.deepEqual(
    stats.bounds.max.map((v) => Math.round(v * 1e5) / 1e5),
    [12, 7, 2],
  );
  assert.deepEqual(
    stats.bounds.min.map((v) => Math.round(v * 1e5) / 1e5),
    [-1, 3, -2],
  );
});

void test('bounds follow rotation tightly, vertex by vertex', () => {
  const document = emptyDocument();
  // A thin bar along X, turned 90° about Z: its world box is tall, not wide.
  const bar = addRawMesh(document, [0, 0, 0, 4, 0, 0, 4, 1, 0], Primitive.Mode.TRIANGLES);
  const turn = [0, 0, Math.SQRT1_2, Math.SQRT1_2] as [number, number, number, number];
  document.getRoot().listScenes()[0].addChild(document.createNode('Bar').setMesh(bar).setRotation(turn));
  const { bounds } = computeStats(document);
  assert.ok(Math.abs(bounds.max[1] - 4) < 1e-6);
  assert.ok(Math.abs(bounds.min[0] + 1) < 1e-6);
  assert.ok(Math.abs(bounds.max[0]) < 1e-6);
});

void test('counts strips, fans and non-indexed lists; points and lines draw no triangles', () => {
  const five = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0];
  const cases: [number, number[], number[] | undefined, number][] = [
    [Primitive.Mode.TRIANGLES, [...five, 1, 2, 0], undefined, 2],
    [Primitive.Mode.TRIANGLES, five, [0, 1, 2, 1, 3, 2, 2, 3, 4], 3],
    [Primitive.Mode.TRIANGLE_STRIP, five, undefined, 3],
    [Primitive.Mode.TRIANGLE_FAN, five, [0, 1, 2, 3], 2],
    [Primitive.Mode.POINTS, five, undefined, 0],
    [Primitive.Mode.LINES, five, [0, 1, 1, 2], 0],
    [Primitive.Mode.LINE_STRIP, five, undefined, 0],
  ];
  for (const [mode, positions, indices, expected] of cases) {
    const document = emptyDocument();
    const mesh = addRawMesh(document, positions, mode, indices);
    document.getRoot().listScenes()[0].addChild(document.createNode().setMesh(mesh));
    assert.equal(computeStats(document).triangle_count, expected, `mode ${mode}`);
  }
});

void test('an empty document has zero counts and a box at the origin', () => {
  const stats = computeStats(emptyDocument());
  assert.deepEqual(stats, { triangle_count: 0, vertex_count: 0, bounds: { min: [0, 0, 0], max: [0, 0, 0] } });
});
