// BCF with a real IFC model: its parts keep their GlobalIds as group ids, so an annotation's topic names its part by
// IfcGuid, and the topic lands on the same part of another upload of the same file (GlobalIds come from the file).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { reviewApi, scopedToken } from './review-fixtures.ts';

const IFC = 'ifc/beam-standard-case.ifc';

for (const dialect of testDialects()) {
  void describe(`BCF of an IFC model (${dialect})`, () => {
    let testApp: TestApp;
    const ids: string[] = [];

    before(async () => {
      testApp = await createTestApp(dialect);
      testApp.startJobRunner();
      const catalog = catalogApi(testApp.app, testApp.auth);
      for (const name of ['first.ifc', 'second.ifc']) {
        const created = await catalog.create(name, sample(IFC));
        ids.push((await waitForStatus(testApp.app, created.id, ['completed'])).id);
      }
    });
    after(() => testApp.close());

    void it('exports a pinned part by its GlobalId and imports it onto the same part of another upload', async () => {
      const [first, second] = ids as [string, string];
      const call = reviewApi(testApp.app);
      const writer = await scopedToken(testApp, 'Structural check', 'write');
      const parts = (await catalogApi(testApp.app, testApp.auth).call('GET', `/${first}/parts`)).json
        .data as {
        group_id: string;
        bounds: { min: number[]; max: number[] };
      }[];
      const beam = parts[0]!;
      assert.match(beam.group_id, /^[0-9A-Za-z_$]{22}$/, 'IFC parts keep their GlobalId');
      assert.ok(sample(IFC).toString('latin1').includes(`'${beam.group_id}'`), 'the GlobalId is in the file');
      const top = [beam.bounds.min[0]!, beam.bounds.max[1]!, beam.bounds.min[2]!];
      const note = await call('POST', `/${first}/annotations`, writer, {
        group_id: beam.group_id,
        position: top,
        normal: [0, 1, 0],
        text: 'Beam notch too deep',
      });
      assert.equal(note.status, 201, note.text);

      const exported = await testApp.app.inject({
        method: 'GET',
        url: `/api/models/${first}/bcf`,
        headers: { 'x-api-token': writer },
      });
      assert.equal(exported.statusCode, 200);
      const imported = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${second}/bcf`,
        headers: { 'x-api-token': writer, 'content-type': 'application/zip' },
        payload: exported.rawPayload,
      });
      assert.equal(imported.statusCode, 200, imported.body);
      assert.deepEqual(imported.json().data, { imported: 1, views: 0, skipped: 0, skipped_topics: [] });
      const [copy] = (await call('GET', `/${second}/annotations`, writer)).json.data;
      assert.equal(copy.group_id, beam.group_id);
      assert.deepEqual(copy.position, top);
      assert.equal(copy.text, 'Beam notch too deep');
      assert.equal(copy.author, 'Structural check');
    });
  });
}
