import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { detectModelFormat } from '../../src/pipeline/detect-format.ts';
import { makeZip } from '../fixtures/make-zip.ts';
import { MODELS, tempDir } from './documents.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** Writes bytes to scratch under `name` and detects them with `originalName` (default: the same). */
async function detect(name: string, data: Uint8Array | string, originalName = name) {
  const file = path.join(scratch.dir, name);
  await writeFile(file, data);
  return detectModelFormat(file, originalName);
}

void test('recognises every sample model by extension and bytes', async () => {
  const samples: [string, string][] = [
    ['glb/CesiumMilkTruck.glb', 'glb'],
    ['gltf/BoxTextured/BoxTextured.gltf', 'gltf'],
    ['obj/spot_triangulated.obj', 'obj'],
    ['obj/spider/spider.obj', 'obj'],
    ['stl/sphereWithHole.stl', 'stl'],
    ['stl/cyl_w_rect_hole.stl', 'stl'],
    ['stl/counter.unitsmm.STL', 'stl'],
    ['ply/Wuson.ply', 'ply'],
    ['fbx/spider/spider.fbx', 'fbx'],
    ['fbx/cubes_with_names.fbx', 'fbx'],
    ['dae/duck/duck.dae', 'dae'],
    ['step/screw.step', 'step'],
    ['ifc/AC14-FZK-Haus.ifc', 'ifc'],
    ['ifc/IfcOpenHouse_IFC4.ifc', 'ifc'],
    ['ifc/beam-standard-case.ifc', 'ifc'],
  ];
  for (const [sample, format] of samples) {
    const file = path.join(MODELS, sample);
    assert.deepEqual(await detectModelFormat(file, path.basename(file)), { format, archive: false }, sample);
  }
});

void test('refuses files whose bytes contradict their extension', async () => {
  const png = await readFile(path.join(MODELS, 'gltf/BoxTextured/CesiumLogoFlat.png'));
  assert.equal(await detect('fake.glb', png), undefined);
  assert.equal(await detect('fake.stl', png), undefined);
  assert.equal(await detect('fake.obj', png), undefined);
  assert.equal(await detect('fake.gltf', '{"not":"gltf"}'), undefined);
  assert.equal(await detect('fake.fbx', 'hello'), undefined);
  assert.equal(await detect('fake.ifc', "ISO-10303-21;\nHEADER;\nFILE_SCHEMA(('AP214'));\n"), undefined);
  assert.equal(await detect('notes.txt', 'v 0 0 0\n'), undefined);
});

void test('judges by bytes when the name gives no extension, and STEP by its schema', async () => {
  const glb = await readFile(path.join(MODELS, 'glb/barrel.glb'));
  assert.deepEqual(await detect('upload', glb, 'blob'), { format: 'glb', archive: false });
  const ifc = "ISO-10303-21;\nHEADER;\nFILE_SCHEMA(('IFC4'));\nENDSEC;\n";
  assert.deepEqual(await detect('house.step', ifc), { format: 'ifc', archive: false });
  assert.deepEqual(
    await detect('part.stp', "ISO-10303-21;\nHEADER;\nFILE_SCHEMA(('CONFIG_CONTROL_DESIGN'));\n"),
    {
      format: 'stp',
      archive: false,
    },
  );
});

void test('recognises IGES records, 3DS chunks and binary STL sizes', async () => {
  const record = (text: string, section: string, n: number) =>
    `${text.padEnd(72)}${section}${String(n).padStart(7)}`;
  const iges = [
    record('IGES from a test', 'S', 1),
    record('1H,,1H;,4Hpart', 'G', 1),
    record('', 'T', 1),
  ].join('\n');
  assert.deepEqual(await detect('part.igs', iges), { format: 'igs', archive: false });
  assert.equal(await detect('short.iges', 'S      1\nG      1\n'), undefined);

  const tds = Buffer.alloc(64);
  tds.writeUInt16LE(0x4d4d, 0);
  tds.writeUInt32LE(64, 2);
  assert.deepEqual(await detect('box.3ds', tds), { format: '3ds', archive: false });
  tds.writeUInt32LE(1_000_000, 2);
  assert.equal(await detect('lying.3ds', tds), undefined);

  const stl = Buffer.alloc(84 + 2 * 50);
  stl.write('solid but binary', 0); // binary STL headers may start with "solid" too
  stl.writeUInt32LE(2, 80);
  assert.deepEqual(await detect('two.stl', stl), { format: 'stl', archive: false });
  assert.equal(await detect('cut.stl', stl.subarray(0, 120)), undefined);
});

void test("keeps an empty file's format so its conversion can say it is empty", async () => {
  assert.deepEqual(await detect('empty.glb', ''), { format: 'glb', archive: false });
  assert.equal(await detect('empty.bin', ''), undefined);
});

void test('picks the model inside a zip from its central directory, glTF first', async () => {
  const zip = makeZip([
    { name: '__MACOSX/._scene.gltf', data: 'junk' },
    { name: '.hidden/scene.glb', data: 'junk' },
    { name: 'house/extra/box.obj', data: 'v 0 0 0\n' },
    { name: 'house/scene.gltf', data: '{"asset":{"version":"2.0"}}' },
    { name: 'house/scene.bin', data: 'x' },
    { name: 'house/site.ifc', data: 'x' },
  ]);
  assert.deepEqual(await detect('upload.zip', zip), {
    format: 'gltf',
    archive: true,
    entry: 'house/scene.gltf',
  });
  // Any upload name: a zip is known by its magic bytes.
  assert.deepEqual(await detect('upload2', zip, 'model.bin'), {
    format: 'gltf',
    archive: true,
    entry: 'house/scene.gltf',
  });
});

void test('orders the formats inside a zip: ifc, step, iges, fbx, obj, dae, 3ds, ply, stl', async () => {
  const names = ['a.stl', 'b.ply', 'c.3ds', 'd.dae', 'e.obj', 'f.fbx', 'g.igs', 'h.step', 'i.ifc'];
  for (let kept = names.length; kept > 0; kept--) {
    const zip = makeZip(names.slice(0, kept).map((name) => ({ name, data: 'x' })));
    const detected = await detect(`order-${kept}.zip`, zip);
    assert.equal(detected?.entry, names[kept - 1]);
  }
  // Among equals, the shallowest wins.
  const zip = makeZip([
    { name: 'deep/down/m.obj', data: 'x' },
    { name: 'top/m.obj', data: 'x' },
  ]);
  assert.equal((await detect('depth.zip', zip))?.entry, 'top/m.obj');
});

void test('a zip without a model, or a broken zip, is unsupported', async () => {
  assert.equal(await detect('docs.zip', makeZip([{ name: 'readme.txt', data: 'hello' }])), undefined);
  assert.equal(await detect('broken.zip', Buffer.from('PK\x03\x04 and nothing else')), undefined);
});
