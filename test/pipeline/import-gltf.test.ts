import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { importGltf } from '../../src/pipeline/import/gltf/import-gltf.ts';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import { ConversionError } from '../../src/pipeline/types.ts';
import type { ImportSource } from '../../src/pipeline/types.ts';
import { MODELS, recordingContext, tempDir } from './documents.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** Writes bytes to a scratch file and returns it as a source. */
async function source(name: string, data: Uint8Array | string): Promise<ImportSource> {
  const file = path.join(scratch.dir, name);
  await writeFile(file, data);
  return { file, dir: scratch.dir, format: name.endsWith('.glb') ? 'glb' : 'gltf' };
}

void test('the registry hands glb and gltf to importGltf', () => {
  assert.equal(importerFor('glb'), importGltf);
  assert.equal(importerFor('gltf'), importGltf);
});

void test('reads a GLB sample as metres, +Y up', async () => {
  const file = path.join(MODELS, 'glb/CesiumMilkTruck.glb');
  const result = await importGltf.read({ file, dir: path.dirname(file), format: 'glb' }, recordingContext());
  assert.equal(result.sourceUnit, 'm');
  assert.equal(result.sourceUpAxis, '+Y');
  assert.ok(result.document.getRoot().listMeshes().length >= 2);
});

void test('reads a .gltf with its .bin and image from its folder', async () => {
  const file = path.join(MODELS, 'gltf/BoxTextured/BoxTextured.gltf');
  const { document } = await importGltf.read(
    { file, dir: path.dirname(file), format: 'gltf' },
    recordingContext(),
  );
  const texture = document.getRoot().listTextures()[0];
  assert.equal(texture.getMimeType(), 'image/png');
  assert.ok(texture.getImage()!.byteLength > 1000);
  assert.equal(document.getRoot().listAccessors()[0].getArray()!.length > 0, true);
});

void test('refuses an empty file', async () => {
  await assert.rejects(importGltf.read(await source('empty.glb', ''), recordingContext()), {
    name: 'ConversionError',
    message: 'The file is empty',
  });
});

void test('refuses a truncated GLB with a clear message', async () => {
  const bytes = await readFile(path.join(MODELS, 'glb/barrel.glb'));
  const error = await importGltf
    .read(await source('cut.glb', bytes.subarray(0, 40_000)), recordingContext())
    .then(
      () => assert.fail('a truncated GLB was accepted'),
      (caught: unknown) => caught,
    );
  assert.ok(error instanceof ConversionError);
  assert.match(error.message, /^Invalid GLB: /);
});

void test('refuses a GLB that is not one', async () => {
  await assert.rejects(importGltf.read(await source('text.glb', 'hello, not a model'), recordingContext()), {
    name: 'ConversionError',
    message: 'Invalid GLB: the file does not start with the binary glTF header',
  });
});

void test('refuses a .gltf whose buffer is missing, naming it', async () => {
  const json = JSON.stringify({ asset: { version: '2.0' }, buffers: [{ uri: 'gone.bin', byteLength: 12 }] });
  await assert.rejects(importGltf.read(await source('lonely.gltf', json), recordingContext()), {
    name: 'ConversionError',
    message:
      'Invalid glTF: lonely.gltf refers to a file that was not uploaded with it: "gone.bin". Send the model and ' +
      'its files in one request (one "file" field each; in the viewer, choose or drop them together, or their ' +
      'folder), or upload them in one zip',
  });
});

void test('refuses required extensions it cannot decode, by name', async () => {
  const gltf = (extension: string) =>
    JSON.stringify({
      asset: { version: '2.0' },
      extensionsUsed: [extension],
      extensionsRequired: [extension],
    });
  await assert.rejects(
    importGltf.read(await source('draco.gltf', gltf('KHR_draco_mesh_compression')), recordingContext()),
    {
      name: 'ConversionError',
      message: 'Draco-compressed glTF (KHR_draco_mesh_compression) is not supported',
    },
  );
  await assert.rejects(
    importGltf.read(await source('vendor.gltf', gltf('VENDOR_magic')), recordingContext()),
    {
      name: 'ConversionError',
      message: 'Unsupported required glTF extension: VENDOR_magic',
    },
  );
});
