import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { getBounds } from '@gltf-transform/core';
import sharp from 'sharp';
import { importAssimp } from '../../src/pipeline/import/assimp/import-assimp.ts';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import { importObj } from '../../src/pipeline/import/obj/import-obj.ts';
import { importPly } from '../../src/pipeline/import/ply/import-ply.ts';
import { importStl } from '../../src/pipeline/import/stl/import-stl.ts';
import {
  MODELS,
  SAMPLES,
  errorsOf,
  importSample,
  recordingContext,
  triangleCount,
  validate,
} from './support.ts';

void test('the registry hands fbx, dae and 3ds to importAssimp, stl, ply and obj to the JavaScript readers', () => {
  for (const format of ['fbx', 'dae', '3ds'] as const) assert.equal(importerFor(format), importAssimp);
  assert.equal(importerFor('stl'), importStl);
  assert.equal(importerFor('ply'), importPly);
  assert.equal(importerFor('obj'), importObj);
});

for (const sample of SAMPLES.assimp) {
  void test(`${sample.file}: valid glTF with every source triangle`, async () => {
    const result = await importSample(sample.file);
    assert.ok(result.sourceTriangleCount! > 0);
    if (sample.triangles !== undefined) assert.equal(result.sourceTriangleCount, sample.triangles);
    const triangles = triangleCount(result.document);
    assert.ok(
      Math.abs(triangles - result.sourceTriangleCount!) <= result.sourceTriangleCount! * 0.01,
      `${triangles} triangles for ${result.sourceTriangleCount} in the source`,
    );
    assert.deepEqual(errorsOf(await validate(result.document)), []);
  });
}

/** The bytes of every texture of a document, by MIME type. */
async function textures(file: string): Promise<{ mime: string; image: Uint8Array }[]> {
  const { document } = await importSample(file);
  return document
    .getRoot()
    .listTextures()
    .map((texture) => ({ mime: texture.getMimeType(), image: texture.getImage()! }));
}

void test('spider.obj embeds the JPEGs its .mtl names with Windows paths (.\\SpiderTex.jpg)', async () => {
  const folder = path.join(MODELS, 'obj/spider');
  // The .mtl names five; Brusttex (wal69ar_small.jpg) is used by no face, so its image is not read.
  const expected = await Promise.all(
    ['wal67ar_small.jpg', 'SpiderTex.jpg', 'drkwood2.jpg', 'engineflare1.jpg'].map((name) =>
      readFile(path.join(folder, name)),
    ),
  );
  const found = await textures('obj/spider/spider.obj');
  assert.equal(found.length, 4);
  for (const bytes of expected) {
    assert.ok(
      found.some((texture) => texture.mime === 'image/jpeg' && Buffer.from(texture.image).equals(bytes)),
    );
  }
  const { document } = await importSample('obj/spider/spider.obj');
  const textured = document
    .getRoot()
    .listMaterials()
    .filter((material) => material.getBaseColorTexture());
  assert.ok(textured.length >= 4, 'materials keep their base-colour textures');
});

void test('spider.fbx embeds the textures it names by absolute Windows paths (D:\\projects\\…)', async () => {
  const found = await textures('fbx/spider/spider.fbx');
  assert.equal(found.length, 4);
  const tex = await readFile(path.join(MODELS, 'fbx/spider/SpiderTex.jpg'));
  assert.ok(found.some((texture) => Buffer.from(texture.image).equals(tex)));
  assert.ok(found.every((texture) => texture.mime === 'image/jpeg'));
});

void test('duck.dae embeds its TGA texture as a PNG with the same pixels, top row first', async () => {
  const [texture] = await textures('dae/duck/duck.dae');
  assert.equal(texture.mime, 'image/png');
  const { data, info } = await sharp(texture.image).raw().toBuffer({ resolveWithObject: true });
  assert.equal(info.width, 512);
  assert.equal(info.height, 512);
  // duckCM.tga: 18-byte header, no id, 24-bit BGR rows stored bottom-up.
  const tga = await readFile(path.join(MODELS, 'dae/duck/duckCM.tga'));
  for (const [x, y] of [
    [0, 0],
    [100, 37],
    [511, 511],
    [256, 400],
  ]) {
    const at = 18 + ((511 - y) * 512 + x) * 3;
    const png = (y * 512 + x) * info.channels;
    assert.deepEqual(
      [data[png], data[png + 1], data[png + 2]],
      [tga[at + 2], tga[at + 1], tga[at]],
      `pixel ${x},${y}`,
    );
  }
});

