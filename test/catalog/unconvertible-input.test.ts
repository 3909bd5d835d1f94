// Input that cannot convert fails once, at once, with a message; names with control characters convert on
// every database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import {
  controlCharacterNamesGlb,
  deepTreeGlb,
  hugeAccessorGlb,
  overstatedBufferGlb,
  viewPastBufferGlb,
} from '../fixtures/hostile-gltf.ts';

for (const dialect of testDialects()) {
  void describe(`input that cannot convert (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    /** The model's job runs: how many attempts it took and how it ended. */
    async function jobsOf(id: string) {
      return testApp.database.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('subject', '=', id)
        .execute();
    }

    const cases: [name: string, file: () => Buffer, error: RegExp][] = [
      [
        'an accessor of 2^30 elements over 36 bytes',
        hugeAccessorGlb,
        /accessor 0 declares 1073741824 VEC3 elements \(\d+ bytes\), but its buffer view holds 36 bytes/,
      ],
      ['a 10,000-deep node tree', () => deepTreeGlb(10_000), /too deeply nested or too large to convert/],
      [
        'a buffer declaring 1 MiB over a binary chunk of 36 bytes',
        overstatedBufferGlb,
        /^Invalid GLB: buffer 0 declares 1048576 bytes, but the file holds 36$/,
      ],
      [
        'a buffer view reaching past its buffer',
        viewPastBufferGlb,
        /^Invalid GLB: buffer view 0 ends at byte 60, past its buffer of 36 bytes$/,
      ],
    ];
    for (const [name, file, error] of cases) {
      void it(`fails ${name} after one attempt, with a message`, async () => {
        const started = Date.now();
        const model = await api.create('hostile.glb', file());
        const failed = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 60_000);
        assert.equal(failed.status, 'failed');
        assert.match(failed.error, error);
        assert.deepEqual(await jobsOf(model.id), [{ status: 'failed', attempts: 1 }], 'no retry');
        // Three attempts would wait out the 5 s and 20 s back-offs.
        assert.ok(Date.now() - started < 25_000, `failed after ${Date.now() - started} ms`);
      });
    }

    void it('converts parts whose names hold NUL and other control characters, dropping them', async () => {
      const model = await api.create('names.glb', controlCharacterNamesGlb());
      const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 60_000);
      assert.equal(done.status, 'completed', done.error);
      const parts = await api.call('GET', `/${model.id}/parts`);
      assert.equal(parts.status, 200, parts.text);
      assert.deepEqual(
        parts.json.data.map((part: { name: string; path: string }) => [part.name, part.path]),
        [
          ['wheelleft', 'assembly A'],
          ['bell', 'assembly A'],
        ],
      );
    });
  });
}
