import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { Primitive } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { cleanUp } from '../../src/pipeline/clean-up.ts';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { MAKE_LODS_DEFAULTS, makeLods } from '../../src/pipeline/lods/make-lods.ts';
import type { LodDocument } from '../../src/pipeline/lods/make-lods.ts';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { meshArea } from './surface-area.ts';
import {
  MODELS,
  addRawMesh,
  addSphere,
  emptyDocument,
  quietLogger,
  readGlb,
  recordingContext,
} from './documents.ts';

/** Collects both levels, each written to GLB and read back as it is yielded (the levels share one document). */
async function allLods(
  document: Document,
  options: Partial<Parameters<typeof makeLods>[1]> = {},
): Promise<LodDocument[]> {
  const lods: LodDocument[] = [];
  for await (const lod of makeLods(
    document,
    { simplifier: MeshoptSimplifier, ...options },
    recordingContext(),
  )) {
    const io = await createNodeIO();
    lods.push({ ...lod, document: await readGlb(await io.writeBinary(lod.document)) });
  }
  return lods;
}

/** Triangles of the mesh on the node whose extras carry `groupId`. */
function partTriangles(document: Document, groupId: string): number {
  const node = document
    .getRoot()
    .listNodes()
    .find((candidate) => candidate.getExtras().group_id === groupId);
  assert.ok(node, `part ${groupId} is missing`);
  let triangles = 0;
  for (const primitive of node.getMesh()!.listPrimitives())
    triangles += primitive.getIndices()!.getCount() / 3;
  return triangles;
}

/** A cleaned-up document of one dense sphere (96 × 64 segments) on a node named Ball. */
async function denseBall(): Promise<Document> {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Ball').setMesh(addSphere(document, 96, 64)));
  await cleanUp(document, {}, recordingContext());
  return document;
}

void test('a dense sphere falls to about half, then at most a quarter of its triangles', async () => {
  const document = await denseBall();
  const source = computeStats(document).triangle_count;
  assert.ok(source > 1000);
  const [lod1, lod2] = await allLods(document);
  const t1 = computeStats(lod1.document).triangle_count;
  const t2 = computeStats(lod2.document).triangle_count;
  assert.ok(t1 <= source * 0.5 * 1.5 && t1 >= source * 0.3, `LOD 1 has ${t1} of ${source}`);
  assert.ok(t2 <= source * 0.25 && t2 > 0, `LOD 2 has ${t2} of ${source}`);
  assert.ok(t2 < t1);
  // LOD 0 is left as it was.
  assert.equal(computeStats(document).triangle_count, source);
  // Simplification keeps the shape: the box barely moves.
  const b0 = computeStats(document).bounds;
  const b2 = computeStats(lod2.document).bounds;
  for (let axis = 0; axis < 3; axis++) assert.ok(Math.abs(b0.max[axis] - b2.max[axis]) < 0.1);
});

void test('every part node keeps its group_id, transform and extras in every level', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const shared = addSphere(document, 48, 32);
  const group = document.createNode('Group').setTranslation([1, 2, 3]);
  group.addChild(document.createNode('A').setMesh(shared).setExtras({ layer: 'x' }));
  group.addChild(document.createNode('B').setMesh(shared).setScale([2, 2, 2]));
  group.addChild(document.createNode('Tiny').setMesh(addRawMesh(document, [0, 0, 0, 1, 0, 0, 0, 1, 0])));
  scene.addChild(group);
  await cleanUp(document, {}, recordingContext());
  const parts = extractParts(document, { modelId: 'm' }, recordingContext());
  for (const lod of await allLods(document)) {
    const nodes = lod.document.getRoot().listNodes();
    assert.deepEqual(
      nodes.map((node) => node.getName()),
      ['Group', 'A', 'B', 'Tiny'],
    );
    for (const part of parts) assert.ok(partTriangles(lod.document, part.group_id) > 0);
    assert.deepEqual(nodes[1].getExtras(), { layer: 'x', group_id: 'm:0' });
    assert.deepEqual(nodes[0].getTranslation(), [1, 2, 3]);
    assert.deepEqual(nodes[2].getScale(), [2, 2, 2]);
    // A shared mesh is simplified once and stays shared.
    assert.equal(nodes[1].getMesh(), nodes[2].getMesh());
  }
});

