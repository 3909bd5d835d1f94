// A share link that pins a version of its model serves that version's levels after another becomes current, says
// which version it serves, and stops answering once that version is deleted; a link without one follows the current
// version; a version the model does not have is refused when the link is made.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

/** One triangle in one group: a second version unlike the first (one part, not two). */
const ONE_TRIANGLE_OBJ = 'o Tile\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';

for (const dialect of testDialects()) {
  void describe(`share links pinning a version (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let distDir: string;
    before(async () => {
      // The page route needs a viewer build's `share.html`; any page will do.
      distDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-share-version-'));
      fs.writeFileSync(path.join(distDir, 'share.html'), '<!doctype html><title>Vitrine</title>\n');
      testApp = await createTestApp(dialect, { WEB_DIST_DIR: distDir });
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
    });
    after(async () => {
      await testApp.close();
      fs.rmSync(distDir, { recursive: true, force: true });
    });

    const get = async (url: string) => {
      const response = await testApp.app.inject({ method: 'GET', url });
      return { status: response.statusCode, text: response.body, raw: response.rawPayload };
    };
    /** Creates a link with `body`, returning the answer and, when made, its secret. */
    const createShare = async (modelId: string, body: unknown) => {
      const answer = await api.call('POST', `/${modelId}/shares`, body);
      const url: string | undefined = answer.json?.data?.url;
      return { ...answer, secret: url ? /\/s\/([A-Za-z0-9_-]+)$/.exec(url)![1]! : undefined };
    };
    /** The shared model a secret opens and the bytes of its first level. */
    const openShared = async (secret: string, id: string) => {
      const answer = await get(`/s/${secret}/models/${id}`);
      assert.equal(answer.status, 200, answer.text);
      const model = JSON.parse(answer.text).data;
      const level = await get(pathOf(model.lods[0].url));
      assert.equal(level.status, 200, level.text);
      return { model, level: level.raw };
    };

    void it('serves the pinned version after another becomes current, and 404 once it is deleted', async () => {
      const id = (await api.create('house.glb', await twoPartGlb('pinned-group'))).id as string;
      const first = await waitForStatus(testApp.app, id, ['completed']);
      const firstLevel = (await get(pathOf(first.lods[0].url))).raw;
      const firstParts = (await api.call('GET', `/${id}/parts`)).json.data;
      assert.equal(firstParts.length, 2);

      const pinned = await createShare(id, { version: 1 });
      assert.equal(pinned.status, 201, pinned.text);
      assert.equal(pinned.json.data.version, 1);
      const following = await createShare(id, {});
      assert.equal(following.json.data.version, null);
      const missing = await createShare(id, { version: 5 });
      assert.equal(missing.status, 400);
      assert.equal(missing.json.error, 'The model has no version 5');
      for (const bad of [0, 'one', 1.5]) {
        assert.equal((await createShare(id, { version: bad })).status, 400, `version ${String(bad)}`);
      }
      // Past the version column's range: refused by the schema, where PostgreSQL would fail the query.
      for (const huge of [2 ** 31, 1e20]) {
        const tooBig = await createShare(id, { version: huge });
        assert.equal(tooBig.status, 400, `version ${huge}: ${tooBig.text}`);
        assert.match(tooBig.json.error, /version/);
      }

      const posted = await api.postForm(
        `/${id}/versions`,
        {},
        { field: 'file', filename: 'tile.obj', data: ONE_TRIANGLE_OBJ },
      );
      assert.equal(posted.status, 202, posted.text);
      for (let tries = 0; ; tries++) {
        const version = (await api.call('GET', `/${id}/versions/2`)).json.data;
        if (version.status === 'completed') break;
        assert.notEqual(version.status, 'failed', version.error);
        assert.ok(tries < 600, 'version 2 stuck');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const current = (await api.call('GET', `/${id}`)).json.data;
      assert.equal(current.part_count, 1);
      const currentLevel = (await get(pathOf(current.lods[0].url))).raw;
      assert.ok(!currentLevel.equals(firstLevel));
      const pinnedToCurrent = await createShare(id, { version: 2 });
      assert.equal(pinnedToCurrent.status, 201, pinnedToCurrent.text);

      const old = await openShared(pinned.secret!, id);
      assert.equal(old.model.version, 1);
      assert.equal(old.model.part_count, 2);
      assert.ok(old.level.equals(firstLevel), 'the pinned link serves version 1’s level');
      for (const secret of [following.secret!, pinnedToCurrent.secret!]) {
        const now = await openShared(secret, id);
        assert.equal(now.model.version, 2);
        assert.equal(now.model.part_count, 1);
        assert.ok(now.level.equals(currentLevel));
      }
      // Its parts are version 1's too, in the catalog's envelope and fields, filtered like the catalog's.
      const sharedParts = async (secret: string, query = '') => {
        const answer = await get(`/s/${secret}/models/${id}/parts${query}`);
        assert.equal(answer.status, 200, answer.text);
        return JSON.parse(answer.text) as { success: boolean; data: { group_id: string; name: string }[] };
      };
      const pinnedParts = await sharedParts(pinned.secret!);
      assert.equal(pinnedParts.success, true);
      assert.deepEqual(pinnedParts.data, firstParts, 'the pinned link lists version 1’s parts as they were');
      const currentParts = (await api.call('GET', `/${id}/parts`)).json.data;
      assert.equal(currentParts.length, 1);
      assert.deepEqual((await sharedParts(following.secret!)).data, currentParts);
      const named = firstParts[1];
      assert.deepEqual(
        (await sharedParts(pinned.secret!, `?q=${encodeURIComponent(named.name.toUpperCase())}`)).data,
        [named],
        'q finds a part of the pinned version by its name',
      );
      assert.deepEqual((await sharedParts(pinned.secret!, '?q=no-such-part-anywhere')).data, []);
      const onePart = await get(
        `/s/${pinned.secret}/models/${id}/parts/${encodeURIComponent(named.group_id)}`,
      );
      assert.equal(onePart.status, 200, onePart.text);
      assert.equal(JSON.parse(onePart.text).data.group_id, named.group_id);
      const inCurrent = currentParts.some((part: { group_id: string }) => part.group_id === named.group_id);
      const elsewhere = await get(
        `/s/${following.secret}/models/${id}/parts/${encodeURIComponent(named.group_id)}`,
      );
      assert.equal(elsewhere.status, inCurrent ? 200 : 404, 'the following link reads the current parts');

      const listed = (await api.call('GET', `/${id}/shares`)).json.data;
      assert.deepEqual(
        listed.map((share: { version: number | null }) => share.version).sort(),
        [1, 2, null].sort(),
      );

      assert.equal((await get(`/s/${pinned.secret}`)).status, 200);
      assert.equal((await api.call('DELETE', `/${id}/versions/1`)).status, 204);
      assert.equal((await get(`/s/${pinned.secret}`)).status, 404, 'the page of the link is gone too');
      assert.equal((await get(`/s/${following.secret}`)).status, 200);
      const oembed = (secret: string) =>
        get(`/oembed?url=${encodeURIComponent(`http://localhost:80/s/${secret}`)}`);
      assert.equal((await oembed(pinned.secret!)).status, 404);
      assert.equal((await oembed(following.secret!)).status, 200);
      for (const url of [`/s/${pinned.secret}/models`, `/s/${pinned.secret}/models/${id}/lod/0`]) {
        const gone = await get(url);
        assert.equal(gone.status, 404, url);
        assert.match(gone.text, /Share link not found/);
      }
      assert.equal((await openShared(following.secret!, id)).model.version, 2);
    });

    void it('never gives a deleted version’s number again, so a link pinned to it stays closed', async () => {
      const id = (await api.create('house.glb', await twoPartGlb('renumbered-group'))).id as string;
      await waitForStatus(testApp.app, id, ['completed']);
      const postVersion = async () => {
        const posted = await api.postForm(
          `/${id}/versions`,
          {},
          { field: 'file', filename: 'tile.obj', data: ONE_TRIANGLE_OBJ },
        );
        assert.equal(posted.status, 202, posted.text);
        const number = posted.json.data.version.number as number;
        for (let tries = 0; ; tries++) {
          const version = (await api.call('GET', `/${id}/versions/${number}`)).json.data;
          if (version.status === 'completed') return number;
          assert.notEqual(version.status, 'failed', version.error);
          assert.ok(tries < 600, `version ${number} stuck`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      assert.equal(await postVersion(), 2);
      assert.equal((await api.call('POST', `/${id}/versions/1/restore`)).status, 200);
      const pinned = await createShare(id, { version: 2 });
      assert.equal(pinned.status, 201, pinned.text);
      assert.equal((await api.call('DELETE', `/${id}/versions/2`)).status, 204);
      assert.equal((await get(`/s/${pinned.secret}`)).status, 404);

      assert.equal(await postVersion(), 3, 'the next version is 3, not the deleted 2 again');
      assert.equal((await api.call('GET', `/${id}/versions/2`)).status, 404);
      assert.equal((await get(`/s/${pinned.secret}`)).status, 404, 'the link pinned to 2 opens nothing');
      assert.equal((await get(`/s/${pinned.secret}/models/${id}`)).status, 404);
    });
  });
}