void test('references resolve whatever the case of the file names in the upload', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-assimp-'));
  try {
    const from = path.join(MODELS, 'obj/spider');
    await mkdir(path.join(dir, 'Textures'));
    for (const name of await readdir(from)) {
      const target = /\.jpg$/i.test(name)
        ? path.join(dir, 'Textures', name.toUpperCase())
        : path.join(dir, name);
      await copyFile(path.join(from, name), target);
    }
    const context = recordingContext();
    const result = await importAssimp.read(
      { file: path.join(dir, 'spider.obj'), dir, format: 'obj' },
      context,
    );
    assert.equal(result.document.getRoot().listTextures().length, 5);
    assert.ok(!context.lines.some((line) => line.startsWith('warn') && line.includes('texture')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

void test('a texture missing from the upload is left out with a warning, the model still imports', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-assimp-'));
  try {
    const from = path.join(MODELS, 'obj/spider');
    for (const name of ['spider.obj', 'spider.mtl', 'SpiderTex.jpg'])
      await copyFile(path.join(from, name), path.join(dir, name));
    const context = recordingContext();
    const result = await importAssimp.read(
      { file: path.join(dir, 'spider.obj'), dir, format: 'obj' },
      context,
    );
    assert.equal(result.document.getRoot().listTextures().length, 1);
    assert.ok(context.lines.some((line) => line.startsWith('warn') && line.includes('drkwood2.jpg')));
    assert.deepEqual(errorsOf(await validate(result.document)), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

void test('COLLADA units and up axis are applied by assimp and recorded', async () => {
  const duck = await importSample('dae/duck/duck.dae');
  assert.equal(duck.sourceUnit, 'cm');
  assert.equal(duck.sourceUpAxis, '+Y');
  const duckBounds = getBounds(duck.document.getRoot().listScenes()[0]);
  // The duck is about 150 cm tall in its own units.
  assert.ok(duckBounds.max[1] - duckBounds.min[1] > 1 && duckBounds.max[1] - duckBounds.min[1] < 3);

  const link = await importSample('dae/franka_fer_link0.dae');
  assert.equal(link.sourceUnit, 'm');
  assert.equal(link.sourceUpAxis, '+Z');
  const { min, max } = getBounds(link.document.getRoot().listScenes()[0]);
  // The robot base stands 14 cm tall along its Z, which is now +Y.
  assert.ok(Math.abs(max[1] - min[1] - 0.14) < 0.01, `height ${max[1] - min[1]}`);
  assert.ok(min[1] > -0.01);
});

void test('FBX is scaled from its UnitScaleFactor (centimetres) to metres and its up axis recorded', async () => {
  const cubes = await importSample('fbx/cubes_with_names.fbx');
  assert.equal(cubes.sourceUnit, 'cm');
  assert.equal(cubes.sourceUpAxis, '+Y');
  const { min, max } = getBounds(cubes.document.getRoot().listScenes()[0]);
  // Three cubes of 10 cm (unit cubes scaled ×10) spread over about 30 cm.
  assert.ok(max[2] - min[2] > 0.2 && max[2] - min[2] < 0.4, `depth ${max[2] - min[2]}`);
  const names = cubes.document
    .getRoot()
    .listNodes()
    .map((node) => node.getName());
  assert.ok(names.includes('Cube2') && names.includes('Куб1'), names.join(', '));
});

void test('unitless formats keep their numbers as metres and say the unit is unknown', async () => {
  for (const file of ['stl/cyl_w_rect_hole.stl', 'ply/Wuson.ply', 'obj/spot_triangulated.obj']) {
    const result = await importSample(file);
    assert.equal(result.sourceUnit, 'unknown', file);
    assert.equal(result.sourceUpAxis, 'unknown', file);
  }
  const { document } = await importSample('stl/cyl_w_rect_hole.stl');
  const { min, max } = getBounds(document.getRoot().listScenes()[0]);
  assert.deepEqual(
    [...min, ...max].map((value) => Math.round(value)),
    [-20, -20, 0, 20, 20, 40],
  );
  assert.equal(document.getRoot().listScenes()[0].listChildren()[0].getName(), 'cyl_w_rect_hole');
});

void test('zero normals written by the source are repaired to unit length with a warning', async () => {
  // The STL reader drops facet normals; assimp keeps them, blank ones included.
  const file = path.join(MODELS, 'stl/cyl_w_rect_hole.stl');
  const lines: string[] = [];
  const context = recordingContext();
  context.logger.warn = (text: string) => void lines.push(`warn: ${text}`);
  const result = {
    ...(await importAssimp.read({ file, dir: path.dirname(file), format: 'stl' }, context)),
    lines,
  };
  assert.ok(result.lines.some((line) => line.startsWith('warn') && line.includes('normals')));
  for (const mesh of result.document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const normals = primitive.getAttribute('NORMAL')!;
      const n: number[] = [];
      for (let i = 0; i < normals.getCount(); i++) {
        normals.getElement(i, n);
        assert.ok(Math.abs(Math.hypot(n[0], n[1], n[2]) - 1) < 1e-4);
      }
    }
  }
});
