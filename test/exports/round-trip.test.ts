import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { srgbToLinear } from '../../src/writers/bound-material.ts';
import { exportModel } from '../../src/writers/export-model.ts';
import { USDZ_ALIGNMENT, USDZ_ROOT_LAYER } from '../../src/writers/write-usdz.ts';
import { validationErrors } from '../pipeline/documents.ts';
import {
  boundMaterial,
  convertedSample,
  loadWithThree,
  reimport,
  zipEntries,
  type PipelineRead,
} from './support.ts';

/** Samples of several importers: textured glTF with named nodes, STEP with coloured parts, OBJ, STL. */
const SAMPLES = [
  'glb/CesiumMilkTruck.glb',
  'step/red_cube_blue_cylinder.step',
  'obj/spider/spider.obj',
  'stl/cyl_w_rect_hole.stl',
];

const BOUND_RGB: [number, number, number] = [230, 40, 60];
const LINEAR = BOUND_RGB.map(srgbToLinear);
const SRGB = BOUND_RGB.map((channel) => channel / 255);

function assertClose(
  actual: readonly number[],
  expected: readonly number[],
  what: string,
  tolerance = 1e-3,
): void {
  expected.forEach((value, i) =>
    assert.ok(
      Math.abs(actual[i] - value) < tolerance,
      `${what}: ${actual.join(', ')} ≈ ${expected.join(', ')}`,
    ),
  );
}

/** The base colour of the last part, which the tests bind: the first primitive's material. */
function lastPartColour(read: PipelineRead): number[] {
  const nodes = read.document
    .getRoot()
    .listNodes()
    .filter((node) => node.getMesh());
  const node = nodes.find((candidate) => candidate.getExtras().group_id === read.parts.at(-1)!.group_id)!;
  return node.getMesh()!.listPrimitives()[0].getMaterial()!.getBaseColorFactor();
}

for (const sample of SAMPLES) {
  void describe(`export round trip: ${sample}`, () => {
    let converted: PipelineRead & { glb: Uint8Array };
    let bound: [string, ReturnType<typeof boundMaterial>][];
    before(async () => {
      converted = await convertedSample(sample);
      // The last part gets the binding, so "the first material found" cannot pass by accident.
      bound = [[converted.parts.at(-1)!.group_id, boundMaterial(7, BOUND_RGB)]];
    });
    const run = (format: Parameters<typeof exportModel>[1]['format']) =>
      exportModel(converted.glb, { format, bound, title: sample, unit: 'millimeter' });

    void it('GLB: validator-clean, same parts (names, group ids) and triangles, bound colour on the bound part', async () => {
      const glb = await run('glb');
      assert.deepEqual(await validationErrors(glb), []);
      const back = await reimport(glb, 'glb');
      assert.equal(back.triangles, converted.triangles);
      assert.deepEqual(
        back.parts.map((part) => [part.name, part.group_id]),
        converted.parts.map((part) => [part.name, part.group_id]),
      );
      assertClose(lastPartColour(back), LINEAR, 'GLB base colour');
    });

    void it('OBJ + MTL: same parts and triangles, bound colour (Kd, sRGB) on the bound part', async () => {
      const back = await reimport(await run('obj'), 'obj');
      assert.equal(back.triangles, converted.triangles);
      assert.equal(back.parts.length, converted.parts.length);
      // Kd holds sRGB both ways: the importer makes it linear again.
      assertClose(lastPartColour(back), LINEAR, 'OBJ Kd', 1e-4);
    });

    void it('3MF: same parts and triangles, bound colour (displaycolor, sRGB) on the bound part', async () => {
      const back = await reimport(await run('3mf'), '3mf');
      assert.equal(back.triangles, converted.triangles);
      assert.equal(back.parts.length, converted.parts.length);
      assertClose(lastPartColour(back), SRGB, '3MF displaycolor', 1 / 255);
    });

    void it('STL: the same triangles (STL keeps no parts)', async () => {
      const back = await reimport(await run('stl'), 'stl');
      assert.equal(back.triangles, converted.triangles);
      assert.equal(back.parts.length, 1);
    });

    void it('USDZ: uncompressed, root layer first, 64-byte aligned; three.js loads the same parts, triangles and bound colour', async () => {
      const usdz = await run('usdz');
      const entries = await zipEntries(usdz);
      assert.equal(entries[0].name, USDZ_ROOT_LAYER);
      assert.match(
        entries[0].data.toString('utf8'),
        /^#usda 1\.0\n[\s\S]*metersPerUnit = 1\n\s*upAxis = "Y"/,
      );
      for (const entry of entries) {
        assert.equal(entry.compressionMethod, 0, `${entry.name} is stored`);
        assert.equal(entry.dataOffset % USDZ_ALIGNMENT, 0, `${entry.name} starts on a 64-byte boundary`);
      }
      const textured = converted.document
        .getRoot()
        .listMaterials()
        .some((material) => material.getBaseColorTexture());
      assert.equal(entries.length > 1, textured, 'the textures travel inside the package');

      const loaded = await loadWithThree(usdz);
      assert.equal(loaded.triangles, converted.triangles);
      const parts = [...new Set(loaded.meshes.map((mesh) => mesh.part))];
      assert.equal(parts.length, converted.parts.length);
      const last = loaded.meshes.filter((mesh) => mesh.part === parts.at(-1));
      assertClose(last[0].colour, LINEAR, 'USDZ diffuseColor');
      if (textured)
        assert.ok(
          loaded.meshes.some((mesh) => mesh.textured),
          'a textured part keeps its map',
        );
    });
  });
}
