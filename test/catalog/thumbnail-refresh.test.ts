import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { createModelRepository } from '../../src/catalog/repository.ts';
import { JobName } from '../../src/jobs/job-types.ts';
import { capturingLogger } from '../helpers/capturing-logger.ts';
import { catalogApi, fileOf, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';

/** The refresh delay the suites run with: long enough for five quick changes to fall within it. */
const DELAY_MS = 2500;
/**
 * How long a wait may last before the test calls it hung. Not a measure of speed: a render on a loaded machine can
 * take many seconds, and what the tests check is what is rendered and how often, not how fast.
 */
const HANG_GUARD_MS = 90_000;

/** A box of one part, for its thumbnail to take the bound colour. */
const BOX_OBJ = [
  'o box',
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => `v ${i & 1} ${(i >> 1) & 1} ${(i >> 2) & 1}`),
  ...[
    [1, 3, 4, 2],
    [5, 6, 8, 7],
    [1, 2, 6, 5],
    [3, 7, 8, 4],
    [1, 5, 7, 3],
    [2, 4, 8, 6],
  ].map((face) => `f ${face.join(' ')}`),
  '',
].join('\n');

type Rgb = [number, number, number];

/** Share of a PNG's pixels whose colour is clearly `hue` (lit and shaded, so judged by the dominant channel). */
async function shareOf(png: Buffer, hue: 'red' | 'green' | 'blue'): Promise<number> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const main = { red: 0, green: 1, blue: 2 }[hue];
  let count = 0;
  for (let i = 0; i < data.length; i += 3) {
    const rgb: Rgb = [data[i], data[i + 1], data[i + 2]];
    const others = rgb.filter((_, channel) => channel !== main);
    if (rgb[main] > 80 && others.every((value) => rgb[main] - value > 50)) count += 1;
  }
  return count / (info.width * info.height);
}

const QUEUES = ['embedded', 'redis'] as const;

