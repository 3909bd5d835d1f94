// Signed /files/ URLs outlived the scoped token that obtained them: revoking the token left every URL it had been
// handed working until it expired (an hour by default). Now a scoped token's URLs name the token inside the
// signature, and /files/ refuses them once the token is revoked or expired.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createLiveGrants, GRANT_RECHECK_MS } from '../../src/http/auth/live-grants.ts';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { openServices } from '../../src/services.ts';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, TEST_TOKEN, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';

const REVOKED = /handed to a token that is revoked or expired/;

for (const dialect of testDialects()) {
  void describe(`file URLs end with the scoped token they were handed to (${dialect})`, () => {
    let testApp: TestApp;
    let modelId: string;
    before(async () => {
      testApp = await createTestApp(dialect);
      testApp.startJobRunner();
      const created = await catalogApi(testApp.app, testApp.auth).create('two.glb', await twoPartGlb('g'));
      modelId = (await waitForStatus(testApp.app, created.id, ['completed'])).id;
    });
    after(() => testApp.close());

    const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string> = {}) =>
      testApp.app.inject({ method, url, headers });
    const createToken = async (name: string) => {
      const answer = await testApp.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: testApp.auth,
        payload: { name, scope: 'read' },
      });
      assert.equal(answer.statusCode, 201, answer.body);
      return answer.json().data as { id: string; token: string };
    };
    /** Every file URL the API hands the token for the model: its fields, `/url` and a level's. */
    const fileUrlsFor = async (token: string): Promise<string[]> => {
      const headers = { 'x-api-token': token };
      const model = (await inject('GET', `/api/models/${modelId}`, headers)).json().data as ModelJson;
      const single = (await inject('GET', `/api/models/${modelId}/url`, headers)).json().data.url as string;
      const level = (await inject('GET', `/api/models/${modelId}/lod/0`, headers)).json().data.url as string;
      return [
        model.original_url,
        model.thumbnail_url,
        ...model.lods.map((lod: ModelJson) => lod.url),
        single,
        level,
      ];
    };
    const assertServed = async (url: string, what: string) => {
      const served = await inject('GET', pathOf(url));
      assert.equal(served.statusCode, 200, `${what} ${url}: ${served.body}`);
      return served;
    };
    const assertRefused = async (url: string, message: RegExp, what: string) => {
      const refused = await inject('GET', url);
      assert.equal(refused.statusCode, 404, `${what} ${url}: ${refused.body}`);
      assert.match(refused.body, message, what);
      assert.equal(refused.headers['cache-control'], 'no-store', what);
      assert.equal(refused.rawPayload.includes('glTF'), false, what);
    };

    void it("refuses a revoked token's URLs and keeps serving another token's and the admin token's", async () => {
      const revoked = await createToken('revoked');
      const live = await createToken('live');
      const revokedUrls = await fileUrlsFor(revoked.token);
      const liveUrls = await fileUrlsFor(live.token);
      const adminUrls = await fileUrlsFor(testApp.auth['x-api-token']!);
      for (const url of revokedUrls) {
        assert.equal(new URL(url).searchParams.get('grant'), revoked.id, url);
        const served = await assertServed(url, 'before revocation');
        // No longer than the server trusts the grant unchecked, so browsers ask again soon after a revocation.
        const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(served.headers['cache-control']))?.[1]);
        assert.ok(maxAge > 0 && maxAge <= 30, `${url}: ${served.headers['cache-control']}`);
      }
      for (const url of adminUrls) assert.equal(new URL(url).searchParams.has('grant'), false, url);

      const deleted = await inject('DELETE', `/api/tokens/${revoked.id}`, testApp.auth);
      assert.equal(deleted.statusCode, 200, deleted.body);
      for (const url of revokedUrls) await assertRefused(pathOf(url), REVOKED, 'after revocation');
      for (const url of liveUrls) await assertServed(url, "another token's");
      for (const url of adminUrls) await assertServed(url, "the admin token's");
    });

    void it('ends the URLs in another API process within its recheck, at most 30 s by default', async () => {
      assert.ok(GRANT_RECHECK_MS <= 30_000);
      // A second API process on the same database and files, with its own memory of tokens. Its recheck is
      // shortened so the test waits one second rather than the default's fifteen; the mechanism is the same.
      const recheckMs = 1000;
      const services = await openServices(testApp.config);
      const other: FastifyInstance = await buildApp({
        config: testApp.config,
        ...services,
        apiToken: TEST_TOKEN,
        logger: createLogger('silent'),
        grantRecheckMs: recheckMs,
      });
      try {
        const token = await createToken('elsewhere');
        const urls = await fileUrlsFor(token.token);
        const getThere = (url: string) => other.inject({ method: 'GET', url: pathOf(url) });
        for (const url of urls) assert.equal((await getThere(url)).statusCode, 200, url);
        const revokedAt = Date.now();
        const deleted = await inject('DELETE', `/api/tokens/${token.id}`, testApp.auth);
        assert.equal(deleted.statusCode, 200, deleted.body);
        await sleep(Math.max(0, revokedAt + recheckMs + 200 - Date.now()));
        for (const url of urls) {
          const refused = await getThere(url);
          assert.equal(refused.statusCode, 404, `${url}: ${refused.body}`);
          assert.match(refused.body, REVOKED);
        }
      } finally {
        await other.close();
        await services.close();
      }
    });

    void it('refuses the URLs of a token once it has expired', async () => {
      const expiring = await createToken('expiring');
      const urls = await fileUrlsFor(expiring.token);
      // Expired an hour ago, as the clock would have it later; no file request has looked the token up yet.
      await testApp.database.db
        .updateTable('api_tokens')
        .set({ expires_at: new Date(Date.now() - 3_600_000).toISOString() })
        .where('id', '=', expiring.id)
        .execute();
      for (const url of urls) await assertRefused(pathOf(url), REVOKED, 'after expiry');
    });

    void it('refuses a URL whose grant was swapped, dropped, added or made up', async () => {
      const mine = await createToken('mine');
      const other = await createToken('other');
      const url = new URL((await fileUrlsFor(mine.token))[2]!);
      const withGrant = (grant: string | undefined) => {
        const changed = new URL(url);
        if (grant === undefined) changed.searchParams.delete('grant');
        else changed.searchParams.set('grant', grant);
        return pathOf(changed.href);
      };
      const altered = /not signed for this file/;
      await assertRefused(withGrant(other.id), altered, "another live token's id");
      await assertRefused(withGrant(undefined), altered, 'grant dropped (as if the admin token had it)');
      await assertRefused(withGrant('00000000-0000-4000-8000-000000000000'), altered, 'made-up id');
      await assertRefused(withGrant('not-an-id'), altered, 'junk');
      const admin = new URL((await fileUrlsFor(testApp.auth['x-api-token']!))[2]!);
      admin.searchParams.set('grant', mine.id);
      await assertRefused(pathOf(admin.href), altered, "a grant added to the admin token's URL");
      await assertServed(url.href, 'the untouched URL');
    });
  });
}

