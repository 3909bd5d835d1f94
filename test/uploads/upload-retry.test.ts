// A finished resumable upload makes one model, whatever fails after the model is committed. Redis frozen during
// `POST /api/models {upload_id}` once answered 503 ("remove upload failed") for a model it had committed, and the
// client's retry made a second model. Now the upload id is kept on the model (a unique column): a retry answers
// that model (200, `Idempotent-Replayed: true`) and removes what is left of the upload. A queue that cannot start
// the conversion at once after the commit is no error either: the held job runs when its hold ends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { JobName } from '../../src/jobs/job-types.ts';
import { QueueUnavailableError } from '../../src/jobs/queue-unavailable.ts';
import { TAKEN_SUFFIX, UPLOAD_BUSY } from '../../src/uploads/finished-uploads.ts';
import { catalogApi, catalogError, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { tusClient, uploadIdOf, type TusClient } from '../helpers/tus-client.ts';

const TRUCK = 'glb/CesiumMilkTruck.glb';

for (const dialect of testDialects()) {
  void describe(`a retried POST {upload_id} (${dialect})`, () => {
    let testApp: TestApp;
    let tus: TusClient;
    let api: ReturnType<typeof catalogApi>;

    before(async () => {
      testApp = await createTestApp(dialect);
      const baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
      tus = tusClient(baseUrl, testApp.auth);
      api = catalogApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    const uploadDir = () => path.join(testApp.config.dataDir, 'uploads');
    const fromUpload = (uploadId: string) => api.call('POST', '', { upload_id: uploadId, name: 'Retried' });
    const modelsOf = async (uploadId: string) =>
      testApp.database.db.selectFrom('models').select('id').where('upload_id', '=', uploadId).execute();
    const modelCount = async () => (await api.call('GET', '')).json.meta.total as number;

    /** Creates an upload of the truck and sends it whole; returns its upload id. */
    const finishedUpload = async (filename: string): Promise<string> => {
      const bytes = sample(TRUCK);
      const created = await tus.create(bytes.length, { filename });
      assert.equal(created.status, 201, created.text);
      const sent = await tus.patch(created.location, 0, bytes);
      assert.equal(sent?.status, 204, sent?.text);
      return uploadIdOf(created.location);
    };

    void it('answers a retry after a lost response with the same model; the catalog holds one', async () => {
      const id = await finishedUpload('lost.glb');
      const before = await modelCount();
      const first = await fromUpload(id);
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      // The client never saw that answer, and asks again.
      const retry = await fromUpload(id);
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.json.data.id, first.json.data.id);
      assert.equal(retry.json.data.name, 'Retried');
      assert.equal(await modelCount(), before + 1);
      assert.equal((await modelsOf(id)).length, 1);
    });

    void it('answers the committed model when removing the upload fails, and the retry removes it', async () => {
      const id = await finishedUpload('unremovable.glb');
      const before = await modelCount();
      // Removing the held upload throws, as the Redis-backed store's removal timed out in the reported outage.
      const realRm = fsp.rm;
      fsp.rm = (async (target: fs.PathLike, options?: fs.RmOptions) => {
        if (String(target).endsWith(TAKEN_SUFFIX)) throw new Error('Command timed out');
        return realRm(target, options);
      }) as typeof fsp.rm;
      let first;
      try {
        first = await fromUpload(id);
      } finally {
        fsp.rm = realRm;
      }
      assert.equal(first.status, 201, `a committed model is not an error: ${first.text}`);
      assert.ok(
        fs.readdirSync(uploadDir()).some((name) => name.endsWith(TAKEN_SUFFIX)),
        'the upload is left',
      );

      const retry = await fromUpload(id);
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.json.data.id, first.json.data.id);
      assert.equal(await modelCount(), before + 1);
      assert.deepEqual(
        fs.readdirSync(uploadDir()).filter((name) => name.startsWith(id)),
        [],
        'the retry removed what was left of the upload',
      );
    });

    /** Runs `send` while `queue.promote` throws as it does with the queue away; restores it after. */
    const withQueueAway = async <T>(send: () => Promise<T>): Promise<T> => {
      const { queue } = testApp.services;
      const realPromote = queue.promote.bind(queue);
      queue.promote = async () => {
        throw new QueueUnavailableError(new Error('Connection is closed.'));
      };
      try {
        return await send();
      } finally {
        queue.promote = realPromote;
      }
    };

    void it('answers the model when its conversion cannot be started at once (queue away); a retry gives it again', async () => {
      const id = await finishedUpload('queue-away.glb');
      const before = await modelCount();
      const first = await withQueueAway(() => fromUpload(id));
      assert.equal(first.status, 201, `a committed model is not an error: ${first.text}`);
      const made = await modelsOf(id);
      assert.deepEqual(
        made.map((model) => model.id),
        [first.json.data.id],
      );
      assert.ok(
        await testApp.services.queue.hasLiveJob(first.json.data.id, JobName.ConvertModel),
        'its conversion is held, to run when the hold ends',
      );

      const retry = await fromUpload(id);
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.json.data.id, first.json.data.id);
      assert.equal(await modelCount(), before + 1);
      assert.equal((await tus.head(`/api/uploads/${id}`)).status, 404, 'the upload is removed');
    });

    void it('answers a multipart upload without a key with its model when the queue is away after the commit', async () => {
      const before = await modelCount();
      const first = await withQueueAway(() => api.upload('no-key.glb', sample(TRUCK)));
      // A 503 here would invite the client to send it again, and without a key that makes a second model.
      assert.equal(first.status, 201, first.text);
      assert.equal(await modelCount(), before + 1);
      assert.ok(await testApp.services.queue.hasLiveJob(first.json.data.id, JobName.ConvertModel));
    });

    void it('makes one model of concurrent requests for one upload; each answer is it or "busy"', async () => {
      const id = await finishedUpload('concurrent.glb');
      const before = await modelCount();
      const answers = await Promise.all([fromUpload(id), fromUpload(id), fromUpload(id)]);
      const made = answers.filter((answer) => answer.status === 201);
      assert.equal(made.length, 1, answers.map((answer) => `${answer.status} ${answer.text}`).join('\n'));
      for (const answer of answers) {
        if (answer.status === 409) assert.equal(answer.text, catalogError(UPLOAD_BUSY));
        else assert.equal(answer.json?.data?.id, made[0]!.json.data.id, `${answer.status} ${answer.text}`);
      }
      assert.equal(await modelCount(), before + 1);
      assert.equal((await fromUpload(id)).json.data.id, made[0]!.json.data.id);
    });

    void it('refuses a second model row with the same upload_id at the database (unique index)', async () => {
      const id = await finishedUpload('indexed.glb');
      const made = await fromUpload(id);
      assert.equal(made.status, 201, made.text);
      const row = await testApp.database.db
        .selectFrom('models')
        .selectAll()
        .where('id', '=', made.json.data.id)
        .executeTakeFirstOrThrow();
      await assert.rejects(
        testApp.database.db
          .insertInto('models')
          .values({
            ...row,
            id: '00000000-0000-4000-8000-000000000001',
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
          })
          .execute(),
      );
    });
  });
}
