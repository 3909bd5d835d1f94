// A model of 100,000 parts stored through the code a finished conversion runs (and a second version of it through
// the code a finished version runs), then read back through the routes: every bulk write and bulk read of parts at
// the size the house promises, on each database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createModelRepository } from '../../src/catalog/repository.ts';
import { createVersionRepository } from '../../src/catalog/versions/repository.ts';
import { BOUND_PARAMETER_LIMIT } from '../../src/db/bound-parameters.ts';
import { PROPERTY_LIMITS } from '../../src/pipeline/part-properties.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import {
  createConvertingModel,
  generatedGroupId,
  generatedPart,
  generatedPropertyRows,
  generatedRecord,
} from '../helpers/generated-parts.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const PARTS = 100_000;
const MIDDLE = PARTS / 2;
const LAST = PARTS - 1;
const MODEL_ID = '0f0f0f0f-0000-4000-8000-000000100000';
/** Columns of a `model_part_properties` row. */
const PROPERTY_COLUMNS = 7;
/** Every 10th part is painted. */
const PAINTED = Array.from({ length: PARTS / 10 }, (_, n) => generatedGroupId(n * 10));
/** The second version renames every 1,000th part. */
const renamedInV2 = (index: number) => index % 1_000 === 7;

for (const dialect of testDialects()) {
  void describe(`a model of 100,000 parts (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let materials: ReturnType<typeof materialApi>;
    let materialId: number;
    const groupIds = Array.from({ length: PARTS }, (_, index) => generatedGroupId(index));

    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      materials = materialApi(testApp.app, testApp.auth);
      await createConvertingModel(testApp.database, MODEL_ID);
      const parts = Array.from({ length: PARTS }, (_, index) => generatedPart(index, PARTS));
      const stored = await createModelRepository(testApp.database).complete(MODEL_ID, generatedRecord(parts));
      assert.equal(stored, true);
      materialId = (await materials.create({ name: 'painted', diffuse_r: 200 })).id;
      await materials.bind(materialId, PAINTED);
    });
    after(() => testApp?.close());

    const partsOf = async (query = '') => {
      const answer = await api.call('GET', `/${MODEL_ID}/parts${query}`);
      assert.equal(answer.status, 200, answer.text.slice(0, 500));
      return answer.json.data as { group_id: string; name: string; material?: { id: number } | null }[];
    };

    void it('stores more property rows than one statement could carry on either engine, all of them', async () => {
      const rows = generatedPropertyRows(PARTS);
      assert.ok(rows <= PROPERTY_LIMITS.perModel, 'within the per-model cap, as a conversion leaves them');
      assert.ok(rows * PROPERTY_COLUMNS > BOUND_PARAMETER_LIMIT.postgres * 20);
      const { db } = testApp.database;
      const count = async (table: 'model_parts' | 'model_part_properties' | 'model_version_parts') =>
        Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .where('model_id', '=', MODEL_ID)
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.equal(await count('model_parts'), PARTS);
      assert.equal(await count('model_part_properties'), rows);
      assert.equal(await count('model_version_parts'), PARTS);
      const model = await api.call('GET', `/${MODEL_ID}`);
      assert.equal(model.json.data.status, 'completed');
      assert.equal(model.json.data.part_count, PARTS);
    });

    void it('lists every part in scene order with its material', async () => {
      const parts = await partsOf();
      assert.equal(parts.length, PARTS);
      assert.deepEqual(
        [parts[0]!.group_id, parts[MIDDLE]!.group_id, parts[LAST]!.group_id],
        [generatedGroupId(0), generatedGroupId(MIDDLE), generatedGroupId(LAST)],
      );
      assert.equal(parts[MIDDLE]!.name, `Wall ${MIDDLE}`);
      assert.equal(parts[0]!.material?.id, materialId);
      assert.equal(parts[MIDDLE]!.material?.id, materialId);
      assert.equal(parts[LAST]!.material ?? null, null);
      assert.equal(parts.filter((part) => part.material?.id === materialId).length, PAINTED.length);
    });

    void it('filters by property and searches over all the property rows', async () => {
      const walls = await partsOf('?where=Element.Class=IfcWall');
      assert.equal(walls.length, PARTS / 4);
      assert.equal(walls[0]!.group_id, generatedGroupId(0));
      assert.equal(walls.at(-1)!.group_id, generatedGroupId(PARTS - 4));
      const full = await partsOf('?where=Pset_Full.P497=v497');
      assert.deepEqual(
        full.map((part) => part.group_id),
        [generatedGroupId(0), generatedGroupId(MIDDLE), generatedGroupId(LAST)],
      );
      const one = await partsOf(`?where=Element.Index=${LAST}`);
      assert.deepEqual(
        one.map((part) => part.name),
        [`Slab ${LAST}`],
      );
      const searched = await partsOf(`?q=slab%2099999`);
      assert.deepEqual(
        searched.map((part) => part.group_id),
        [generatedGroupId(LAST)],
      );
    });

    void it('reads the last part with its properties at the per-part cap', async () => {
      const answer = await api.call('GET', `/${MODEL_ID}/parts/${generatedGroupId(LAST)}`);
      assert.equal(answer.status, 200, answer.text.slice(0, 500));
      const { properties } = answer.json.data;
      assert.deepEqual(properties.Element, { Class: 'IfcSlab', Index: LAST });
      assert.equal(Object.keys(properties.Pset_Full).length, PROPERTY_LIMITS.perPart - 2);
      assert.equal(properties.Pset_Full.P497, 'v497');
    });

    void it('answers the bulk material lookup over all 100,000 group ids, in request order', async () => {
      const answer = await materials.call('POST', '/groups/materials', { group_ids: groupIds });
      assert.equal(answer.status, 200, answer.text.slice(0, 500));
      const entries = answer.json.data as { group_id: string; material: { id: number } }[];
      assert.equal(entries.length, PAINTED.length);
      assert.deepEqual(
        entries.map((entry) => entry.group_id),
        PAINTED,
      );
      assert.ok(entries.every((entry) => entry.material.id === materialId));
      const everyGroup = await materials.call('POST', '/groups/materials', {
        group_ids: groupIds,
        include_default: true,
      });
      const all = everyGroup.json.data as { group_id: string; material: { id: number } }[];
      assert.equal(all.length, PARTS);
      assert.equal(all[LAST]!.group_id, generatedGroupId(LAST));
      assert.equal(all[LAST]!.material.id, -1);
      const tooMany = await materials.call('POST', '/groups/materials', {
        group_ids: [...groupIds, 'one-more'],
      });
      assert.equal(tooMany.status, 400);
    });

    void it('makes a second version of 100,000 parts current, with its diff and its property rows', async () => {
      const versions = createVersionRepository(testApp.database.db);
      const created = await versions.create(
        MODEL_ID,
        {
          original_filename: 'big.ifc',
          format: 'ifc',
          file_size: 1,
          source_entry: null,
          unit: null,
          up_axis: null,
        },
        (number) => `models/${MODEL_ID}/v${number}/source/big.ifc`,
        null,
      );
      assert.equal(created?.number, 2);
      const parts = Array.from({ length: PARTS }, (_, index) =>
        generatedPart(index, PARTS, renamedInV2(index)),
      );
      const done = await versions.complete(MODEL_ID, 2, generatedRecord(parts), null);
      assert.deepEqual(done?.diff_counts, { added: 0, removed: 0, changed: 100, unchanged: PARTS - 100 });

      const diff = await api.call('GET', `/${MODEL_ID}/versions/1/diff/2`);
      assert.equal(diff.status, 200, diff.text.slice(0, 500));
      assert.equal(diff.json.data.changed.length, 100);
      assert.deepEqual(diff.json.data.changed[0], {
        group_id: generatedGroupId(7),
        name: 'Renamed 7',
        what: ['name'],
      });

      const listed = await partsOf();
      assert.equal(listed.length, PARTS);
      assert.equal(listed[7]!.name, 'Renamed 7');
      assert.equal(listed[LAST]!.name, `Slab ${LAST}`);
      assert.equal(listed.filter((part) => part.material?.id === materialId).length, PAINTED.length);
      const renamed = await partsOf('?q=renamed');
      assert.equal(renamed.length, 100);
      const full = await partsOf('?where=Pset_Full.P0=0');
      assert.equal(full.length, 3);
    });
  });
}
