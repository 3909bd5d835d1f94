// The scale-out the README describes, as processes: two `serve` behind no balancer but the test, which spreads
// requests over both, and two `worker`, on PostgreSQL, Redis and S3 (s3rver). Twenty uploads (multipart and
// tus, their chunks on alternating processes) convert; a worker SIGKILLed mid-job has its job finished by the
// other; a conversion done by a worker reaches an event stream on each API process; deleting every model leaves
// no object under the installation's prefix.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { VitrineEvent } from '../../src/events/event-types.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { openEventClient, type EventClient } from '../helpers/event-client.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { tusClient, uploadIdOf } from '../helpers/tus-client.ts';
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

const TOKEN = 'scale-out-s3-test-token';
const PREFIX = 'installation';
// Seconds of conversion: long enough to kill a worker in the middle of it.
const CELLS = 450;
const SMALL_MODELS = ['stl/cyl_w_rect_hole.stl', 'stl/sphereWithHole.stl', 'glb/MultiUVTest.glb'].map(
  (name) => path.join(MODELS, name),
);
const UPLOADS = 20;
const LEASE_SECONDS = 2;

const modelOf = (event: VitrineEvent) => (event.data as { model_id?: string }).model_id;
const finished = (model: ModelView) => model.status === 'completed' || model.status === 'failed';

const SUITE = { skip: skipWithoutRedis };

void describe('two serve and two worker processes on PostgreSQL, Redis and S3', SUITE, () => {
  let s3: TestS3Server;
  let database: TestDatabase;
  let redisUrl: string;
  let redisPrefix: string;
  let gridFile: string;
  const folders: string[] = [];
  const streams: EventClient[] = [];

  before(async () => {
    redisUrl = testRedisUrl();
    redisPrefix = uniqueRedisPrefix('s3-scale-out');
    s3 = await startS3Server();
    database = await createTestDatabase('postgres');
    gridFile = path.join(tempDir('grid'), 'grid.glb');
    folders.push(path.dirname(gridFile));
    await writeGridGlb(gridFile, CELLS);
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await killChildren();
    await removeRedisKeys(redisUrl, redisPrefix);
    await database.dispose();
    await s3.close();
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });

  /** Keys under the installation's prefix. */
  const storedKeys = async (): Promise<string[]> => {
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    try {
      const page = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${PREFIX}/` }));
      return (page.Contents ?? []).map((object) => object.Key!);
    } finally {
      client.destroy();
    }
  };

  void it('converts uploads spread over both APIs, survives a killed worker and cleans the bucket', async () => {
    // Nothing but the scratch folder is local: every process has its own DATA_DIR, as on separate machines.
    const env = (name: string, extra: Record<string, string> = {}) => {
      const dataDir = tempDir(name);
      folders.push(dataDir);
      return {
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: redisPrefix,
        API_TOKEN: TOKEN,
        JOB_LEASE_SECONDS: String(LEASE_SECONDS),
        CONVERSION_TIMEOUT_SECONDS: '300',
        ...s3.env(PREFIX),
        ...extra,
      };
    };
    const ports = [await freePort(), await freePort()];
    const urls = ports.map((port) => `http://127.0.0.1:${port}`);
    const apis = ports.map((port, n) => runCli('serve', env(`serve-${n}`, { PORT: String(port) })));
    await Promise.all(urls.map((url) => waitForHealth(url)));
    for (const url of urls) {
      const stream = await openEventClient(`${url}/api/events`, { 'x-api-token': TOKEN });
      assert.equal(stream.status, 200, stream.body);
      streams.push(stream);
    }
    const firstWorker = runCli('worker', env('worker-0'));

    const grid = await uploadModel(urls[0]!, TOKEN, gridFile);
    const processing = await waitForModel(
      urls[1]!,
      TOKEN,
      grid.id,
      (m) => m.status !== 'pending',
      60_000,
      20,
    );
    assert.equal(processing.status, 'processing', 'the first worker is converting the grid');
    const secondWorker = runCli('worker', env('worker-1', { LOG_LEVEL: 'info' }));
    await secondWorker.waitForOutput(/worker started/);
    firstWorker.child.kill('SIGKILL');
    assert.deepEqual(await firstWorker.exited, { code: null, signal: 'SIGKILL' });

    // Twenty uploads while the grid waits for its lease to run out: even ones multipart, odd ones tus with the
    // creation on one API process, the bytes in two chunks on alternating ones, the model made on the other.
    const models: ModelView[] = [];
    for (let n = 0; n < UPLOADS; n++) {
      const file = SMALL_MODELS[n % SMALL_MODELS.length]!;
      const api = urls[n % 2]!;
      const other = urls[(n + 1) % 2]!;
      if (n % 2 === 0) {
        models.push(await uploadModel(api, TOKEN, file));
        continue;
      }
      const bytes = fs.readFileSync(file);
      const half = Math.floor(bytes.length / 2);
      const created = await tusClient(api, { 'x-api-token': TOKEN }).create(bytes.length, {
        filename: path.basename(file),
      });
      assert.equal(created.status, 201, created.text);
      const start = await tusClient(other, { 'x-api-token': TOKEN }).patch(
        created.location,
        0,
        bytes.subarray(0, half),
      );
      assert.equal(start?.status, 204, start?.text);
      const end = await tusClient(api, { 'x-api-token': TOKEN }).patch(
        created.location,
        half,
        bytes.subarray(half),
      );
      assert.equal(end?.status, 204, end?.text);
      const made = await fetch(`${other}/api/models`, {
        method: 'POST',
        headers: { 'x-api-token': TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify({ upload_id: uploadIdOf(created.location) }),
      });
      const body = (await made.json()) as { data: ModelView };
      assert.equal(made.status, 201, JSON.stringify(body));
      models.push(body.data);
    }

    for (const [n, model] of [grid, ...models].entries()) {
      const converted = await waitForModel(urls[n % 2]!, TOKEN, model.id, finished, 120_000, 250);
      assert.equal(converted.status, 'completed', `${model.id}: ${converted.error}`);
    }
    const done = await waitForModel(urls[1]!, TOKEN, grid.id, finished, 1_000);
    assert.equal(done.triangle_count, 2 * CELLS * CELLS, "the killed worker's job finished on the other");
    // The grid was uploaded through the first API and converted by a worker: both API processes hear of it.
    for (const stream of streams) {
      await stream.waitFor((event) => event.type === 'model.completed' && modelOf(event) === grid.id);
    }
    const completed = new Set(
      streams[1]!.events.filter((event) => event.type === 'model.completed').map(modelOf),
    );
    assert.equal(completed.size, UPLOADS + 1, 'the second API process heard every conversion');

    for (const [n, model] of [grid, ...models].entries()) {
      const deleted = await fetch(`${urls[n % 2]}/api/models/${model.id}`, {
        method: 'DELETE',
        headers: { 'x-api-token': TOKEN },
      });
      assert.equal(deleted.status, 200, await deleted.text());
    }
    assert.deepEqual(
      await storedKeys(),
      [],
      'no object of the deleted models, nor of their uploads, is left',
    );

    for (const service of [secondWorker, ...apis]) service.child.kill('SIGTERM');
    for (const service of [secondWorker, ...apis]) {
      assert.deepEqual(await exitWithin(service, 20_000), { code: 0, signal: null }, service.stderr());
    }
  });
});
