// A model deleted while its conversion runs, whose conversion then stores a level and fails: the level was
// written after the delete had cleared the model's files, and must not stay behind, whether the job is tried
// again (a storage error) or fails for good.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { PermanentJobError } from '../../src/jobs/job-types.ts';
import type { BlobStore } from '../../src/storage/blob-store.ts';
import { catalogApi, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const TRUCK = 'glb/CesiumMilkTruck.glb';

/** Every file left under a model's folder of the file store. */
function filesOf(testApp: TestApp, id: string): string[] {
  const folder = path.join(testApp.config.dataDir, 'files', 'models', id);
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .flatMap((entry) =>
      entry.isFile() ? [path.relative(folder, path.join(entry.parentPath, entry.name))] : [],
    );
}

/** Waits until `check` holds, reading every 100 ms for at most `ms`. */
async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

for (const dialect of testDialects()) {
  void describe(`a model deleted during its conversion (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let realPutFile: BlobStore['putFile'];
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      realPutFile = testApp.blobs.putFile.bind(testApp.blobs);
      testApp.startJobRunner();
    });
    afterEach(() => void (testApp.blobs.putFile = realPutFile));
    after(() => testApp.close());

    /**
     * Makes the job delete its model just before storing the first level (which is then written), and fail on
     * the second with `failure`.
     */
    const deleteThenFail = (id: string, failure: () => Error): Promise<void> =>
      new Promise((resolve) => {
        let levels = 0;
        testApp.blobs.putFile = async (key, localPath) => {
          if (!/\/lod\d-/.test(key)) return realPutFile(key, localPath);
          levels++;
          if (levels === 1) {
            const deleted = await api.call('DELETE', `/${id}`);
            assert.equal(deleted.status, 200, deleted.text);
            return realPutFile(key, localPath);
          }
          resolve();
          throw failure();
        };
      });

    void it('leaves no file once the job, failed on storage, is tried again', async () => {
      const model = await api.create('truck.glb', sample(TRUCK));
      await deleteThenFail(model.id as string, () =>
        Object.assign(new Error('write EIO'), { code: 'EIO', syscall: 'write' }),
      );
      const cleared = await eventually(() => filesOf(testApp, model.id as string).length === 0, 30_000);
      assert.ok(cleared, filesOf(testApp, model.id as string).join(', '));
    });

    void it('leaves no file once the job has failed for good', async () => {
      const model = await api.create('truck.glb', sample(TRUCK));
      await deleteThenFail(model.id as string, () => new PermanentJobError('the level cannot be stored'));
      const cleared = await eventually(() => filesOf(testApp, model.id as string).length === 0, 30_000);
      assert.ok(cleared, filesOf(testApp, model.id as string).join(', '));
    });
  });
}