void describe('live grants', () => {
  void it('asks the database once per token within the recheck, again after it, and at once after forget', async () => {
    let now = 0;
    const live = new Set(['a', 'b']);
    const asked: string[] = [];
    const grants = createLiveGrants({
      isLive: async (id) => {
        asked.push(id);
        return live.has(id);
      },
      recheckMs: 15_000,
      now: () => now,
    });
    assert.deepEqual(await Promise.all([grants.isLive('a'), grants.isLive('a'), grants.isLive('b')]), [
      true,
      true,
      true,
    ]);
    assert.deepEqual(asked, ['a', 'b'], 'concurrent checks of one token share a query');
    live.delete('a');
    now = 14_999;
    assert.equal(await grants.isLive('a'), true, 'remembered within the recheck');
    now = 15_000;
    assert.equal(await grants.isLive('a'), false, 'asked again once the recheck is due');
    live.delete('b');
    grants.forget('b');
    assert.equal(await grants.isLive('b'), false, 'forgotten: asked at once');
    assert.deepEqual(asked, ['a', 'b', 'a', 'b']);
  });

  void it('does not remember a failed query', async () => {
    let fail = true;
    const grants = createLiveGrants({
      isLive: async () => {
        if (fail) throw new Error('database down');
        return true;
      },
    });
    await assert.rejects(grants.isLive('a'), /database down/);
    fail = false;
    assert.equal(await grants.isLive('a'), true);
  });
});