void test('a mesh too small to reduce keeps its triangles', async () => {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Small').setMesh(addSphere(document, 6, 4)));
  await cleanUp(document, {}, recordingContext());
  const source = computeStats(document).triangle_count;
  assert.ok(source < 64);
  for (const lod of await allLods(document)) assert.equal(computeStats(lod.document).triangle_count, source);
});

void test('lines pass through untouched; points are thinned evenly, keeping their colours', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const positions = Array.from({ length: 300 }, (_, i) => Math.sin(i));
  scene.addChild(
    document.createNode('Wire').setMesh(addRawMesh(document, positions, Primitive.Mode.LINE_STRIP)),
  );
  // A 20 × 20 × 20 lattice of points, coloured by height.
  const lattice: number[] = [];
  const colours: number[] = [];
  for (let x = 0; x < 20; x++)
    for (let y = 0; y < 20; y++)
      for (let z = 0; z < 20; z++) {
        lattice.push(x, y, z);
        colours.push(y / 19, 0, 1 - y / 19);
      }
  const cloud = addRawMesh(document, lattice, Primitive.Mode.POINTS);
  cloud
    .listPrimitives()[0]
    .setAttribute(
      'COLOR_0',
      document
        .createAccessor()
        .setType('VEC3')
        .setArray(new Float32Array(colours))
        .setBuffer(document.getRoot().listBuffers()[0]),
    );
  scene.addChild(document.createNode('Cloud').setMesh(cloud));
  const [lod1, lod2] = await allLods(document);
  for (const [lod, share] of [
    [lod1, 0.5],
    [lod2, 0.15],
  ] as const) {
    const [wire, points] = lod.document
      .getRoot()
      .listMeshes()
      .map((mesh) => mesh.listPrimitives()[0]);
    assert.equal(wire.getAttribute('POSITION')!.getCount(), 100);
    const count = points.getAttribute('POSITION')!.getCount();
    assert.ok(count <= 8000 * share * 1.1 && count >= 8000 * share * 0.5, `${count} points`);
    assert.equal(points.getMode(), Primitive.Mode.POINTS);
    // Every kept point keeps the colour of its height.
    const position = points.getAttribute('POSITION')!;
    const colour = points.getAttribute('COLOR_0')!;
    for (let i = 0; i < count; i++) {
      const y = position.getElement(i, [0, 0, 0])[1];
      assert.ok(Math.abs(colour.getElement(i, [0, 0, 0])[0] - y / 19) < 1e-6);
    }
    // Spread through the volume: every octant keeps points.
    const octants = new Set<number>();
    for (let i = 0; i < count; i++) {
      const [x, y, z] = position.getElement(i, [0, 0, 0]);
      octants.add((x < 10 ? 0 : 1) + (y < 10 ? 0 : 2) + (z < 10 ? 0 : 4));
    }
    assert.equal(octants.size, 8);
    assert.ok(lod.error > 0 && lod.error < 0.05, `error ${lod.error}`);
  }
});

void test('ratios are options', async () => {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Ball').setMesh(addSphere(document, 64, 48)));
  await cleanUp(document, {}, recordingContext());
  const source = computeStats(document).triangle_count;
  const [lod1, lod2] = await allLods(document, { ratios: [0.8, 0.4] });
  const t1 = computeStats(lod1.document).triangle_count;
  const t2 = computeStats(lod2.document).triangle_count;
  assert.ok(t1 > source * 0.6 && t1 <= source * 0.8 * 1.1, `LOD 1 has ${t1} of ${source}`);
  assert.ok(t2 > source * 0.2 && t2 <= source * 0.4 * 1.1, `LOD 2 has ${t2} of ${source}`);
});

