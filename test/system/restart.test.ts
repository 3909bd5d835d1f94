import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { createDb } from '../../src/db/create-db.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/databases.ts';
import { writeGridGlb } from './grid-model.ts';
import {
  exitWithin,
  freePort,
  killChildren,
  runCli,
  tempDir,
  waitForHealth,
  waitForModel,
  uploadModel,
  type ModelView,
} from './service-process.ts';

const TOKEN = 'restart-test-token';
// 450 × 450 quads: 405,000 triangles, seconds of conversion on a small machine.
const CELLS = 450;
const TRIANGLES = 2 * CELLS * CELLS;
// Short enough that the restarted service takes the orphaned job over soon; the default is 30 s.
const LEASE_SECONDS = 2;

let modelFile: string;
let modelDir: string;

before(async () => {
  modelDir = tempDir('grid');
  modelFile = path.join(modelDir, 'grid.glb');
  await writeGridGlb(modelFile, CELLS);
});

after(() => fs.rmSync(modelDir, { recursive: true, force: true }));

for (const dialect of testDialects()) {
  void describe(`the service across a restart (${dialect})`, () => {
    let dataDir: string;
    let database: TestDatabase | undefined;
    let env: Record<string, string>;
    let url: string;

    async function setUp(): Promise<void> {
      dataDir = tempDir('restart');
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      env = {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        API_TOKEN: TOKEN,
        LOG_LEVEL: 'warn',
        JOB_LEASE_SECONDS: String(LEASE_SECONDS),
        CONVERSION_TIMEOUT_SECONDS: '300',
      };
      if (dialect === 'postgres') {
        database = await createTestDatabase('postgres');
        env.DATABASE_URL = database.url;
      }
    }

    afterEach(async () => {
      await killChildren();
      await database?.dispose();
      database = undefined;
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    /** Starts `vitrine start` on the suite's DATA_DIR (and database) and waits until it answers. */
    async function start(settings: Record<string, string> = {}) {
      const service = runCli('start', { ...env, ...settings });
      await service.waitForOutput(/Vitrine is running at/);
      await waitForHealth(url);
      return service;
    }

    /** Uploads the large grid and waits until the service is converting it. */
    async function uploadAndWaitForProcessing(): Promise<ModelView> {
      const uploaded = await uploadModel(url, TOKEN, modelFile);
      assert.equal(uploaded.status, 'pending');
      return waitForModel(url, TOKEN, uploaded.id, (model) => model.status !== 'pending', 30_000, 20);
    }

    async function jobRows() {
      const handle = createDb(env.DATABASE_URL ?? `sqlite:${path.join(dataDir, 'vitrine.db')}`);
      try {
        return await handle.db
          .selectFrom('jobs')
          .select(['name', 'status', 'attempts', 'locked_by'])
          .execute();
      } finally {
        await handle.close();
      }
    }

    void it('converts a model whose first service was killed mid-conversion once it starts again', async () => {
      await setUp();
      const first = await start();
      const processing = await uploadAndWaitForProcessing();
      assert.equal(processing.status, 'processing', 'caught while converting');

      first.child.kill('SIGKILL');
      assert.deepEqual(await first.exited, { code: null, signal: 'SIGKILL' });
      // The dead process still holds the job; only its lease can free it.
      const orphaned = await jobRows();
      assert.equal(orphaned.length, 1);
      assert.equal(orphaned[0].status, 'running');
      assert.equal(orphaned[0].attempts, 1);
      assert.notEqual(orphaned[0].locked_by, null);

      const second = await start();
      const done = await waitForModel(
        url,
        TOKEN,
        processing.id,
        (model) => model.status !== 'processing',
        240_000,
        250,
      );
      assert.equal(done.status, 'completed', `error: ${done.error}`);
      assert.equal(done.error, null);
      assert.equal(done.progress, 100);
      assert.equal(done.triangle_count, TRIANGLES);
      assert.ok(done.model_url, 'LOD 0 is served');
      assert.equal(done.lods[0].triangle_count, TRIANGLES);
      const glb = await fetch(done.model_url);
      assert.equal(glb.status, 200);
      assert.equal(Buffer.from(await glb.arrayBuffer()).toString('latin1', 0, 4), 'glTF');
      assert.deepEqual(await jobRows(), [], 'the finished conversion removed its job');

      second.child.kill('SIGTERM');
      assert.deepEqual(await exitWithin(second, 20_000), { code: 0, signal: null });
    });

    void it('hands the job back on SIGTERM mid-conversion, and the next start converts it without waiting for a lease', async () => {
      await setUp();
      // A lease far longer than the test: only a hand-back lets the next start run the job.
      env.JOB_LEASE_SECONDS = '600';
      const first = await start();
      const processing = await uploadAndWaitForProcessing();
      assert.equal(processing.status, 'processing');

      first.child.kill('SIGTERM');
      assert.deepEqual(await exitWithin(first, 20_000), { code: 0, signal: null });
      assert.deepEqual(await jobRows(), [
        { name: 'convert-model', status: 'queued', attempts: 0, locked_by: null },
      ]);

      const second = await start();
      const done = await waitForModel(
        url,
        TOKEN,
        processing.id,
        (model) => model.status === 'completed' || model.status === 'failed',
        240_000,
        250,
      );
      assert.equal(done.status, 'completed', `error: ${done.error}`);
      assert.equal(done.triangle_count, TRIANGLES);
      second.child.kill('SIGTERM');
      assert.deepEqual(await exitWithin(second, 20_000), { code: 0, signal: null });
    });
  });
}
