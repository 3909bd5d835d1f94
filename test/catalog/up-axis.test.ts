import assert from 'node:assert/strict';
import { getBounds } from '@gltf-transform/core';
import { after, before, describe, it } from 'node:test';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { catalogApi, pathOf, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';
import { zUpHouseObj } from '../fixtures/z-up-house.ts';

const CONVERSION_TIMEOUT_MS = 60_000;

/** The house of {@link zUpHouseObj} as COLLADA with `<up_axis>Z_UP</up_axis>` and centimetres: the file says how it stands. */
function zUpHouseCollada(): string {
  const corners = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((i) => [i & 1 ? 10 : 0, i & 2 ? 6 : 0, i & 4 ? 14 : 0]);
  const triangles = [
    [0, 2, 3, 0, 3, 1],
    [4, 5, 7, 4, 7, 6],
    [0, 1, 5, 0, 5, 4],
    [2, 6, 7, 2, 7, 3],
    [0, 4, 6, 0, 6, 2],
    [1, 3, 7, 1, 7, 5],
  ].flat();
  return `<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="centimeter" meter="0.01"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries>
    <geometry id="house-mesh" name="house">
      <mesh>
        <source id="house-positions">
          <float_array id="house-positions-array" count="24">${corners.join(' ')}</float_array>
          <technique_common>
            <accessor source="#house-positions-array" count="8" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="house-vertices"><input semantic="POSITION" source="#house-positions"/></vertices>
        <triangles count="12"><input semantic="VERTEX" source="#house-vertices" offset="0"/><p>${triangles.join(' ')}</p></triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene">
      <node id="house" name="house"><instance_geometry url="#house-mesh"/></node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
`;
}

/** Size along x, y, z of a bounds object. */
const sizeOf = (bounds: { min: number[]; max: number[] }) =>
  bounds.max.map((max, axis) => max - bounds.min[axis]);

/** Index of the largest of three sizes: 0 x, 1 y, 2 z. */
const tallestAxis = (size: number[]) => size.indexOf(Math.max(...size));

for (const dialect of testDialects()) {
  void describe(`up axis of files that state one and of files that do not (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    /** Bounds of the scene in the model's LOD 0 file as served, read back with glTF-Transform. */
    const lod0Size = async (model: ModelJson): Promise<number[]> => {
      const response = await testApp.app.inject({ method: 'GET', url: pathOf(model.lods[0].url) });
      assert.equal(response.statusCode, 200);
      const document = await (await createNodeIO()).readBinary(response.rawPayload);
      return sizeOf(getBounds(document.getRoot().listScenes()[0]));
    };

    const converted = async (id: string): Promise<ModelJson> => {
      const model = await waitForStatus(testApp.app, id, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      assert.equal(model.status, 'completed', model.error);
      return model;
    };

    void it('a Z-up OBJ lies on its side until its up axis is set to z; PATCH and reprocess stand it up', async () => {
      const created = await api.create('house.obj', zUpHouseObj());
      const lying = await converted(created.id);
      // Nothing is guessed for an OBJ: the file's Z stays Z, so the house lies with its height along z.
      assert.equal(lying.up, null);
      assert.equal(lying.source_up_axis, 'unknown');
      assert.equal(tallestAxis(await lod0Size(lying)), 2);

      const patched = await api.call('PATCH', `/${created.id}`, { up: 'z', unit: 'cm' });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.json.data.up, 'z');
      const reprocess = await api.call('POST', `/${created.id}/reprocess`);
      assert.equal(reprocess.status, 200, reprocess.text);
      const upright = await converted(created.id);
      assert.equal(upright.source_up_axis, '+Z');
      const size = await lod0Size(upright);
      assert.equal(tallestAxis(size), 1, `LOD 0 size ${size}`);
      assert.equal(tallestAxis(sizeOf(upright.bounds)), 1);
      // 14 cm tall, 10 cm wide, 6 cm deep.
      for (const [axis, expected] of [0.1, 0.14, 0.06].entries())
        assert.ok(Math.abs(size[axis] - expected) < 1e-6, `LOD 0 size ${size}`);
    });

    void it('a Z-up COLLADA stands upright by itself, and a declared up axis does not turn it again', async () => {
      const created = await api.create('house.dae', zUpHouseCollada(), { up: 'z' });
      const model = await converted(created.id);
      assert.equal(model.source_up_axis, '+Z');
      assert.equal(model.source_unit, 'cm');
      const size = await lod0Size(model);
      assert.equal(tallestAxis(size), 1, `LOD 0 size ${size}`);
      for (const [axis, expected] of [0.1, 0.14, 0.06].entries())
        assert.ok(Math.abs(size[axis] - expected) < 1e-6, `LOD 0 size ${size}`);
    });

    void it('a Z-up FBX stands upright by itself', async () => {
      // The sample's GlobalSettings rewritten to a Z-up, right-handed frame (Blender's: up Z, front -Y, coord X).
      const yUp = sample('fbx/cubes_with_names.fbx').toString('latin1');
      const zUp = yUp
        .replace('P: "UpAxis", "int", "Integer", "",1', 'P: "UpAxis", "int", "Integer", "",2')
        .replace('P: "FrontAxis", "int", "Integer", "",2', 'P: "FrontAxis", "int", "Integer", "",1')
        .replace('P: "FrontAxisSign", "int", "Integer", "",1', 'P: "FrontAxisSign", "int", "Integer", "",-1');
      assert.notEqual(zUp, yUp);
      const [asIs, turned] = await Promise.all(
        [yUp, zUp].map(async (text, index) =>
          converted((await api.create(`cubes-${index}.fbx`, Buffer.from(text, 'latin1'))).id),
        ),
      );
      assert.equal(asIs.source_up_axis, '+Y');
      assert.equal(turned.source_up_axis, '+Z');
      const [a, b] = [await lod0Size(asIs), await lod0Size(turned)];
      // The same cubes: what ran along the file's Z (its up) now runs along Y, and Y along Z.
      assert.ok(Math.abs(b[1] - a[2]) < 1e-4 && Math.abs(b[2] - a[1]) < 1e-4, `Y-up ${a}, Z-up ${b}`);
      assert.ok(Math.abs(b[0] - a[0]) < 1e-4, `Y-up ${a}, Z-up ${b}`);
    });
  });
}