void test('a large mesh made of many small primitives still shrinks', async () => {
  const document = emptyDocument();
  const pieces = document.createMesh('Pieces');
  const buffer = document.getRoot().listBuffers()[0];
  // 24 tiles of a gently curved floor, 6 × 5 quads (60 triangles) each, side by side.
  for (let tile = 0; tile < 24; tile++) {
    const positions: number[] = [];
    const indices: number[] = [];
    for (let j = 0; j <= 5; j++)
      for (let i = 0; i <= 6; i++) {
        const x = tile * 6 + i;
        positions.push(x, 0.001 * Math.sin(x / 20), j);
      }
    for (let j = 0; j < 5; j++)
      for (let i = 0; i < 6; i++) {
        const a = j * 7 + i;
        indices.push(a, a + 7, a + 1, a + 1, a + 7, a + 8);
      }
    pieces.addPrimitive(
      document
        .createPrimitive()
        .setAttribute(
          'POSITION',
          document.createAccessor().setType('VEC3').setArray(new Float32Array(positions)).setBuffer(buffer),
        )
        .setIndices(document.createAccessor().setArray(new Uint32Array(indices)).setBuffer(buffer)),
    );
  }
  document.getRoot().listScenes()[0].addChild(document.createNode('Floor').setMesh(pieces));
  const source = computeStats(document).triangle_count;
  const [, lod2] = await allLods(document);
  const t2 = computeStats(lod2.document).triangle_count;
  assert.ok(t2 <= source * 0.5, `LOD 2 has ${t2} of ${source}`);
});

void test('the error bound is the whole model’s: a small part keeps its shape, nothing goes past the bound', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  // A 50 m wide rough terrain beside a 0.3 m ball: the ball is far below the terrain's error budget.
  const buffer = document.getRoot().listBuffers()[0];
  const positions: number[] = [];
  const indices: number[] = [];
  const size = 40;
  let seed = 1;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let j = 0; j <= size; j++)
    for (let i = 0; i <= size; i++) positions.push((i / size) * 50, random() * 2, (j / size) * 50);
  for (let j = 0; j < size; j++)
    for (let i = 0; i < size; i++) {
      const a = j * (size + 1) + i;
      indices.push(a, a + size + 1, a + 1, a + 1, a + size + 1, a + size + 2);
    }
  const terrain = document.createMesh('Terrain').addPrimitive(
    document
      .createPrimitive()
      .setAttribute(
        'POSITION',
        document.createAccessor().setType('VEC3').setArray(new Float32Array(positions)).setBuffer(buffer),
      )
      .setIndices(document.createAccessor().setArray(new Uint32Array(indices)).setBuffer(buffer)),
  );
  scene.addChild(document.createNode('Terrain').setMesh(terrain));
  scene.addChild(
    document
      .createNode('Ball')
      .setMesh(addSphere(document, 48, 32, 0.3))
      .setTranslation([25, 3, 25]),
  );
  await cleanUp(document, {}, recordingContext());
  const parts = extractParts(document, { modelId: 'm' }, recordingContext());
  const ballArea = 4 * Math.PI * 0.3 * 0.3;
  const terrainTriangles = partTriangles(document, parts[0].group_id);
  const lods = await allLods(document);
  for (const lod of lods) {
    // No more error than allowed: the random terrain, whose every vertex matters, keeps most triangles.
    assert.ok(
      lod.error <= MAKE_LODS_DEFAULTS.maxError[lod.level - 1] + 1e-9,
      `LOD ${lod.level} error ${lod.error}`,
    );
    assert.ok(partTriangles(lod.document, parts[0].group_id) > terrainTriangles * 0.5);
    const ball = lod.document
      .getRoot()
      .listNodes()
      .find((node) => node.getName() === 'Ball')!;
    const area = meshArea(ball.getMesh()!, ball.getWorldMatrix());
    assert.ok(area > ballArea * 0.93, `LOD ${lod.level} ball area ${area} of ${ballArea}`);
  }
});

void test('a primitive simplified in pieces reports after its last piece, its area check and its compaction', async () => {
  const document = await denseBall();
  const reports: number[] = [];
  const levels: number[] = [];
  for await (const lod of makeLods(
    document,
    { simplifier: MeshoptSimplifier, chunkTriangles: 2_000 },
    { ...recordingContext(), onProgress: (fraction) => reports.push(fraction) },
  )) {
    levels.push(lod.level);
  }
  assert.deepEqual(levels, [1, 2]);
  // Each level's end share (0.5 for level 1, 1 for level 2) is reported as the last pieces finish, when the
  // primitive is done and after the level is tidied (5 and 3 times here), and again before the area check, after
  // it and after the new indices are compacted: the steps that take seconds on tens of millions of triangles.
  const count = (share: number) => reports.filter((fraction) => fraction === share).length;
  assert.ok(count(0.5) >= 8, `level 1's end was reported ${count(0.5)} times: ${reports.join(', ')}`);
  assert.ok(count(1) >= 6, `level 2's end was reported ${count(1)} times: ${reports.join(', ')}`);
  for (let i = 1; i < reports.length; i++)
    assert.ok(reports[i] >= reports[i - 1], 'progress never goes back');
});

