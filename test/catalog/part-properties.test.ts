import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi, catalogError, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { IFC_WALLS, IFC_WALLS_STOREY, ifcWallsFixture } from '../fixtures/ifc-walls.ts';

const CONVERSION_TIMEOUT_MS = 60_000;

for (const dialect of testDialects()) {
  void describe(`part properties and property filters (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let ifcId: string;
    let parts: { group_id: string; name: string }[];
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
      ifcId = (await api.create('walls.ifc', ifcWallsFixture())).id;
      const model = await waitForStatus(testApp.app, ifcId, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      assert.equal(model.status, 'completed', model.error);
      parts = (await api.call('GET', `/${ifcId}/parts`)).json.data;
    });
    after(() => testApp.close());

    const groupOf = (name: string) => parts.find((part) => part.name === name)!.group_id;
    const namesOf = (answer: { json: { data: { name: string }[] } }) =>
      answer.json.data.map((part) => part.name).sort();

    void it('keeps the list as it was: no properties on listed parts', async () => {
      assert.equal(parts.length, IFC_WALLS.length + 1);
      for (const part of parts) assert.equal('properties' in part, false);
    });

    void it('reads a wall with its property sets, quantities with units, type, storey and material', async () => {
      const answer = await api.call('GET', `/${ifcId}/parts/${encodeURIComponent(groupOf('North wall'))}`);
      assert.equal(answer.status, 200, answer.text);
      const { properties, name } = answer.json.data;
      assert.equal(name, 'North wall');
      assert.deepEqual(properties.Pset_WallCommon, {
        // The type's set comes first, the occurrence's own values join and win.
        Reference: 'WT-200',
        IsExternal: true,
        LoadBearing: true,
        FireRating: 'REI 90',
      });
      assert.deepEqual(properties.Qto_WallBaseQuantities, {
        Length: { value: 6, unit: 'm' },
        NetSideArea: { value: 18, unit: 'm²' },
        NetVolume: { value: 3.6, unit: 'm³' },
      });
      assert.equal(properties.Element.Class, 'IfcWall');
      assert.equal(properties.Element.Type, 'Concrete 200');
      assert.equal(properties.Element.Storey, IFC_WALLS_STOREY);
      assert.equal(properties.Element.Material, 'Concrete');
      assert.equal(properties.Element.Tag, 'W-1');
    });

    void it("names an unnamed storey by its elevation, in its parts' storey and in their path", async () => {
      const id = (await api.create('unnamed.ifc', ifcWallsFixture({ elevation: 3.5 }))).id;
      const model = await waitForStatus(testApp.app, id, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      assert.equal(model.status, 'completed', model.error);
      const listed: { group_id: string; name: string; path: string }[] = (
        await api.call('GET', `/${id}/parts`)
      ).json.data;
      assert.equal(listed.length, parts.length);
      for (const part of listed) assert.match(part.path, /(^|\/)Storey at \+3\.50 m(\/|$)/, part.path);
      const wall = listed.find((part) => part.name === 'North wall')!;
      const answer = await api.call('GET', `/${id}/parts/${encodeURIComponent(wall.group_id)}`);
      assert.equal(answer.json.data.properties.Element.Storey, 'Storey at +3.50 m');
      const filtered = await api.call(
        'GET',
        `/${id}/parts?where=${encodeURIComponent('Element.Storey="Storey at +3.50 m"')}`,
      );
      assert.equal(filtered.json.data.length, listed.length, filtered.text);
      await api.call('DELETE', `/${id}`);
    });

    void it('filters by typed property values, several conditions meaning AND', async () => {
      const external = await api.call('GET', `/${ifcId}/parts?where=Pset_WallCommon.IsExternal=true`);
      assert.equal(external.status, 200, external.text);
      const expected = IFC_WALLS.filter((wall) => wall.external === true).map((wall) => wall.name);
      assert.deepEqual(namesOf(external), [...expected].sort());
      // A string "true" is not the boolean true.
      const quoted = await api.call('GET', `/${ifcId}/parts?where=Pset_WallCommon.IsExternal="true"`);
      assert.deepEqual(quoted.json.data, []);
      const both = await api.call(
        'GET',
        `/${ifcId}/parts?where=Pset_WallCommon.IsExternal=true&where=Qto_WallBaseQuantities.Length=4.0`,
      );
      assert.deepEqual(namesOf(both), ['East wall']);
      const storey = await api.call(
        'GET',
        `/${ifcId}/parts?where=${encodeURIComponent(`Element.Storey=${IFC_WALLS_STOREY}`)}`,
      );
      assert.equal(storey.json.data.length, parts.length);
      const notExternal = await api.call('GET', `/${ifcId}/parts?where=Pset_WallCommon.IsExternal=false`);
      assert.deepEqual(namesOf(notExternal), ['Partition']);
    });

    void it('searches names and property values with q', async () => {
      assert.deepEqual(namesOf(await api.call('GET', `/${ifcId}/parts?q=PARTITION`)), ['Partition']);
      assert.deepEqual(namesOf(await api.call('GET', `/${ifcId}/parts?q=ei%2030`)), ['Partition']);
      assert.deepEqual(namesOf(await api.call('GET', `/${ifcId}/parts?q=100%25`)), []);
      assert.equal((await api.call('GET', `/${ifcId}/parts?q=concrete`)).json.data.length, IFC_WALLS.length);
    });

    void it('answers 400 with a clear message for a condition it cannot read, 404 for an unknown part', async () => {
      for (const bad of ['IsExternal=true', 'Pset_WallCommon.IsExternal', '.x=1', 'Pset.=1']) {
        const answer = await api.call('GET', `/${ifcId}/parts?where=${encodeURIComponent(bad)}`);
        assert.equal(answer.status, 400, bad);
        assert.match(answer.json.error, /^Invalid where condition .*expected Set\.Name=value/, bad);
      }
      const unknown = await api.call('GET', `/${ifcId}/parts/no-such-group`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.text, catalogError('Part not found'));
    });

    void it('reads the properties afresh on reprocess, with the same group ids and no rows twice', async () => {
      const reprocess = await api.call('POST', `/${ifcId}/reprocess`);
      assert.equal(reprocess.status, 200, reprocess.text);
      const model = await waitForStatus(testApp.app, ifcId, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      assert.equal(model.status, 'completed', model.error);
      const again = (await api.call('GET', `/${ifcId}/parts`)).json.data as { group_id: string }[];
      assert.deepEqual(
        again.map((part) => part.group_id),
        parts.map((part) => part.group_id),
      );
      const external = await api.call('GET', `/${ifcId}/parts?where=Pset_WallCommon.IsExternal=true`);
      assert.equal(external.json.data.length, IFC_WALLS.filter((wall) => wall.external === true).length);
      const rows = await testApp.database.db
        .selectFrom('model_part_properties')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('model_id', '=', ifcId)
        .where('set_name', '=', 'Pset_WallCommon')
        .where('property_name', '=', 'IsExternal')
        .executeTakeFirstOrThrow();
      assert.equal(Number(rows.count), IFC_WALLS.filter((wall) => wall.external !== undefined).length);
    });

    void it('names STEP parts after their products and gives each its product set', async () => {
      const id = (await api.create('red_cube_blue_cylinder.step', sample('step/red_cube_blue_cylinder.step')))
        .id;
      const model = await waitForStatus(testApp.app, id, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      assert.equal(model.status, 'completed', model.error);
      const stepParts = (await api.call('GET', `/${id}/parts`)).json.data as {
        group_id: string;
        name: string;
      }[];
      assert.deepEqual(stepParts.map((part) => part.name).sort(), ['blue_cylinder', 'red_cube']);
      const cube = stepParts.find((part) => part.name === 'red_cube')!;
      const read = await api.call('GET', `/${id}/parts/${encodeURIComponent(cube.group_id)}`);
      assert.deepEqual(read.json.data.properties, {
        Product: { Id: 'red_cube', Name: 'red_cube', Description: 'PART-red_cube-DESC' },
      });
    });
  });
}
