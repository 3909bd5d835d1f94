import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { tooManyFiles } from '../../src/uploads/receive-file.ts';
import { NO_MODEL_FILE } from '../../src/catalog/intake/upload-bundle.ts';
import { MAX_UPLOAD_FILES } from '../../src/catalog/intake/upload-limits.ts';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { listArchive } from '../../src/pipeline/archive/read-archive.ts';
import { makeZip } from '../fixtures/make-zip.ts';
import { catalogApi, catalogError, pathOf, sample } from '../helpers/catalog-api.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const CONVERSION_TIMEOUT_MS = 180_000;
const HINT =
  'Send the model and its files in one request (one "file" field each; in the viewer, choose or drop them ' +
  'together, or their folder), or upload them in one zip';

/** Every file of a sample folder by name, e.g. `folder('obj/spider')`. */
function folder(relative: string): Record<string, Buffer> {
  const dir = path.join(SAMPLE_MODELS, relative);
  return Object.fromEntries(fs.readdirSync(dir).map((name) => [name, fs.readFileSync(path.join(dir, name))]));
}

/** The files under a folder, anywhere below it. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

for (const dialect of testDialects()) {
  void describe(`upload of a model with its resources as several files (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect, { MAX_UPLOAD_BYTES: String(2 * 1024 * 1024) });
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    /** The LOD 0 GLB of a converted model, read back. */
    const lod0 = async (modelUrl: string) => {
      const served = await testApp.app.inject({ method: 'GET', url: pathOf(modelUrl) });
      assert.equal(served.statusCode, 200);
      return (await createNodeIO()).readBinary(new Uint8Array(served.rawPayload));
    };

    /** Asserts stored files belong to models only and no temporary file is left; returns how many models. */
    const assertNothingLeft = async (): Promise<number> => {
      const list = await api.call('GET', '?limit=100');
      const ids: string[] = list.json.data.map((model: { id: string }) => model.id);
      const modelsDir = path.join(testApp.config.dataDir, 'files', 'models');
      const stored = fs.existsSync(modelsDir) ? fs.readdirSync(modelsDir) : [];
      assert.deepEqual(stored.sort(), [...ids].sort(), 'a folder of files for each model, no other');
      assert.deepEqual(filesUnder(path.join(testApp.config.dataDir, 'tmp', 'uploads')), []);
      return ids.length;
    };

    void it('converts a .gltf sent with its .bin and PNG in one request, the texture in LOD 0', async () => {
      const files = folder('gltf/BoxTextured');
      const created = await api.uploadFiles(files, { name: 'Box' });
      assert.equal(created.status, 201, created.text);
      const model = created.json.data;
      assert.equal(model.format, 'gltf');
      assert.equal(model.original_filename, 'BoxTextured.gltf');
      assert.equal(model.name, 'Box');

      // The upload is kept as one zip of the files, the model file first.
      const original = await testApp.app.inject({ method: 'GET', url: pathOf(model.original_url) });
      assert.equal(original.statusCode, 200);
      assert.match(new URL(model.original_url).pathname, /\/source\/BoxTextured\.zip$/);
      assert.equal(model.file_size, original.rawPayload.length);
      const zipPath = path.join(testApp.config.dataDir, 'check.zip');
      fs.writeFileSync(zipPath, original.rawPayload);
      const entries = (await listArchive(zipPath)).map((entry) => entry.name);
      assert.deepEqual(entries, ['BoxTextured.gltf', 'BoxTextured0.bin', 'CesiumLogoFlat.png']);

      const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      assert.equal(done.status, 'completed', done.error);
      const document = await lod0(done.model_url);
      const textures = document.getRoot().listTextures();
      assert.equal(textures.length, 1);
      // Served levels carry their textures as WebP (LOD_TEXTURES=webp by default).
      assert.equal(textures[0].getMimeType(), 'image/webp');
      const { width } = await sharp(textures[0].getImage()!).metadata();
      assert.equal(width, 256, 'the 256² PNG is in the GLB at its size');
      const material = document.getRoot().listMaterials()[0];
      assert.ok(material.getBaseColorTexture(), 'the material samples it');
    });

    void it('converts an .obj sent with its .mtl and JPEG textures, each texture in LOD 0', async () => {
      const files = folder('obj/spider');
      // Folders are kept: the files of a chosen folder arrive under its name.
      const inFolder = Object.fromEntries(
        Object.entries(files).map(([name, data]) => [`spider/${name}`, data]),
      );
      const created = await api.uploadFiles(inFolder);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.data.format, 'obj');
      assert.equal(created.json.data.original_filename, 'spider.obj');
      assert.equal(created.json.data.name, 'spider');
      const done = await waitForStatus(
        testApp.app,
        created.json.data.id,
        ['completed', 'failed'],
        CONVERSION_TIMEOUT_MS,
      );
      assert.equal(done.status, 'completed', done.error);
      const textures = (await lod0(done.model_url)).getRoot().listTextures();
      // spider.mtl names five maps; the faces use four of its materials (Brusttex, with wal69ar_small, none).
      assert.equal(textures.length, 4, textures.map((texture) => texture.getName()).join(', '));
      // A JPEG that WebP would not make smaller is served as it came.
      for (const texture of textures) assert.match(texture.getMimeType(), /^image\/(jpeg|webp)$/);
    });

    void it('refuses a lone .gltf whose .bin and PNG are missing, naming them, and stores nothing', async () => {
      const before = await assertNothingLeft();
      const alone = await api.upload('BoxTextured.gltf', sample('gltf/BoxTextured/BoxTextured.gltf'));
      assert.equal(alone.status, 400);
      assert.equal(
        alone.text,
        catalogError(
          `BoxTextured.gltf refers to files that were not uploaded with it: "BoxTextured0.bin", "CesiumLogoFlat.png". ${HINT}`,
        ),
      );
      const { 'CesiumLogoFlat.png': _png, ...withoutPng } = folder('gltf/BoxTextured');
      const partial = await api.uploadFiles(withoutPng);
      assert.equal(partial.status, 400);
      assert.equal(
        partial.text,
        catalogError(
          `BoxTextured.gltf refers to a file that was not uploaded with it: "CesiumLogoFlat.png". ${HINT}`,
        ),
      );
      // A texture in another folder than the one the .gltf names is not found either.
      const files = folder('gltf/BoxTextured');
      const misplaced = await api.uploadFiles({
        'box/BoxTextured.gltf': files['BoxTextured.gltf'],
        'box/BoxTextured0.bin': files['BoxTextured0.bin'],
        'box/textures/CesiumLogoFlat.png': files['CesiumLogoFlat.png'],
      });
      assert.equal(misplaced.status, 400);
      assert.match(misplaced.json.error, /not uploaded with it: "CesiumLogoFlat\.png"/);
      assert.equal(await assertNothingLeft(), before);
    });

    void it('refuses a lone .obj without its .mtl, and one with its .mtl but not its textures', async () => {
      const before = await assertNothingLeft();
      const files = folder('obj/spider');
      const alone = await api.upload('spider.obj', files['spider.obj']);
      assert.equal(alone.status, 400);
      assert.equal(
        alone.text,
        catalogError(`spider.obj refers to a file that was not uploaded with it: "spider.mtl". ${HINT}`),
      );
      const withLibrary = await api.uploadFiles({
        'spider.obj': files['spider.obj'],
        'spider.mtl': files['spider.mtl'],
        'SpiderTex.jpg': files['SpiderTex.jpg'],
      });
      assert.equal(withLibrary.status, 400);
      assert.equal(
        withLibrary.json.error,
        'spider.obj refers to files that were not uploaded with it: ".\\wal67ar_small.jpg", ' +
          `".\\wal69ar_small.jpg", ".\\drkwood2.jpg", ".\\engineflare1.jpg". ${HINT}`,
      );
      assert.equal(await assertNothingLeft(), before);
    });

    void it('still converts a zip that lacks a .gltf resource, failing with the same hint', async () => {
      const zip = makeZip([{ name: 'BoxTextured.gltf', data: sample('gltf/BoxTextured/BoxTextured.gltf') }]);
      const created = await api.upload('box.zip', zip);
      assert.equal(created.status, 201, created.text);
      const done = await waitForStatus(
        testApp.app,
        created.json.data.id,
        ['completed', 'failed'],
        CONVERSION_TIMEOUT_MS,
      );
      assert.equal(done.status, 'failed');
      assert.equal(
        done.error,
        `Invalid glTF: BoxTextured.gltf refers to files that were not uploaded with it: "BoxTextured0.bin", "CesiumLogoFlat.png". ${HINT}`,
      );
    });

    void it('refuses several model files, none, a zip with others and twice the same name: 400 with why', async () => {
      const before = await assertNothingLeft();
      const obj = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
      const cases: [Record<string, string | Buffer>, string][] = [
        [
          { 'a.obj': obj, 'b/c.stl': sample('stl/cyl_w_rect_hole.stl'), 'tex.png': 'x' },
          'Several model files in one upload: "a.obj", "b/c.stl"; send one model with its resources per upload',
        ],
        [{ 'tex.png': 'x', 'notes.txt': 'y' }, NO_MODEL_FILE],
        [
          { 'box.zip': makeZip([{ name: 'a.obj', data: obj }]), 'tex.png': 'x' },
          'A zip is uploaded on its own: send "box.zip" without other files, or send the files unzipped',
        ],
        [
          { 'a.obj': obj, './tex.png': 'x', 'tex.png': 'y' },
          'Two files are named "tex.png"; each file of an upload needs its own name',
        ],
        [{ 'a.obj': 'not an obj at all', 'tex.png': 'x' }, 'Unsupported model format'],
      ];
      for (const [files, error] of cases) {
        const answer = await api.uploadFiles(files);
        assert.equal(answer.status, 400, Object.keys(files).join(', '));
        assert.equal(answer.text, catalogError(error));
      }
      // Hidden files (a folder's .DS_Store) and macOS's __MACOSX copies are resources, never the model.
      const hidden = await api.uploadFiles({ 'a.obj': obj, '.hidden.obj': obj, '__MACOSX/a.obj': obj });
      assert.equal(hidden.status, 201, hidden.text);
      assert.equal(hidden.json.data.original_filename, 'a.obj');
      assert.equal(await assertNothingLeft(), before + 1);
    });

    void it('refuses more files than allowed and files too large together: 413, nothing kept', async () => {
      const before = await assertNothingLeft();
      const many: Record<string, string> = { 'a.obj': 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' };
      for (let index = 0; index < MAX_UPLOAD_FILES; index++) many[`t${index}.png`] = 'x';
      const tooMany = await api.uploadFiles(many);
      assert.equal(tooMany.status, 413);
      assert.equal(tooMany.text, catalogError(tooManyFiles(MAX_UPLOAD_FILES)));

      // Each file is within MAX_UPLOAD_BYTES (2 MiB here); together they are not.
      const half = Buffer.alloc(1.5 * 1024 * 1024, 0x20);
      const tooLarge = await api.uploadFiles({ 'a.obj': 'v 0 0 0\n', 'a.bin': half, 'b.bin': half });
      assert.equal(tooLarge.status, 413);
      assert.equal(tooLarge.text, catalogError('File too large'));
      assert.equal(await assertNothingLeft(), before);
    });
  });
}
