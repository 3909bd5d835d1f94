// The catalog on S3 storage (s3rver): an upload converts, every handed-out file URL leads to the right bytes through
// a presigned GET (the API never relays them), originals still download as attachments, and a delete leaves no
// object of the model in the bucket.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { catalogApi, pathOf, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';

const PREFIX = 'vitrine';
const TRUCK = 'glb/CesiumMilkTruck.glb';

for (const dialect of testDialects()) {
  void describe(`catalog on S3 storage (${dialect})`, () => {
    let s3: TestS3Server;
    let testApp: TestApp;
    let bucket: S3Client;
    let model: ModelJson;
    before(async () => {
      s3 = await startS3Server();
      // The SDK's default chain reads the credentials from the environment, as in production.
      Object.assign(process.env, S3RVER_CREDENTIALS);
      // Every model tiled, so the tileset's folder URLs are followed to the bucket too.
      testApp = await createTestApp(dialect, { ...s3.env(PREFIX), TILES_ABOVE_TRIANGLES: '0' });
      testApp.startJobRunner();
      bucket = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      const created = await catalogApi(testApp.app, testApp.auth).create('Milk truck.glb', sample(TRUCK));
      model = await waitForStatus(testApp.app, created.id as string, ['completed', 'failed']);
      assert.equal(model.status, 'completed', model.error as string);
    });
    after(async () => {
      bucket.destroy();
      await testApp.close();
      await s3.close();
    });

    /** Every key in the bucket. */
    const bucketKeys = async (): Promise<string[]> => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await bucket.send(
          new ListObjectsV2Command({ Bucket: s3.bucket, ContinuationToken: token }),
        );
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    };
    /** Follows a handed-out URL: the app's 302, then a plain fetch of the presigned URL it names. */
    const follow = async (url: string, headers: Record<string, string> = {}) => {
      const redirect = await testApp.app.inject({ method: 'GET', url: pathOf(url), headers });
      assert.equal(redirect.statusCode, 302, `${url} redirects (${redirect.body})`);
      const location = String(redirect.headers.location);
      assert.ok(location.startsWith(`${s3.endpoint}/${s3.bucket}/${PREFIX}/models/`), location);
      const file = await fetch(location);
      assert.equal(file.status, 200, location);
      return { redirect, file, bytes: Buffer.from(await file.arrayBuffer()) };
    };

    void it('keeps the upload, LODs and thumbnail in the bucket under the prefix', async () => {
      const keys = (await bucketKeys()).filter((key) => key.includes(model.id as string));
      assert.ok(keys.includes(`${PREFIX}/models/${model.id}/source/Milk_truck.glb`), keys.join());
      // A level that could not shrink (`reduced: false` past LOD 0) shares the file of the level before it.
      const ownFiles = (model.lods as { level: number; reduced: boolean | null }[]).filter(
        (lod) => lod.level === 0 || lod.reduced !== false,
      );
      assert.equal(keys.filter((key) => /\/lod\d-[0-9a-f]+\.glb$/.test(key)).length, ownFiles.length);
      assert.ok(
        keys.some((key) => /thumbnail/.test(key)),
        keys.join(),
      );
    });

    void it('hands out signed /files/ URLs that redirect to presigned GETs of the right bytes', async () => {
      assert.match(model.model_url as string, /^http:\/\/localhost(:\d+)?\/files\/models\/[^?]+\?expires=/);
      const lod0 = await follow(model.model_url as string);
      assert.equal(lod0.file.headers.get('content-type'), 'model/gltf-binary');
      assert.equal(lod0.bytes.subarray(0, 4).toString('latin1'), 'glTF');
      // Reused for half the presigned URL's life at most, which itself ends no later than the signature.
      const reuse = Number(
        /^private, max-age=(\d+)$/.exec(String(lod0.redirect.headers['cache-control']))?.[1],
      );
      assert.ok(reuse >= 900 && reuse <= 1800, String(lod0.redirect.headers['cache-control']));
      const presigned = Number(/X-Amz-Expires=(\d+)/.exec(String(lod0.redirect.headers.location))?.[1]);
      assert.ok(presigned >= 1800 && presigned <= 3600, String(presigned));
      assert.doesNotMatch(String(lod0.file.headers.get('cache-control')), /immutable|public/);
      for (const lod of model.lods as { url: string; size: number }[]) {
        const { bytes } = await follow(lod.url);
        assert.equal(bytes.length, lod.size, lod.url);
        assert.equal(bytes.subarray(0, 4).toString('latin1'), 'glTF');
      }
      const thumbnail = await follow(model.thumbnail_url as string);
      assert.equal(thumbnail.file.headers.get('content-type'), 'image/png');
      assert.equal(thumbnail.bytes.subarray(1, 4).toString('latin1'), 'PNG');
    });

    void it('redirects a tileset and the tiles its relative URIs name to presigned GETs', async () => {
      const tilesetUrl = new URL(model.tileset_url as string);
      assert.match(
        tilesetUrl.pathname,
        /^\/folders\/[^/]+\/models\/[^/]+\/tileset-[0-9a-f]{16}\/tileset\.json$/,
      );
      const tileset = await follow(tilesetUrl.href);
      assert.equal(tileset.file.headers.get('content-type'), 'application/json');
      const json = JSON.parse(tileset.bytes.toString('utf8')) as { root: { content: { uri: string } } };
      const tile = await follow(new URL(json.root.content.uri, tilesetUrl).href);
      assert.equal(tile.file.headers.get('content-type'), 'model/gltf-binary');
      assert.equal(tile.bytes.subarray(0, 4).toString('latin1'), 'glTF');
    });

    void it('sends the original as an attachment with its bytes as uploaded', async () => {
      const original = await follow(model.original_url as string);
      assert.deepEqual(original.bytes, sample(TRUCK));
      assert.equal(original.file.headers.get('content-type'), 'model/gltf-binary');
      assert.match(
        String(original.file.headers.get('content-disposition')),
        /^attachment; filename="Milk_truck\.glb"/,
      );
    });

    void it('does not sign a path that is no stored key', async () => {
      const answer = await testApp.app.inject({
        method: 'GET',
        url: '/files/models//x.glb',
        headers: testApp.auth,
      });
      assert.equal(answer.statusCode, 404);
    });

    void it('redirects an unsigned /files/ address only for a request with a token', async () => {
      const guessed = new URL(model.original_url as string).pathname;
      const refused = await testApp.app.inject({ method: 'GET', url: guessed });
      assert.equal(refused.statusCode, 404, refused.body);
      assert.equal(refused.headers.location, undefined);
      const tampered = `${guessed}${new URL(model.model_url as string).search}`;
      assert.equal((await testApp.app.inject({ method: 'GET', url: tampered })).statusCode, 404);
      const withToken = await follow(`http://localhost${guessed}`, testApp.auth);
      assert.equal(withToken.redirect.headers['cache-control'], 'private, no-cache');
      assert.deepEqual(withToken.bytes, sample(TRUCK));
    });

    void it('lets pages load files from the bucket', async () => {
      const docs = await testApp.app.inject({ method: 'GET', url: '/docs/' });
      const csp = String(docs.headers['content-security-policy']);
      assert.match(csp, new RegExp(`connect-src [^;]*${s3.endpoint.replace(/[.:/]/g, '\\$&')}`), csp);
    });

    void it('redirects a share link to short-lived presigned GETs, and stops when it is revoked', async () => {
      const shared = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${model.id}/shares`,
        headers: testApp.auth,
      });
      assert.equal(shared.statusCode, 201, shared.body);
      const share = JSON.parse(shared.body).data as { id: string; url: string };
      const lodUrl = `${share.url}/models/${model.id}/lod/0`;
      const lod = await follow(lodUrl);
      assert.equal(lod.redirect.headers['cache-control'], 'private, no-cache');
      // A revoked link's files are out of reach within 30 s, even to someone who kept the presigned URL.
      assert.match(String(lod.redirect.headers.location), /X-Amz-Expires=30&/);
      assert.equal(lod.bytes.subarray(0, 4).toString('latin1'), 'glTF');
      const thumbnail = await follow(`${share.url}/models/${model.id}/thumbnail`);
      assert.equal(thumbnail.file.headers.get('content-type'), 'image/png');

      const revoked = await testApp.app.inject({
        method: 'DELETE',
        url: `/api/models/${model.id}/shares/${share.id}`,
        headers: testApp.auth,
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal((await testApp.app.inject({ method: 'GET', url: pathOf(lodUrl) })).statusCode, 404);
    });

    void it("redirects a scoped token's URLs to presigned GETs that end within 30 s of its revocation", async () => {
      const created = await testApp.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: testApp.auth,
        payload: { name: 'viewer', scope: 'read' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const token = created.json().data as { id: string; token: string };
      const seen = await testApp.app.inject({
        method: 'GET',
        url: `/api/models/${model.id}`,
        headers: { 'x-api-token': token.token },
      });
      const lodUrl = (seen.json().data as ModelJson).lods[0].url as string;
      assert.equal(new URL(lodUrl).searchParams.get('grant'), token.id);
      const lod = await follow(lodUrl);
      // The presigned GET and the reuse of the redirect that led to it end within 30 s of a revocation.
      const expires = Number(
        new URL(String(lod.redirect.headers.location)).searchParams.get('X-Amz-Expires'),
      );
      const reuse = Number(/max-age=(\d+)/.exec(String(lod.redirect.headers['cache-control']))?.[1]);
      assert.ok(
        expires > 0 && reuse > 0 && expires + reuse <= 30,
        `presigned ${expires} s, reused ${reuse} s`,
      );
      assert.equal(lod.bytes.subarray(0, 4).toString('latin1'), 'glTF');

      const revoked = await testApp.app.inject({
        method: 'DELETE',
        url: `/api/tokens/${token.id}`,
        headers: testApp.auth,
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      const refused = await testApp.app.inject({ method: 'GET', url: pathOf(lodUrl) });
      assert.equal(refused.statusCode, 404, refused.body);
      assert.equal(refused.headers.location, undefined);
    });

    void it('redirects a ready export to a presigned GET that downloads it under its name', async () => {
      const url = `/api/models/${model.id}/export?format=glb&lod=2`;
      const deadline = Date.now() + 60_000;
      let answer = await testApp.app.inject({ method: 'GET', url, headers: testApp.auth });
      while (answer.statusCode === 202 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await testApp.app.inject({ method: 'GET', url, headers: testApp.auth });
      }
      assert.equal(answer.statusCode, 302, answer.body);
      assert.equal(answer.headers['cache-control'], 'private, no-cache');
      const file = await fetch(String(answer.headers.location));
      assert.equal(file.headers.get('content-type'), 'model/gltf-binary');
      assert.match(
        String(file.headers.get('content-disposition')),
        /^attachment; filename="Milk truck.*\.glb"$/,
      );
      assert.equal(
        Buffer.from(await file.arrayBuffer())
          .subarray(0, 4)
          .toString('latin1'),
        'glTF',
      );
      const json = await testApp.app.inject({
        method: 'GET',
        url,
        headers: { ...testApp.auth, accept: 'application/json' },
      });
      const state = JSON.parse(json.body).data as { url: string };
      assert.match(state.url, /\/files\/models\/.+\/exports\//);
      await follow(state.url);
    });

    void it('leaves no object of a deleted model in the bucket', async () => {
      const deleted = await testApp.app.inject({
        method: 'DELETE',
        url: `/api/models/${model.id}`,
        headers: testApp.auth,
      });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.deepEqual(
        (await bucketKeys()).filter((key) => key.includes(model.id as string)),
        [],
      );
    });
  });
}
