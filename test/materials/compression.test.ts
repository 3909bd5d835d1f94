import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { materialApi, type MaterialJson } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const GROUPS = Array.from({ length: 3000 }, (_, i) => `model:${i}`);

for (const dialect of testDialects()) {
  void describe(`compressed replies (${dialect})`, () => {
    let testApp: TestApp;
    let material: MaterialJson;
    before(async () => {
      testApp = await createTestApp(dialect);
      const api = materialApi(testApp.app, testApp.auth);
      material = await api.create({ name: 'Steel', metallic: 1 });
      await api.bind(material.id, GROUPS.slice(0, 2000));
    });
    after(() => testApp.close());

    const lookup = (acceptEncoding?: string) =>
      testApp.app.inject({
        method: 'POST',
        url: '/api/v1/groups/materials',
        headers: {
          ...testApp.auth,
          'content-type': 'application/json',
          ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}),
        },
        payload: JSON.stringify({ group_ids: GROUPS, include_default: true }),
      });

    void it('sends br or gzip as the client prefers, byte-identical to the plain reply once decoded', async () => {
      const plain = await lookup();
      assert.equal(plain.statusCode, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(JSON.parse(plain.body).data.length, GROUPS.length);

      const decoders = { br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync };
      for (const [accept, encoding] of [
        ['br', 'br'],
        ['gzip', 'gzip'],
        ['gzip, deflate, br', 'br'],
        ['gzip;q=1, br;q=0.5', 'gzip'],
      ] as const) {
        const answer = await lookup(accept);
        assert.equal(answer.statusCode, 200, accept);
        assert.equal(answer.headers['content-encoding'], encoding, accept);
        assert.match(String(answer.headers.vary), /accept-encoding/i);
        const body = answer.rawPayload;
        assert.ok(body.length * 10 < plain.rawPayload.length, `${accept}: ${body.length} bytes`);
        assert.ok(decoders[encoding](body).equals(plain.rawPayload), `${accept} decodes to the same bytes`);
        assert.equal(answer.headers.etag, plain.headers.etag, 'one tag for every encoding');
      }
      const identity = await lookup('identity');
      assert.equal(identity.headers['content-encoding'], undefined);
      assert.ok(identity.rawPayload.equals(plain.rawPayload));
    });

    void it('leaves small replies and stored files alone', async () => {
      const small = await testApp.app.inject({
        url: `/api/v1/materials/${material.id}`,
        headers: { ...testApp.auth, 'accept-encoding': 'br, gzip' },
      });
      assert.equal(small.statusCode, 200);
      assert.equal(small.headers['content-encoding'], undefined);

      // A GLB is compressed already; the same holds for every stored file.
      const glb = Buffer.concat([Buffer.from('glTF'), Buffer.alloc(64 * 1024, 'a')]);
      await testApp.blobs.putBytes('models/compression-test/lod0.glb', glb);
      const file = await testApp.app.inject({
        url: '/files/models/compression-test/lod0.glb',
        headers: { ...testApp.auth, 'accept-encoding': 'br, gzip' },
      });
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-encoding'], undefined);
      assert.ok(file.rawPayload.equals(glb));
    });
  });
}
