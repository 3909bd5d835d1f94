import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { writeGridGlb } from './grid-model.ts';
import {
  MODELS,
  exitWithin,
  freePort,
  killChildren,
  runCli,
  tempDir,
  uploadModel,
  waitForHealth,
  waitForModel,
  type ModelView,
} from './service-process.ts';

const TOKEN = 'scale-out-test-token';
// 450 × 450 quads: seconds of conversion, long enough to kill a worker in the middle of it.
const CELLS = 450;
const SMALL_MODEL = path.join(MODELS, 'stl', 'cyl_w_rect_hole.stl');
// A killed worker's job goes to the other one this soon after its lock runs out; the default is 30 s.
const LEASE_SECONDS = 2;

const finished = (model: ModelView) => model.status === 'completed' || model.status === 'failed';

void describe('serve and two workers on PostgreSQL and Redis', { skip: skipWithoutRedis }, () => {
  let gridFile: string;
  let dataDir: string;
  let database: TestDatabase;
  let redisUrl: string;
  let prefix: string;

  before(async () => {
    redisUrl = testRedisUrl();
    gridFile = path.join(tempDir('grid'), 'grid.glb');
    await writeGridGlb(gridFile, CELLS);
  });

  after(() => fs.rmSync(path.dirname(gridFile), { recursive: true, force: true }));

  afterEach(async () => {
    await killChildren();
    await removeRedisKeys(redisUrl, prefix);
    await database.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  void it("converts uploads on the workers and finishes a SIGKILLed worker's job on the other", async () => {
    database = await createTestDatabase('postgres');
    prefix = uniqueRedisPrefix('scale-out');
    // One storage folder for all three processes, as a shared volume would be.
    dataDir = tempDir('scale-out');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      API_TOKEN: TOKEN,
      JOB_LEASE_SECONDS: String(LEASE_SECONDS),
      CONVERSION_TIMEOUT_SECONDS: '300',
    };

    const api = runCli('serve', env);
    await api.waitForOutput(/Worker:\s+none/);
    await waitForHealth(url);
    const first = runCli('worker', env);

    const grid = await uploadModel(url, TOKEN, gridFile);
    const processing = await waitForModel(
      url,
      TOKEN,
      grid.id,
      (model) => model.status !== 'pending',
      60_000,
      20,
    );
    assert.equal(processing.status, 'processing', 'the first worker is converting the grid');

    // The second worker joins while the first holds the grid; then the first dies in the middle of it.
    const second = runCli('worker', { ...env, LOG_LEVEL: 'info' });
    await second.waitForOutput(/worker started/);
    first.child.kill('SIGKILL');
    assert.deepEqual(await first.exited, { code: null, signal: 'SIGKILL' });

    const small: ModelView[] = [];
    for (let n = 0; n < 2; n++) small.push(await uploadModel(url, TOKEN, SMALL_MODEL));
    for (const model of small) {
      const converted = await waitForModel(url, TOKEN, model.id, finished, 240_000, 250);
      assert.equal(converted.status, 'completed', `error: ${converted.error}`);
    }
    const done = await waitForModel(url, TOKEN, grid.id, finished, 240_000, 250);
    assert.equal(done.status, 'completed', `error: ${done.error}`);
    assert.equal(done.triangle_count, 2 * CELLS * CELLS);
    const glb = await fetch(done.model_url!);
    assert.equal(glb.status, 200);
    assert.equal(Buffer.from(await glb.arrayBuffer()).toString('latin1', 0, 4), 'glTF');

    second.child.kill('SIGTERM');
    api.child.kill('SIGTERM');
    assert.deepEqual(await exitWithin(second, 20_000), { code: 0, signal: null }, second.stderr());
    assert.deepEqual(await exitWithin(api, 20_000), { code: 0, signal: null }, api.stderr());
  });
});
