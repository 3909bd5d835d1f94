// The clean-up's weld (src/pipeline/weld-in-place.ts) against glTF-Transform's `weld`, on the same documents:
// every primitive's index and attributes must come out array for array the same (merged vertices, their order, the
// index type), whether it was rewritten in its own accessors or, sharing one, by `weld` itself.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Primitive } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import { cloneDocument, unweld, weld } from '@gltf-transform/functions';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import type { ModelFormat } from '../../src/pipeline/types.ts';
import { weldInPlace } from '../../src/pipeline/weld-in-place.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { addRawMesh, addSphere, emptyDocument, quietLogger } from './documents.ts';

/** Each primitive of the document, in order: its mode, index array and attribute arrays by semantic. */
function primitives(document: Document) {
  return document
    .getRoot()
    .listMeshes()
    .flatMap((mesh) => mesh.listPrimitives())
    .map((primitive) => ({
      mode: primitive.getMode(),
      indices: primitive.getIndices()?.getArray() ?? null,
      attributes: Object.fromEntries(
        primitive.listSemantics().map((semantic) => [semantic, primitive.getAttribute(semantic)!.getArray()]),
      ),
      targets: primitive
        .listTargets()
        .map((target) =>
          Object.fromEntries(
            target.listSemantics().map((semantic) => [semantic, target.getAttribute(semantic)!.getArray()]),
          ),
        ),
    }));
}

/** Asserts that welding in place gives what `weld` gives, and answers how many primitives there were. */
async function assertSameAsWeld(document: Document): Promise<number> {
  const theirs = cloneDocument(document);
  const ours = cloneDocument(document);
  await theirs.transform(weld());
  await ours.transform(weldInPlace());
  const expected = primitives(theirs);
  assert.deepEqual(primitives(ours), expected);
  return expected.length;
}

/** A document of spheres unwelded (every corner its own vertex), an unindexed one, shared accessors and morphs. */
function awkwardDocument(): Document {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  const sphere = addSphere(document, 8, 5, 1, 'Sphere');
  const copy = addSphere(document, 6, 4, 0.5, 'Unwelded');
  // Two primitives reading one position accessor: that primitive must go through `weld` itself.
  const shared = document
    .createMesh('Shared')
    .addPrimitive(sphere.listPrimitives()[0]!.clone())
    .addPrimitive(sphere.listPrimitives()[0]!.clone());
  const morphed = addSphere(document, 5, 4, 0.3, 'Morphed');
  const target = document.createPrimitiveTarget();
  const position = morphed.listPrimitives()[0]!.getAttribute('POSITION')!;
  target.setAttribute(
    'POSITION',
    document
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array(position.getCount() * 3).fill(0.01))
      .setBuffer(document.getRoot().listBuffers()[0]!),
  );
  morphed.listPrimitives()[0]!.addTarget(target);
  // A corner list with repeated corners and a -0 beside a 0: bitwise unequal, so not merged.
  const raw = addRawMesh(
    document,
    [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, -0, 0, 0, 1, 0, 0, 0, 1, 0],
    Primitive.Mode.TRIANGLES,
  );
  const empty = addRawMesh(document, [0, 0, 0, 1, 0, 0, 0, 1, 0], Primitive.Mode.TRIANGLES, [], 'Empty');
  // One accessor under two semantics: rewritten in place it would be compacted twice.
  const twoSets = addSphere(document, 7, 4, 0.4, 'Two UV sets');
  const twoSetsPrimitive = twoSets.listPrimitives()[0]!;
  twoSetsPrimitive.setAttribute('TEXCOORD_1', twoSetsPrimitive.getAttribute('TEXCOORD_0'));
  const emptyPoints = addRawMesh(document, [], Primitive.Mode.POINTS, undefined, 'Empty points');
  for (const mesh of [sphere, copy, shared, morphed, raw, empty, twoSets, emptyPoints])
    scene.addChild(document.createNode().setMesh(mesh));
  return document;
}

void describe('welding in place', () => {
  void test('gives what weld gives on unwelded, unindexed, shared, morphed and empty primitives', async () => {
    const document = awkwardDocument();
    const copy = document
      .getRoot()
      .listMeshes()
      .find((mesh) => mesh.getName() === 'Unwelded')!;
    await document.transform(unweld());
    assert.ok(
      copy.listPrimitives()[0]!.getIndices() === null,
      'the spheres are corner lists before the weld',
    );
    assert.ok((await assertSameAsWeld(document)) >= 5);
  });

  const SAMPLES: [string, ModelFormat][] = [
    ['ifc/duplex.ifc', 'ifc'],
    ['ifc/AC14-FZK-Haus.ifc', 'ifc'],
    ['fbx/cubes_with_names.fbx', 'fbx'],
    ['dae/franka_fer_link0.dae', 'dae'],
    ['glb/CesiumMilkTruck.glb', 'glb'],
    ['glb/MultiUVTest.glb', 'glb'],
    ['step/red_cube_blue_cylinder.step', 'step'],
  ];
  for (const [file, format] of SAMPLES) {
    void test(`gives what weld gives on ${file} as imported`, async () => {
      const source = {
        file: path.join(SAMPLE_MODELS, file),
        dir: path.dirname(path.join(SAMPLE_MODELS, file)),
        format,
      };
      const { document } = await importerFor(format)!.read(source, { logger: quietLogger });
      assert.ok((await assertSameAsWeld(document)) > 0);
    });
  }
});
