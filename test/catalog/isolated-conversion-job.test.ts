import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { capturingLogger } from '../helpers/capturing-logger.ts';
import { catalogApi, pathOf, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

for (const dialect of testDialects()) {
  void describe(`a conversion in a process of its own, through the job (${dialect})`, () => {
    const capture = capturingLogger();
    let testApp: TestApp;
    before(async () => {
      // Every input is over 0 MB: the truck converts in its own process.
      testApp = await createTestApp(
        dialect,
        { CONVERSION_PROCESS_ABOVE_MB: '0' },
        { logger: capture.logger },
      );
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    void it('completes the model with its LODs, parts and thumbnail, and logs the process peak', async () => {
      const api = catalogApi(testApp.app, testApp.auth);
      const truck = await api.create('CesiumMilkTruck.glb', sample('glb/CesiumMilkTruck.glb'));
      const done = await waitForStatus(testApp.app, truck.id, ['completed', 'failed']);
      assert.equal(done.status, 'completed', done.error);
      // Three levels of their own, as a conversion in a thread makes them (the served ladder's tests check why).
      assert.deepEqual(
        done.lods.map((lod: { triangle_count: number; reduced: boolean | null }) => [
          lod.triangle_count,
          lod.reduced,
        ]),
        [
          [3624, false],
          [2172, true],
          [1736, true],
        ],
      );
      assert.equal(done.part_count, 3);
      const thumbnail = await testApp.app.inject({ method: 'GET', url: pathOf(done.thumbnail_url) });
      assert.equal(thumbnail.statusCode, 200);
      assert.equal(thumbnail.rawPayload.toString('latin1', 1, 4), 'PNG');
      for (const lod of done.lods as { url: string; size: number }[]) {
        const file = await testApp.app.inject({ method: 'GET', url: pathOf(lod.url) });
        assert.equal(file.rawPayload.byteLength, lod.size);
        assert.equal(file.rawPayload.toString('latin1', 0, 4), 'glTF');
      }
      const converted = capture.lines.find(
        (line) => line.model_id === truck.id && line.msg === 'model converted',
      );
      assert.ok(
        typeof converted?.process_peak_rss_mb === 'number' && converted.process_peak_rss_mb > 0,
        `the completion line gives the process's peak: ${JSON.stringify(converted)}`,
      );
    });
  });
}