for (const dialect of testDialects()) {
  for (const queue of QUEUES) {
    void describe(
      `thumbnails follow material bindings (${dialect}, ${queue} queue)`,
      { skip: queue === 'redis' && skipWithoutRedis },
      () => {
        let testApp: TestApp;
        let api: ReturnType<typeof catalogApi>;
        let materials: ReturnType<typeof materialApi>;
        let redis: { url: string; prefix: string } | undefined;
        const capture = capturingLogger();
        before(async () => {
          const env: Record<string, string> = { THUMBNAIL_REFRESH_DELAY_MS: String(DELAY_MS) };
          if (queue === 'redis') {
            redis = { url: testRedisUrl(), prefix: uniqueRedisPrefix('thumbnail-refresh') };
            Object.assign(env, { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix });
          }
          testApp = await createTestApp(dialect, env, { logger: capture.logger });
          api = catalogApi(testApp.app, testApp.auth);
          materials = materialApi(testApp.app, testApp.auth);
          testApp.startJobRunner();
        });
        after(async () => {
          await testApp.close();
          if (redis) await removeRedisKeys(redis.url, redis.prefix);
        });

        /** A converted box and the group id of its one part. */
        const convertedBox = async (): Promise<{ model: ModelJson; groupId: string }> => {
          const created = await api.create('box.obj', BOX_OBJ);
          const model = await waitForStatus(testApp.app, created.id, ['completed', 'failed'], 60_000);
          assert.equal(model.status, 'completed', model.error);
          const parts = await api.call('GET', `/${model.id}/parts`);
          return { model, groupId: parts.json.data[0].group_id };
        };

        /** The model's `thumbnail.updated` events so far. */
        const thumbnailEvents = async (modelId: string): Promise<number> => {
          const rows = await testApp.database.db
            .selectFrom('events')
            .select('id')
            .where('type', '=', 'thumbnail.updated')
            .where('model_id', '=', modelId)
            .execute();
          return rows.length;
        };

        /**
         * Waits for the model's thumbnail file to differ from `before`'s (compared by {@link fileOf}; '' takes the
         * one it has now); returns the model and its PNG.
         */
        const newThumbnail = async (modelId: string, before: string, since: number) => {
          for (;;) {
            const model = (await api.call('GET', `/${modelId}`)).json.data as ModelJson;
            if (before === '' || fileOf(model.thumbnail_url) !== fileOf(before)) {
              const png = await testApp.app.inject({ method: 'GET', url: pathOf(model.thumbnail_url) });
              assert.equal(png.statusCode, 200);
              return { model, png: png.rawPayload, after: Date.now() - since };
            }
            assert.ok(Date.now() - since < HANG_GUARD_MS, `no new thumbnail within ${HANG_GUARD_MS} ms`);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        };

        /**
         * Waits until no thumbnail job of the model is queued, held back or running: whatever the changes so far
         * were going to render has rendered, so counting renders after this is final.
         */
        const renderJobsDone = async (modelId: string) => {
          const since = Date.now();
          while (await testApp.queue.hasLiveJob(modelId, JobName.RenderThumbnail)) {
            assert.ok(
              Date.now() - since < HANG_GUARD_MS,
              `a thumbnail job still live after ${HANG_GUARD_MS} ms`,
            );
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        };

        /** Waits until a render job of the model has found it held by another render and queued itself again. */
        const renderWaited = async (modelId: string) => {
          const since = Date.now();
          const waited = () =>
            capture.lines.some(
              (line) =>
                line.model_id === modelId && line.msg === 'thumbnail render waits for the one under way',
            );
          while (!waited()) {
            assert.ok(Date.now() - since < HANG_GUARD_MS, `no render job ran within ${HANG_GUARD_MS} ms`);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        };

        const color = (r: number, g: number, b: number) => ({ diffuse_r: r, diffuse_g: g, diffuse_b: b });

        void it('a binding, then an edit of the bound colour, each bring a new thumbnail in that colour', async () => {
          const { model, groupId } = await convertedBox();
          assert.ok(model.thumbnail_url, 'the conversion rendered a thumbnail');
          assert.ok((await shareOf((await newThumbnail(model.id, '', Date.now())).png, 'red')) < 0.01);
          const red = await materials.create({ name: 'Red', ...color(255, 0, 0) });

          const boundAt = Date.now();
          await materials.bind(red.id, [groupId]);
          const first = await newThumbnail(model.id, model.thumbnail_url, boundAt);
          assert.ok(
            first.after >= DELAY_MS - 100,
            `rendered ${first.after} ms after the change, before the delay`,
          );
          assert.ok((await shareOf(first.png, 'red')) > 0.05, 'the new thumbnail shows the bound red');

          const editedAt = Date.now();
          const edited = await materials.call('PUT', `/materials/${red.id}`, color(0, 200, 0));
          assert.equal(edited.status, 200, edited.text);
          const second = await newThumbnail(model.id, first.model.thumbnail_url, editedAt);
          assert.ok((await shareOf(second.png, 'green')) > 0.05, 'the thumbnail follows the edited colour');
          assert.ok((await shareOf(second.png, 'red')) < 0.01);

          // Renaming changes nothing a thumbnail shows: no render is queued (a refresh is queued within the
          // request that changes the material, so none live after it answers means none at all).
          await renderJobsDone(model.id);
          const events = await thumbnailEvents(model.id);
          assert.equal(
            (await materials.call('PUT', `/materials/${red.id}`, { name: 'Now green' })).status,
            200,
          );
          assert.equal(await testApp.queue.hasLiveJob(model.id, JobName.RenderThumbnail), false);
          assert.equal(await thumbnailEvents(model.id), events);
        });

        void it('five quick binding changes cause one render, showing the last', async () => {
          const { model, groupId } = await convertedBox();
          const palette = [
            color(255, 0, 0),
            color(0, 200, 0),
            color(255, 0, 0),
            color(0, 200, 0),
            color(0, 0, 255),
          ];
          const made = [];
          for (const [index, fields] of palette.entries())
            made.push(await materials.create({ name: `Colour ${index}`, ...fields }));
          const events = await thumbnailEvents(model.id);

          const startedAt = Date.now();
          for (const material of made) await materials.bind(material.id, [groupId]);
          const took = Date.now() - startedAt;
          assert.ok(
            took < DELAY_MS,
            `the five changes took ${took} ms, longer than the ${DELAY_MS} ms delay`,
          );

          const rendered = await newThumbnail(model.id, model.thumbnail_url, startedAt);
          assert.ok((await shareOf(rendered.png, 'blue')) > 0.05, 'the one render shows the last binding');
          // A second render would be a job still live, or one that ran: none is left, and one ran.
          await renderJobsDone(model.id);
          assert.equal(await thumbnailEvents(model.id), events + 1);
          assert.equal(
            fileOf((await api.call('GET', `/${model.id}`)).json.data.thumbnail_url),
            fileOf(rendered.model.thumbnail_url),
          );
        });

        void it('a render waits while another render holds the model, then runs once it is free', async () => {
          const { model, groupId } = await convertedBox();
          const models = createModelRepository(testApp.database);
          // Another worker's render under way on this model.
          assert.equal(await models.claimThumbnailRender(model.id, 60_000), true);
          assert.equal(await models.claimThumbnailRender(model.id, 60_000), false);
          const events = await thumbnailEvents(model.id);
          const red = await materials.create({ name: 'Red', ...color(255, 0, 0) });
          await materials.bind(red.id, [groupId]);
          await renderWaited(model.id);
          assert.equal(await thumbnailEvents(model.id), events, 'no render alongside the one under way');

          const freedAt = Date.now();
          await models.releaseThumbnailRender(model.id);
          const rendered = await newThumbnail(model.id, model.thumbnail_url, freedAt);
          assert.ok((await shareOf(rendered.png, 'red')) > 0.05);
          // The new picture shows before its job has announced it: count once the job is done.
          await renderJobsDone(model.id);
          assert.equal(await thumbnailEvents(model.id), events + 1);
        });

        void it('an uploaded thumbnail is kept through binding changes; Regenerate still replaces it', async () => {
          const { model, groupId } = await convertedBox();
          const picture = await sharp({
            create: { width: 64, height: 64, channels: 3, background: { r: 250, g: 200, b: 0 } },
          })
            .png()
            .toBuffer();
          const uploaded = await api.thumbnail(model.id, 'mine.png', picture);
          assert.equal(uploaded.status, 200, uploaded.text);
          const mine = uploaded.json.data.thumbnail_url as string;
          const events = await thumbnailEvents(model.id);

          const red = await materials.create({ name: 'Red', ...color(255, 0, 0) });
          await materials.bind(red.id, [groupId]);
          assert.equal(
            await testApp.queue.hasLiveJob(model.id, JobName.RenderThumbnail),
            true,
            'refresh queued',
          );
          await renderJobsDone(model.id);
          assert.equal(fileOf((await api.call('GET', `/${model.id}`)).json.data.thumbnail_url), fileOf(mine));
          assert.equal(await thumbnailEvents(model.id), events);

          const askedAt = Date.now();
          assert.equal((await api.call('POST', `/${model.id}/regenerate-thumbnail`)).status, 200);
          const regenerated = await newThumbnail(model.id, mine, askedAt);
          assert.ok((await shareOf(regenerated.png, 'red')) > 0.05, 'Regenerate renders the bound red');
        });
      },
    );
  }
}
