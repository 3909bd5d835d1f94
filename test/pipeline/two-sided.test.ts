import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { Document, Mesh } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { markTwoSided } from '../../src/pipeline/two-sided.ts';
import { MODELS, addRawMesh, emptyDocument, quietLogger, readGlb, recordingContext } from './documents.ts';

/** A closed, consistently wound tetrahedron. */
function tetrahedron(document: Document): Mesh {
  const positions = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1];
  return addRawMesh(document, positions, 4, [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], 'Tetrahedron');
}

void test('a mesh without a material gets a default material drawn from both sides', async () => {
  const document = emptyDocument();
  const mesh = addRawMesh(document, [0, 0, 0, 1, 0, 0, 0, 1, 0]);
  document.getRoot().listScenes()[0].addChild(document.createNode('Plane').setMesh(mesh));
  assert.equal(await markTwoSided(document, { simplifier: MeshoptSimplifier }, recordingContext()), 1);
  const material = mesh.listPrimitives()[0].getMaterial()!;
  assert.ok(material.getDoubleSided());
  // glTF's own defaults otherwise: the mesh looks as it did, from both sides.
  assert.deepEqual(material.getBaseColorFactor(), [1, 1, 1, 1]);
  assert.equal(material.getMetallicFactor(), 1);
});

void test('closed surfaces keep a single-sided material; open ones sharing it get a two-sided copy', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const closed = tetrahedron(document);
  const open = addRawMesh(document, [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0], 4, [0, 1, 2, 2, 1, 3], 'Quad');
  const shared = document.createMaterial('Paint');
  closed.listPrimitives()[0].setMaterial(shared);
  open.listPrimitives()[0].setMaterial(shared);
  scene.addChild(document.createNode('A').setMesh(closed));
  scene.addChild(document.createNode('B').setMesh(open));
  assert.equal(await markTwoSided(document, { simplifier: MeshoptSimplifier }, recordingContext()), 1);
  assert.equal(closed.listPrimitives()[0].getMaterial(), shared);
  assert.equal(shared.getDoubleSided(), false);
  const copy = open.listPrimitives()[0].getMaterial()!;
  assert.notEqual(copy, shared);
  assert.ok(copy.getDoubleSided());
  assert.equal(copy.getName(), 'Paint');
});

void test('parts drawing one index list are each judged by their own positions', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const corners = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1];
  const faces = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3];
  // Twelve vertices, three a face: a closed tetrahedron once welded by position, four loose triangles when each
  // face is moved apart. Both read the same list 0…11.
  const tetrahedron = (apart: boolean) =>
    faces.flatMap((corner, i) => {
      const [x, y, z] = corners.slice(corner * 3, corner * 3 + 3);
      return [x + (apart ? Math.floor(i / 3) * 10 : 0), y, z];
    });
  const list = [...Array(12).keys()];
  const meshes = [true, false, true, false].map((apart, i) =>
    addRawMesh(document, tetrahedron(apart), 4, list, `Part ${i}`),
  );
  const shared = meshes[0].listPrimitives()[0].getIndices()!;
  const paint = document.createMaterial('Paint');
  for (const [i, mesh] of meshes.entries()) {
    mesh.listPrimitives()[0].setIndices(shared).setMaterial(paint);
    scene.addChild(document.createNode(`Part ${i}`).setMesh(mesh));
  }
  assert.equal(await markTwoSided(document, { simplifier: MeshoptSimplifier }, recordingContext()), 2);
  const sides = meshes.map((mesh) => mesh.listPrimitives()[0].getMaterial()!.getDoubleSided());
  assert.deepEqual(sides, [true, false, true, false]);
});

void test('the Möbius strip and the open sphere convert to levels drawn from both sides', async () => {
  for (const model of ['ply/moebius-160-10.ply', 'stl/sphereWithHole.stl']) {
    const file = path.join(MODELS, model);
    const format = path.extname(model).slice(1).toLowerCase() as 'ply' | 'stl';
    const { lods } = await convertModel({
      modelId: 'open',
      source: { file, dir: path.dirname(file), format },
      logger: quietLogger,
    });
    for (const lod of lods) {
      const document = await readGlb(lod.glb);
      for (const mesh of document.getRoot().listMeshes())
        for (const primitive of mesh.listPrimitives())
          assert.ok(primitive.getMaterial()?.getDoubleSided(), `${model} LOD ${lod.level}`);
    }
  }
});
