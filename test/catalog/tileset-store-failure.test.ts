// A tileset that cannot be stored whole: the files written before the failure are removed with it, so no partial
// folder stays under the model; but a reprocess that made the model's recorded tileset again (the same folder,
// byte for byte) and failed to store it leaves that folder whole, as it is still what the model serves. The same
// holds for a tileset stored whole when the job fails later (its thumbnail cannot be stored, say).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { PermanentJobError } from '../../src/jobs/job-types.ts';
import type { BlobStore } from '../../src/storage/blob-store.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { twoPartGlb } from './tiny-model.ts';

for (const dialect of testDialects()) {
  void describe(`a tileset that cannot be stored (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let realPutFile: BlobStore['putFile'];
    let realPutBytes: BlobStore['putBytes'];
    /** Every file under the model's tileset folders, relative to the model's folder. */
    const tilesetFiles = (id: string): string[] => {
      const folder = path.join(testApp.config.dataDir, 'files', 'models', id);
      if (!fs.existsSync(folder)) return [];
      return fs
        .readdirSync(folder, { recursive: true, withFileTypes: true })
        .flatMap((entry) =>
          entry.isFile() ? [path.relative(folder, path.join(entry.parentPath, entry.name))] : [],
        )
        .filter((file) => file.startsWith('tileset-'))
        .sort();
    };
    /** Stores tiles as usual and fails on the tileset's `tileset.json`, the last of its files to be stored. */
    const failOnTilesetJson = () => {
      let tilesStored = 0;
      testApp.blobs.putFile = async (key, localPath) => {
        if (/\/tileset-[0-9a-f]+\/tileset\.json$/.test(key))
          throw new PermanentJobError('the tileset cannot be stored');
        if (/\/tileset-[0-9a-f]+\//.test(key)) tilesStored++;
        return realPutFile(key, localPath);
      };
      return () => tilesStored;
    };

    before(async () => {
      testApp = await createTestApp(dialect, { TILES_ABOVE_TRIANGLES: '1' });
      api = catalogApi(testApp.app, testApp.auth);
      realPutFile = testApp.blobs.putFile.bind(testApp.blobs);
      realPutBytes = testApp.blobs.putBytes.bind(testApp.blobs);
      testApp.startJobRunner();
    });
    afterEach(() => {
      testApp.blobs.putFile = realPutFile;
      testApp.blobs.putBytes = realPutBytes;
    });
    after(() => testApp.close());

    void it('removes the tiles it wrote when the tileset cannot be stored whole', async () => {
      const tilesStored = failOnTilesetJson();
      const created = await api.create('parts.glb', await twoPartGlb('store-failure'));
      const done = await waitForStatus(testApp.app, created.id, ['completed', 'failed'], 60_000);
      assert.equal(done.status, 'failed');
      assert.match(done.error as string, /the tileset cannot be stored/);
      assert.ok(tilesStored() > 0, 'some tiles were stored before the failure');
      assert.deepEqual(tilesetFiles(created.id), []);
    });

    void it('keeps the recorded tileset whole when its reprocess cannot store it again', async () => {
      const created = await api.create('parts.glb', await twoPartGlb('store-failure-again'));
      const first = await waitForStatus(testApp.app, created.id, ['completed', 'failed'], 60_000);
      assert.equal(first.status, 'completed', first.error);
      const recorded = tilesetFiles(created.id);
      assert.ok(
        recorded.some((file) => file.endsWith('tileset.json')),
        recorded.join(', '),
      );

      const tilesStored = failOnTilesetJson();
      const reprocess = await api.call('POST', `/${created.id}/reprocess`);
      assert.equal(reprocess.status, 200, reprocess.text);
      const done = await waitForStatus(testApp.app, created.id, ['failed'], 60_000);
      assert.match(done.error as string, /the tileset cannot be stored/);
      assert.ok(tilesStored() > 0, 'the tiles were stored again before the failure');
      assert.deepEqual(tilesetFiles(created.id), recorded, 'the recorded folder is whole');
    });

    /** Stores files as usual and fails on the model's rendered thumbnail, stored after the tileset. */
    const failOnThumbnail = () => {
      testApp.blobs.putBytes = async (key, bytes) => {
        if (/\/thumbnail-[0-9a-f]+\.png$/.test(key))
          throw new PermanentJobError('the thumbnail cannot be stored');
        return realPutBytes(key, bytes);
      };
    };

    void it('removes a tileset stored whole when the job fails after it', async () => {
      failOnThumbnail();
      const created = await api.create('parts.glb', await twoPartGlb('fail-after-tileset'));
      const done = await waitForStatus(testApp.app, created.id, ['completed', 'failed'], 60_000);
      assert.equal(done.status, 'failed');
      assert.match(done.error as string, /the thumbnail cannot be stored/);
      assert.deepEqual(tilesetFiles(created.id), []);
    });

    void it('keeps the recorded tileset when its reprocess fails after storing it again', async () => {
      const created = await api.create('parts.glb', await twoPartGlb('fail-after-tileset-again'));
      const first = await waitForStatus(testApp.app, created.id, ['completed', 'failed'], 60_000);
      assert.equal(first.status, 'completed', first.error);
      const recorded = tilesetFiles(created.id);
      assert.ok(
        recorded.some((file) => file.endsWith('tileset.json')),
        recorded.join(', '),
      );

      failOnThumbnail();
      const reprocess = await api.call('POST', `/${created.id}/reprocess`);
      assert.equal(reprocess.status, 200, reprocess.text);
      const done = await waitForStatus(testApp.app, created.id, ['failed'], 60_000);
      assert.match(done.error as string, /the thumbnail cannot be stored/);
      assert.deepEqual(tilesetFiles(created.id), recorded, 'the recorded folder is whole');
    });
  });
}