/**
 * A sphere stored as Wuson.ply is: every triangle with corners of its own, a face normal and the sphere's UVs, so
 * each corner's copies differ in their normals alone (and along the UV seam, in their UVs too).
 */
function facetedUvSphere(document: Document): void {
  const sphere = addSphere(document, 48, 32);
  const source = sphere.listPrimitives()[0];
  const position = source.getAttribute('POSITION')!;
  const uv = source.getAttribute('TEXCOORD_0')!;
  const indices = source.getIndices()!.getArray()!;
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [0, 1, 2].map((k) => position.getElement(indices[t + k], []));
    const e1 = a.map((v, i) => b[i] - v);
    const e2 = a.map((v, i) => c[i] - v);
    const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    const length = Math.hypot(...n);
    for (let k = 0; k < 3; k++) {
      positions.push(...[a, b, c][k]);
      normals.push(...n.map((v) => v / length));
      uvs.push(...uv.getElement(indices[t + k], []));
    }
  }
  const buffer = document.getRoot().listBuffers()[0];
  const accessor = (type: 'VEC2' | 'VEC3', values: number[]) =>
    document.createAccessor().setType(type).setArray(new Float32Array(values)).setBuffer(buffer);
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', positions))
    .setAttribute('NORMAL', accessor('VEC3', normals))
    .setAttribute('TEXCOORD_0', accessor('VEC2', uvs))
    .setIndices(
      document
        .createAccessor()
        .setArray(new Uint32Array(positions.length / 3).map((_, i) => i))
        .setBuffer(buffer),
    );
  sphere.dispose();
  const mesh = document.createMesh('Facets').addPrimitive(primitive);
  document.getRoot().listScenes()[0].addChild(document.createNode('Facets').setMesh(mesh));
}

void test('a faceted surface split at its UV seam still reduces, each kept corner with a normal and UV of its own', async () => {
  const document = emptyDocument();
  facetedUvSphere(document);
  const source = computeStats(document).triangle_count;
  const sourceUvs = new Set<string>();
  const uv = document.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('TEXCOORD_0')!;
  for (let i = 0; i < uv.getCount(); i++) sourceUvs.add(uv.getElement(i, []).join(','));

  const [lod1] = await allLods(document);
  const kept = computeStats(lod1.document).triangle_count;
  assert.ok(kept < source * 0.75, `LOD 1 has ${kept} of ${source} triangles`);
  const primitive = lod1.document.getRoot().listMeshes()[0].listPrimitives()[0];
  const normal = primitive.getAttribute('NORMAL')!;
  const keptUv = primitive.getAttribute('TEXCOORD_0')!;
  for (let i = 0; i < keptUv.getCount(); i++) {
    // Vertices are picked from the source's, never blended: every UV is one the source had.
    assert.ok(
      sourceUvs.has(keptUv.getElement(i, []).join(',')),
      `UV ${keptUv.getElement(i, [])} is the source's`,
    );
    assert.ok(Math.abs(Math.hypot(...normal.getElement(i, [])) - 1) < 1e-5, 'a unit normal');
  }
});

void test('the barrel and Wuson, whose corners the source copies per face or per UV island, reduce', async () => {
  for (const [file, format, most] of [
    ['glb/barrel.glb', 'glb', 0.9],
    ['ply/Wuson.ply', 'ply', 0.7],
  ] as const) {
    const result = await convertModel({
      modelId: 'sample',
      source: { file: path.join(MODELS, file), dir: path.dirname(path.join(MODELS, file)), format },
      logger: quietLogger,
      // Every level with fewer triangles is kept, however few bytes it saves.
      levelByteShares: [1, 1],
    });
    const [lod0, lod1] = result.lods;
    assert.ok(lod1.reduced, `${file}: LOD 1 is reduced`);
    assert.ok(
      lod1.triangle_count <= lod0.triangle_count * most,
      `${file}: LOD 1 has ${lod1.triangle_count} of ${lod0.triangle_count} triangles`,
    );
  }
});
