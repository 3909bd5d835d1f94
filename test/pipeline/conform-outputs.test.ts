import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { KHRMaterialsIOR, KHRMaterialsVolume } from '@gltf-transform/extensions';
import { cleanUp } from '../../src/pipeline/clean-up.ts';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import {
  addSphere,
  emptyDocument,
  quietLogger,
  readGlb,
  recordingContext,
  tempDir,
  validationErrors,
} from './documents.ts';

/** The JSON chunk of a GLB. */
function jsonOf(glb: Uint8Array): { extensionsUsed?: string[]; materials?: { extensions?: object }[] } {
  const length = new DataView(glb.buffer, glb.byteOffset).getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as ReturnType<typeof jsonOf>;
}

void test('an OBJ with three-component vt lines gets two-component UVs and validates', async () => {
  const { dir, remove } = await tempDir();
  try {
    const file = path.join(dir, 'quad.obj');
    await writeFile(
      file,
      'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0 0\nvt 1 0 0\nvt 1 1 0\nvt 0 1 0\nf 1/1 2/2 3/3 4/4\n',
    );
    const result = await convertModel({
      modelId: 'uvw',
      source: { file, dir, format: 'obj' },
      logger: quietLogger,
    });
    for (const lod of result.lods) {
      assert.deepEqual(await validationErrors(lod.glb), []);
      const document = await readGlb(lod.glb);
      const primitive = document.getRoot().listMeshes()[0].listPrimitives()[0];
      const uv = primitive.getAttribute('TEXCOORD_0')!;
      const position = primitive.getAttribute('POSITION')!;
      assert.equal(uv.getType(), 'VEC2');
      // u, v follow x, y of the quad; glTF counts v from the top.
      for (let i = 0; i < uv.getCount(); i++) {
        const [x, y] = position.getElement(i, [0, 0, 0]);
        assert.deepEqual(uv.getElement(i, []), [x, 1 - y]);
      }
    }
  } finally {
    await remove();
  }
});

void test('skin weights that do not sum to 1 are scaled until the validator accepts them', async () => {
  const document = emptyDocument();
  const buffer = document.getRoot().listBuffers()[0];
  const mesh = addSphere(document, 8, 6);
  const primitive = mesh.listPrimitives()[0];
  const count = primitive.getAttribute('POSITION')!.getCount();
  const joints = new Uint8Array(count * 4).map((_, i) => (i % 4 === 1 ? 1 : 0));
  // 0.5 + 0.4: what a skinned FBX gave for vertices with a third influence assimp dropped; one vertex has none.
  const weights = new Float32Array(count * 4).map((_, i) => (i < 4 ? 0 : [0.5, 0.4, 0, 0][i % 4]));
  primitive
    .setAttribute('JOINTS_0', document.createAccessor().setType('VEC4').setArray(joints).setBuffer(buffer))
    .setAttribute('WEIGHTS_0', document.createAccessor().setType('VEC4').setArray(weights).setBuffer(buffer));
  const root = document.createNode('Root');
  const bone = document.createNode('Bone').setTranslation([0, 1, 0]);
  root.addChild(bone);
  const inverse = new Float32Array([
    1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1,
  ]);
  const skin = document
    .createSkin()
    .addJoint(root)
    .addJoint(bone)
    .setInverseBindMatrices(document.createAccessor().setType('MAT4').setArray(inverse).setBuffer(buffer));
  const scene = document.getRoot().listScenes()[0];
  scene.addChild(root);
  scene.addChild(document.createNode('Body').setMesh(mesh).setSkin(skin));
  const io = await createNodeIO();
  assert.ok((await validationErrors(await io.writeBinary(document))).some((e) => e.includes('WEIGHTS')));

  const context = recordingContext();
  await cleanUp(document, {}, context);
  assert.deepEqual(await validationErrors(await io.writeBinary(document)), []);
  assert.ok(context.warnings.some((line) => line.includes('skin weights')));
  const scaled = document.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('WEIGHTS_0')!;
  const sums = Array.from({ length: scaled.getCount() }, (_, i) =>
    scaled.getElement(i, [0, 0, 0, 0]).reduce((a, b) => a + b, 0),
  );
  for (const sum of sums) assert.ok(Math.abs(sum - 1) < 1e-6);
});

void test('no-effect material extensions are dropped and unused ones undeclared; real values stay', async () => {
  const document = emptyDocument();
  const ior = document.createExtension(KHRMaterialsIOR);
  const volume = document.createExtension(KHRMaterialsVolume);
  const scene = document.getRoot().listScenes()[0];
  const plain = addSphere(document, 8, 6, 1, 'Plain');
  plain.listPrimitives()[0].getMaterial()!.setExtension('KHR_materials_ior', ior.createIOR().setIOR(1));
  // A volume nothing points to, as assimp declares on every model.
  volume.createVolume();
  scene.addChild(document.createNode('Plain').setMesh(plain));
  const io = await createNodeIO();

  await cleanUp(document, { dedup: false }, recordingContext());
  let json = jsonOf(await io.writeBinary(document));
  assert.equal(json.extensionsUsed, undefined);
  assert.deepEqual(json.materials?.[0].extensions, undefined);

  const glass = addSphere(document, 8, 6, 1, 'Glass');
  glass
    .listPrimitives()[0]
    .setMaterial(
      document
        .createMaterial('Glass')
        .setExtension(
          'KHR_materials_ior',
          document.createExtension(KHRMaterialsIOR).createIOR().setIOR(1.45),
        ),
    );
  scene.addChild(document.createNode('Glass').setMesh(glass));
  await cleanUp(document, { dedup: false }, recordingContext());
  json = jsonOf(await io.writeBinary(document));
  assert.deepEqual(json.extensionsUsed, ['KHR_materials_ior']);
});
