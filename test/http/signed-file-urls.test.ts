// Stored files were public by name: an original sits at models/<id>/source/<upload name>, and a share shows both,
// so /files/models/$ID/source/CesiumMilkTruck.glb answered 200 to anyone, even after the share was revoked. Now
// /files/ answers only a URL the API signed (short-lived) or a request with an API token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sourceKey } from '../../src/catalog/lod-keys.ts';
import { createFileUrlSigner, fileSigningKey } from '../../src/http/files/file-url-signer.ts';
import { catalogApi, pathOf, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, TEST_TOKEN, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';

const TRUCK = 'glb/CesiumMilkTruck.glb';
const LIFETIME_SECONDS = 600;

/** The `/files/` path of a handed-out URL, without its query. */
const filePath = (url: string) => new URL(url).pathname;

for (const dialect of testDialects()) {
  void describe(`stored files need a signed URL or a token (${dialect})`, () => {
    let testApp: TestApp;
    let model: ModelJson;
    before(async () => {
      testApp = await createTestApp(dialect, { FILE_URL_EXPIRES_SECONDS: String(LIFETIME_SECONDS) });
      testApp.startJobRunner();
      const created = await catalogApi(testApp.app, testApp.auth).create(
        'CesiumMilkTruck.glb',
        sample(TRUCK),
      );
      model = await waitForStatus(testApp.app, created.id, ['completed']);
    });
    after(() => testApp.close());

    const get = (url: string, headers: Record<string, string> = {}) =>
      testApp.app.inject({ method: 'GET', url, headers });
    const assertRefused = (answer: Awaited<ReturnType<typeof get>>, message: RegExp, what: string) => {
      // 404 as if there were no such file; 401 for a wrong token.
      assert.equal(
        answer.statusCode,
        /invalid API token/.test(message.source) ? 401 : 404,
        `${what}: ${answer.body}`,
      );
      assert.match(answer.body, message, what);
      assert.equal(answer.headers['content-type'], 'text/plain; charset=utf-8', what);
      assert.equal(answer.headers['cache-control'], 'no-store', what);
      assert.equal(answer.rawPayload.includes('glTF'), false, what);
    };

    void it('refuses the guessed address of an original, of a LOD and of a file that does not exist alike', async () => {
      const guessed = `/files/${sourceKey(model.id, 'CesiumMilkTruck.glb')}`;
      assertRefused(await get(guessed), /needs a signed URL/, 'original');
      assertRefused(await get(filePath(model.lods[0].url)), /needs a signed URL/, 'LOD 0 by its hashed name');
      assertRefused(await get(filePath(model.thumbnail_url)), /needs a signed URL/, 'thumbnail');
      assertRefused(
        await get(`/files/models/${model.id}/source/nothing.glb`),
        /needs a signed URL/,
        'missing',
      );
      assertRefused(await get(guessed, { range: 'bytes=0-3' }), /needs a signed URL/, 'ranged guess');
    });

    void it('serves every URL the API hands out, cached privately no longer than the signature lasts', async () => {
      const urls: string[] = [
        model.original_url,
        model.thumbnail_url,
        ...model.lods.map((lod: ModelJson) => lod.url),
      ];
      const single = await get(`/api/models/${model.id}/url`, testApp.auth);
      urls.push(JSON.parse(single.body).data.url);
      const level = await get(`/api/models/${model.id}/lod/1`, testApp.auth);
      urls.push(JSON.parse(level.body).data.url);
      for (const url of urls) {
        assert.match(url, /\/files\/models\/[^?]+\?expires=\d+&signature=[A-Za-z0-9_-]{43}$/, url);
        const served = await get(pathOf(url));
        assert.equal(served.statusCode, 200, `${url}: ${served.body}`);
        const cache = String(served.headers['cache-control']);
        const maxAge = Number(/^private, max-age=(\d+)$/.exec(cache)?.[1]);
        assert.ok(maxAge >= LIFETIME_SECONDS / 2 - 1 && maxAge <= LIFETIME_SECONDS, `${url}: ${cache}`);
        assert.doesNotMatch(cache, /immutable|public/);
      }
      const original = await get(pathOf(model.original_url));
      assert.deepEqual(original.rawPayload, sample(TRUCK));
      assert.match(
        String(original.headers['content-disposition']),
        /^attachment; filename="CesiumMilkTruck\.glb"/,
      );
    });

    void it('serves a signed original whose name has spaces, accents and a percent sign', async () => {
      const name = 'vieux camion é 100%.obj';
      const created = await catalogApi(testApp.app, testApp.auth).create(
        name,
        'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n',
      );
      const served = await get(pathOf(created.original_url));
      assert.equal(served.statusCode, 200, `${created.original_url}: ${served.body}`);
      assert.match(served.body, /^v 0 0 0/);
    });

    void it('keeps Range and ETag revalidation working on a signed URL', async () => {
      const url = pathOf(model.lods[0].url);
      const ranged = await get(url, { range: 'bytes=0-3' });
      assert.equal(ranged.statusCode, 206);
      assert.equal(ranged.body, 'glTF');
      const etag = String(ranged.headers.etag);
      assert.ok(etag.length > 2, 'an ETag is sent');
      const again = await get(url, { 'if-none-match': etag });
      assert.equal(again.statusCode, 304);
    });

    void it('hands out the same URL for a while, so browsers reuse what they cached', async () => {
      const first = (await get(`/api/models/${model.id}`, testApp.auth)).json().data.lods[0].url;
      const second = (await get(`/api/models/${model.id}`, testApp.auth)).json().data.lods[0].url;
      assert.equal(first, second);
    });

    void it('refuses a signature moved to another file, an altered one and a pushed-back expiry', async () => {
      const lod = new URL(model.lods[0].url);
      const query = lod.search;
      const original = filePath(model.original_url);
      assertRefused(
        await get(`${original}${query}`),
        /not signed for this file/,
        "LOD's signature on the original",
      );
      const signature = lod.searchParams.get('signature')!;
      const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BA' : 'AA'}`;
      assertRefused(
        await get(`${lod.pathname}?expires=${lod.searchParams.get('expires')}&signature=${flipped}`),
        /not signed for this file/,
        'altered signature',
      );
      const later = Number(lod.searchParams.get('expires')) + 86_400;
      assertRefused(
        await get(`${lod.pathname}?expires=${later}&signature=${signature}`),
        /not signed for this file/,
        'pushed-back expiry',
      );
      assertRefused(
        await get(`${lod.pathname}?signature=${signature}`),
        /not signed for this file/,
        'no expiry',
      );
      assertRefused(await get(`${lod.pathname}?expires=abc&signature=x`), /not signed for this file/, 'junk');
    });

    void it('refuses a correctly signed URL once it has expired', async () => {
      // Signed with the server's own key, by a clock set back past a whole lifetime.
      const pastSigner = createFileUrlSigner({
        key: fileSigningKey(undefined, TEST_TOKEN),
        lifetimeMs: LIFETIME_SECONDS * 1000,
        now: () => Date.now() - (LIFETIME_SECONDS + 5) * 1000,
      });
      const key = sourceKey(model.id, 'CesiumMilkTruck.glb');
      assertRefused(await get(pathOf(pastSigner.sign(key, 'http://x'))), /has expired/, 'expired');
      // The same signer a little later in the past makes a URL still valid: the refusal is the expiry alone.
      const recentSigner = createFileUrlSigner({
        key: fileSigningKey(undefined, TEST_TOKEN),
        lifetimeMs: LIFETIME_SECONDS * 1000,
        now: () => Date.now() - 5 * 1000,
      });
      assert.equal((await get(pathOf(recentSigner.sign(key, 'http://x')))).statusCode, 200);
    });

    void it('serves an unsigned address to a request with a valid API token, and refuses a wrong one', async () => {
      const guessed = `/files/${sourceKey(model.id, 'CesiumMilkTruck.glb')}`;
      const served = await get(guessed, testApp.auth);
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['cache-control'], 'private, no-cache');
      assertRefused(
        await get(guessed, { 'x-api-token': 'not-the-token' }),
        /invalid API token/,
        'wrong token',
      );
    });

    void it("serves a share's files through the link, and nothing once the share is revoked", async () => {
      const share = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${model.id}/shares`,
        headers: testApp.auth,
      });
      assert.equal(share.statusCode, 201, share.body);
      const { id: shareId, url: pageUrl } = share.json().data as { id: string; url: string };
      const secret = pageUrl.slice(pageUrl.lastIndexOf('/') + 1);
      const shared = (await get(`/s/${secret}/models/${model.id}`)).json().data;
      const sharedUrls: string[] = [shared.thumbnail_url, ...shared.lods.map((lod: ModelJson) => lod.url)];
      for (const url of sharedUrls) {
        assert.doesNotMatch(url, /\/files\//, 'a share hands out only URLs under its own link');
        assert.equal((await get(pathOf(url))).statusCode, 200, url);
      }
      // What the recipient learnt (id, file name, the LOD's hashed name from the bytes) opens nothing unsigned.
      assertRefused(
        await get(`/files/${sourceKey(model.id, 'CesiumMilkTruck.glb')}`),
        /signed URL/,
        'original',
      );
      assertRefused(await get(filePath(model.lods[0].url)), /signed URL/, 'LOD');

      const revoked = await testApp.app.inject({
        method: 'DELETE',
        url: `/api/models/${model.id}/shares/${shareId}`,
        headers: testApp.auth,
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      for (const url of sharedUrls) {
        const after = await get(pathOf(url));
        assert.equal(after.statusCode, 404, `${url} after revocation: ${after.body}`);
        assert.equal(after.rawPayload.includes('glTF'), false);
      }
      assertRefused(await get(`/files/${sourceKey(model.id, 'CesiumMilkTruck.glb')}`), /signed URL/, 'after');
    });
  });
}

void describe('file URL signer', () => {
  const key = Buffer.alloc(32, 7);
  void it('hands out one URL per half lifetime, each with at least half the lifetime left', () => {
    let now = Date.UTC(2026, 0, 1, 0, 0, 0);
    const signer = createFileUrlSigner({ key, lifetimeMs: 600_000, now: () => now });
    const at = (ms: number) => {
      now = Date.UTC(2026, 0, 1, 0, 0, 0) + ms;
      const url = new URL(signer.sign('models/a/lod0-x.glb', 'https://v.example'));
      return Number(url.searchParams.get('expires'));
    };
    const first = at(0);
    assert.equal(at(299_000), first, 'the same URL within the step');
    assert.equal(at(300_000), first + 300, 'the next step');
    for (const ms of [0, 1_000, 150_000, 299_999, 300_000, 599_999]) {
      const left = at(ms) - Math.floor(now / 1000);
      assert.ok(left > 300 && left <= 600, `${ms} ms: ${left} s left`);
    }
  });

  void it('signs the decoded key, so the URL encodes names with spaces and accents', () => {
    const signer = createFileUrlSigner({ key, lifetimeMs: 600_000 });
    const url = new URL(signer.sign('models/a/source/vieux camion é.glb', 'https://v.example'));
    assert.equal(url.pathname, '/files/models/a/source/vieux%20camion%20%C3%A9.glb');
    const query = Object.fromEntries(url.searchParams);
    assert.equal(signer.check('models/a/source/vieux camion é.glb', query).valid, true);
    assert.equal(signer.check('models/a/source/vieux camion e.glb', query).valid, false);
  });

  void it('refuses a signature altered where a decoder would not see it: spare bits or stray characters', () => {
    const signer = createFileUrlSigner({ key, lifetimeMs: 600_000 });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    /** The same text with its last character's lowest bit flipped: a bit past the signature's last byte. */
    const spareBitFlipped = (text: string) =>
      text.slice(0, -1) + alphabet[alphabet.indexOf(text.at(-1)!) ^ 1];
    const query = Object.fromEntries(
      new URL(signer.sign('models/a/lod0-x.glb', 'https://v.example')).searchParams,
    );
    const signature = query.signature!;
    assert.ok(signature, `a signature in ${Object.keys(query).join(', ')}`);
    assert.deepEqual(
      Buffer.from(spareBitFlipped(signature), 'base64url'),
      Buffer.from(signature, 'base64url'),
      'the flipped bit decodes to the same bytes',
    );
    for (const altered of [
      spareBitFlipped(signature),
      `${signature}!`,
      `${signature.slice(0, 10)}.${signature.slice(10)}`,
    ])
      assert.deepEqual(signer.check('models/a/lod0-x.glb', { ...query, signature: altered }), {
        valid: false,
        reason: 'altered',
      });
    assert.equal(signer.check('models/a/lod0-x.glb', query).valid, true);

    const folderUrl = signer.signFolder('models/a/tiles/0.glb', 'models/a/', 'https://v.example');
    const segment = new URL(folderUrl).pathname.split('/')[2]!;
    assert.equal(signer.checkFolder(segment, 'models/a/tiles/0.glb').valid, true);
    assert.deepEqual(signer.checkFolder(spareBitFlipped(segment), 'models/a/tiles/0.glb'), {
      valid: false,
      reason: 'altered',
    });
  });

  void it('derives different keys from different secrets, and never the token itself', () => {
    const fromToken = fileSigningKey(undefined, 'token-1234');
    assert.deepEqual(
      fromToken,
      fileSigningKey(undefined, 'token-1234'),
      'every process with the token agrees',
    );
    const mine = createFileUrlSigner({ key: fromToken, lifetimeMs: 600_000 });
    const theirs = createFileUrlSigner({
      key: fileSigningKey('s'.repeat(32), 'token-1234'),
      lifetimeMs: 600_000,
    });
    const query = Object.fromEntries(
      new URL(theirs.sign('models/a/lod0-x.glb', 'https://v.example')).searchParams,
    );
    assert.deepEqual(mine.check('models/a/lod0-x.glb', query), { valid: false, reason: 'altered' });
    assert.notDeepEqual(fromToken, fileSigningKey(undefined, 'token-5678'));
    assert.notDeepEqual(fromToken, fileSigningKey('x'.repeat(32), 'token-1234'));
    assert.equal(fromToken.includes(Buffer.from('token-1234')), false);
  });
});
