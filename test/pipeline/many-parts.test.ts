import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { MeshoptSimplifier } from 'meshoptimizer';
import { cleanUp } from '../../src/pipeline/clean-up.ts';
import { busyAfterImportMs, convertModel } from '../../src/pipeline/convert-model.ts';
import { makeLods } from '../../src/pipeline/lods/make-lods.ts';
import type { ConversionResult } from '../../src/pipeline/types.ts';
import { splitFeatureParts } from '../../src/render/scene/split-feature-parts.ts';
import { MANY_PARTS_TRIANGLES_PER_GROUP, manyPartsName, manyPartsObj } from '../fixtures/many-parts-obj.ts';
import type { ManyPartsObjOptions } from '../fixtures/many-parts-obj.ts';
import { addSphere, emptyDocument, quietLogger, readGlb, tempDir } from './documents.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** Converts a generated OBJ of many groups in process, as the conversion thread does, LODs compressed. */
async function convertGenerated(
  options: ManyPartsObjOptions,
  onBusy?: (milliseconds: number) => void,
  batchParts?: false,
): Promise<ConversionResult> {
  const file = path.join(scratch.dir, `${options.kind}-${options.groups}.obj`);
  await writeFile(file, manyPartsObj(options));
  return convertModel({
    modelId: 'many',
    source: { file, dir: scratch.dir, format: 'obj' },
    logger: quietLogger,
    compressLods: 'meshopt',
    onBusy,
    batchParts,
  });
}

/** Every part listed once, in file order, with its own group_id and name and a box's triangles and corners. */
function assertParts(result: ConversionResult, groups: number): void {
  assert.equal(result.parts.length, groups);
  assert.equal(new Set(result.parts.map((part) => part.group_id)).size, groups);
  result.parts.forEach((part, index) => {
    assert.equal(part.name, manyPartsName(index));
    assert.equal(part.group_id, `many:${index}`);
    assert.equal(part.triangle_count, MANY_PARTS_TRIANGLES_PER_GROUP);
    assert.equal(part.vertex_count, 8);
  });
  assert.equal(result.triangle_count, groups * MANY_PARTS_TRIANGLES_PER_GROUP);
}

/** Triangles each group_id's node draws in a written level, a batched level's parts split back into nodes. */
async function trianglesByGroup(glb: Uint8Array): Promise<Map<string, number>> {
  const document = await readGlb(glb);
  splitFeatureParts(document);
  const found = new Map<string, number>();
  for (const node of document.getRoot().listNodes()) {
    const mesh = node.getMesh();
    const groupId = node.getExtras().group_id;
    if (!mesh || typeof groupId !== 'string') continue;
    let triangles = 0;
    for (const primitive of mesh.listPrimitives()) triangles += primitive.getIndices()!.getCount() / 3;
    assert.equal(found.has(groupId), false, `${groupId} is placed twice`);
    found.set(groupId, triangles);
  }
  return found;
}

void test('a model of 3,000 distinct parts keeps each part, its id, name and triangles, in every level', async () => {
  const groups = 3000;
  const silences: number[] = [];
  const result = await convertGenerated({ groups, kind: 'distinct' }, (ms) => silences.push(ms));
  assertParts(result, groups);
  // The stages after import may keep silent for the steps linear in nodes that cannot report from inside.
  assert.ok(silences.at(-1)! >= busyAfterImportMs(result.triangle_count, groups), `${silences.at(-1)} ms`);
  assert.ok(busyAfterImportMs(0, 100_000) > 15_000, 'more than the default stall limit at 100,000 parts');
  // Each box its own size: no two parts share a mesh, and each part's bounds are its own box's.
  result.parts.forEach((part, index) => {
    const side = Math.ceil(Math.sqrt(groups));
    const x = (index % side) * 2;
    assert.ok(Math.abs(part.bounds.min[0] - x) < 1e-3, `${part.name} starts at x = ${x}`);
    const width = 0.5 + (index % 1000) / 1000;
    assert.ok(
      Math.abs(part.bounds.max[0] - part.bounds.min[0] - width) < 1e-3,
      `${part.name} is ${width} m wide`,
    );
  });
  for (const lod of result.lods) {
    const byGroup = await trianglesByGroup(lod.glb);
    assert.equal(byGroup.size, groups, `LOD ${lod.level} places every part`);
    for (const part of result.parts)
      assert.equal(
        byGroup.get(part.group_id),
        MANY_PARTS_TRIANGLES_PER_GROUP,
        `LOD ${lod.level}: ${part.name}`,
      );
  }
});

void test('a model of 2,000 parts repeating 50 shapes lists every part, a mesh a shape and one index list shared by all', async () => {
  const groups = 2000;
  // A node per part, as levels of few parts are written: batched levels share no index lists.
  const result = await convertGenerated({ groups, kind: 'repeated', shapes: 50 }, undefined, false);
  assertParts(result, groups);
  const document = await readGlb(result.lods[0].glb);
  const byGroup = await trianglesByGroup(result.lods[0].glb);
  assert.equal(byGroup.size, groups);
  // The repeated boxes are the 50 shapes moved: the import gives each copy its shape's mesh and a node placing it
  // (a copy whose corners sit across the file's precision from its shape's keeps a mesh of its own).
  const meshes = document.getRoot().listMeshes().length;
  assert.ok(meshes >= 50 && meshes <= 60, `${meshes} meshes`);
  // Their index lists are one box's topology: one accessor for all.
  const indices = new Set(
    document
      .getRoot()
      .listMeshes()
      .map((mesh) => mesh.listPrimitives()[0].getIndices()),
  );
  assert.equal(indices.size, 1);
});

void test('parts of one topology share an index list and are each simplified, the list freed once none uses it', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const parts = 300;
  for (let i = 0; i < parts; i++) {
    // One topology, each sphere its own size and place: dedup makes their index lists one.
    const node = document
      .createNode(`sphere ${i}`)
      .setMesh(addSphere(document, 64, 32, 0.2 + (i % 17) / 100));
    scene.addChild(
      node.setTranslation([(i % 20) * 1.5, 0, Math.floor(i / 20) * 1.5]).setExtras({ group_id: `s${i}` }),
    );
  }
  await cleanUp(document, {}, { logger: quietLogger });
  const sharedLists = () =>
    new Set(
      document
        .getRoot()
        .listMeshes()
        .map((mesh) => mesh.listPrimitives()[0].getIndices()),
    ).size;
  assert.equal(sharedLists(), 1);
  const before = document.getRoot().listMeshes()[0].listPrimitives()[0].getIndices()!.getCount() / 3;
  for await (const lod of makeLods(
    document,
    // The levels are made in the document itself, as the conversion makes them once LOD 0 is written.
    { simplifier: MeshoptSimplifier, consumeSource: true },
    { logger: quietLogger },
  )) {
    const counts = document
      .getRoot()
      .listNodes()
      .map((node) => node.getMesh()!.listPrimitives()[0].getIndices()!.getCount() / 3);
    assert.equal(counts.length, parts);
    for (const [i, count] of counts.entries())
      assert.ok(count < before, `LOD ${lod.level}: sphere ${i} keeps ${count} of ${before}`);
    // Every index list in the document is some part's: none left over from LOD 0.
    const used = new Set(
      document
        .getRoot()
        .listMeshes()
        .map((mesh) => mesh.listPrimitives()[0].getIndices()),
    );
    const lists = document
      .getRoot()
      .listAccessors()
      .filter((accessor) => accessor.getType() === 'SCALAR');
    assert.equal(lists.length, used.size);
  }
});
