import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { srgbToLinear } from '../../src/exports/bound-material.ts';
import { exportModel } from '../../src/exports/export-model.ts';
import { validationErrors } from '../pipeline/documents.ts';
import { boundMaterial, convertedSample, reimport, type PipelineRead } from './support.ts';

/** Samples of several importers: textured glTF with named nodes, STEP with coloured parts, OBJ, STL. */
const SAMPLES = [
  'glb/CesiumMilkTruck.glb',
  'step/red_cube_blue_cylinder.step',
  'obj/spider/spider.obj',
  'stl/cyl_w_rect_hole.stl',
];

const BOUND_RGB: [number, number, number] = [230, 40, 60];

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
      exportModel(converted.glb, { format, bound, title: sample });

    void it('GLB: validator-clean, same parts (names, group ids) and triangles, the bound colour on the bound part', async () => {
      const glb = await run('glb');
      assert.deepEqual(await validationErrors(glb), []);
      const back = await reimport(glb, 'glb');
      assert.equal(back.triangles, converted.triangles);
      assert.deepEqual(
        back.parts.map((part) => [part.name, part.group_id]),
        converted.parts.map((part) => [part.name, part.group_id]),
      );
      const boundNode = back.document
        .getRoot()
        .listNodes()
        .find((node) => node.getExtras().group_id === bound[0][0])!;
      const colour = boundNode.getMesh()!.listPrimitives()[0].getMaterial()!.getBaseColorFactor();
      BOUND_RGB.forEach((channel, i) => assert.ok(Math.abs(colour[i] - srgbToLinear(channel)) < 1e-4));
    });

    void it('STL: the same triangles (STL keeps no parts)', async () => {
      const stl = await run('stl');
      const back = await reimport(stl, 'stl');
      assert.equal(back.triangles, converted.triangles);
      assert.equal(back.parts.length, 1);
    });
  });
}
