import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { catalogApi, catalogError, pathOf, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';
import { twoPartGlb } from './tiny-model.ts';

const DELETED = JSON.stringify({ success: true, message: 'Model deleted successfully' });
const SHARED_GROUP = 'shared-1';

for (const dialect of testDialects()) {
  void describe(`deleting models (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let materials: ReturnType<typeof materialApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      materials = materialApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    const modelFolder = (id: string) => path.join(testApp.config.dataDir, 'files', 'models', id);
    const jobsOf = (id: string) =>
      testApp.database.db.selectFrom('jobs').select(['name', 'status']).where('subject', '=', id).execute();
    const partRows = (id: string) =>
      testApp.database.db.selectFrom('model_parts').select('group_id').where('model_id', '=', id).execute();
    /** The group ids among `groupIds` that have a material bound. */
    const boundGroups = async (groupIds: string[]) => {
      const answer = await materials.call('POST', '/groups/materials', { group_ids: groupIds });
      assert.equal(answer.status, 200, answer.text);
      return (answer.json.data as { group_id: string }[]).map((entry) => entry.group_id);
    };

    void it('deletes a pending model before any worker runs, with its upload, thumbnail and queued job', async () => {
      const model = await api.create('CesiumMilkTruck.glb', sample('glb/CesiumMilkTruck.glb'));
      const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: 'white' } })
        .png()
        .toBuffer();
      const thumbnail = await api.thumbnail(model.id, 't.png', png);
      assert.equal(thumbnail.status, 200);
      assert.deepEqual(await jobsOf(model.id), [{ name: 'convert-model', status: 'queued' }]);
      assert.equal(fs.readdirSync(modelFolder(model.id), { recursive: true }).length > 1, true);

      const response = await api.call('DELETE', `/${model.id}`);
      assert.equal(response.status, 200);
      assert.equal(response.text, DELETED);

      const read = await api.call('GET', `/${model.id}`);
      assert.equal(read.status, 404);
      assert.equal(read.text, catalogError('Model not found'));
      assert.deepEqual(await jobsOf(model.id), [], 'the queued conversion is gone');
      assert.equal(fs.existsSync(modelFolder(model.id)), false, 'every stored file is gone');
      assert.equal(
        (await testApp.app.inject({ method: 'GET', url: pathOf(thumbnail.json.thumbnail_url) })).statusCode,
        404,
      );
      assert.equal((await api.call('GET', '')).json.meta.total, 0);

      const again = await api.call('DELETE', `/${model.id}`);
      assert.equal(again.status, 404);
      assert.equal(again.text, catalogError('Model not found'));
    });

    void it('removes parts, files and the bindings of group ids no other model has', async () => {
      testApp.startJobRunner();
      const glb = await twoPartGlb(SHARED_GROUP);
      const createdA = await api.create('first.glb', glb);
      const createdB = await api.create('second.glb', glb);
      const a: ModelJson = await waitForStatus(testApp.app, createdA.id, ['completed', 'failed'], 120_000);
      const b: ModelJson = await waitForStatus(testApp.app, createdB.id, ['completed', 'failed'], 120_000);
      assert.equal(a.status, 'completed', a.error);
      assert.equal(b.status, 'completed', b.error);
      const groupsOf = async (id: string) =>
        ((await api.call('GET', `/${id}/parts`)).json.data as ModelJson[]).map((part) => part.group_id);
      assert.deepEqual(await groupsOf(a.id), [SHARED_GROUP, `${a.id}:1`]);
      assert.deepEqual(await groupsOf(b.id), [SHARED_GROUP, `${b.id}:1`]);

      const material = await materials.create({ name: 'steel' });
      const groups = [SHARED_GROUP, `${a.id}:1`, `${b.id}:1`, 'unrelated-group'];
      await materials.bind(material.id, groups);
      assert.deepEqual(await boundGroups(groups), groups);

      assert.equal((await api.call('DELETE', `/${a.id}`)).text, DELETED);
      assert.equal((await api.call('GET', `/${a.id}`)).status, 404);
      assert.equal((await api.call('GET', `/${a.id}/parts`)).text, catalogError('Model not found'));
      assert.deepEqual(await partRows(a.id), []);
      assert.equal(fs.existsSync(modelFolder(a.id)), false);
      assert.equal((await testApp.app.inject({ method: 'GET', url: pathOf(a.model_url) })).statusCode, 404);
      assert.deepEqual(
        await boundGroups(groups),
        [SHARED_GROUP, `${b.id}:1`, 'unrelated-group'],
        'the shared group keeps its binding while the second model has it',
      );
      const partsOfB = (await api.call('GET', `/${b.id}/parts`)).json.data as ModelJson[];
      assert.equal(partsOfB[0]!.material.id, material.id);
      assert.equal(fs.existsSync(modelFolder(b.id)), true, 'the other model keeps its files');

      assert.equal((await api.call('DELETE', `/${b.id}`)).text, DELETED);
      assert.deepEqual(await boundGroups(groups), ['unrelated-group'], 'bindings of no model remain');
      assert.deepEqual(await partRows(b.id), []);
      assert.equal(fs.existsSync(modelFolder(b.id)), false);
      assert.equal(
        (await materials.call('GET', `/materials/${material.id}`)).status,
        200,
        'the material stays',
      );
      assert.equal((await api.call('GET', '')).json.meta.total, 0);
    });

    void it('deletes a model while it converts, and the conversion leaves no file behind', async () => {
      const model = await api.create('CesiumMilkTruck.glb', sample('glb/CesiumMilkTruck.glb'));
      const seen = await waitForStatus(testApp.app, model.id, ['processing', 'completed', 'failed'], 120_000);
      assert.equal(seen.status, 'processing', 'a conversion takes seconds, so it is caught running');
      assert.equal((await api.call('DELETE', `/${model.id}`)).text, DELETED);
      // The running job finishes its attempt, finds the model gone and drops what it wrote.
      const deadline = Date.now() + 120_000;
      while ((await jobsOf(model.id)).length > 0) {
        assert.ok(Date.now() < deadline, 'the running job ends');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(fs.existsSync(modelFolder(model.id)), false);
      assert.equal((await api.call('GET', `/${model.id}`)).status, 404);
      assert.deepEqual(await partRows(model.id), []);
    });
  });
}
