// Share links: managed under /api/models/:id/shares, opened at /s/<secret> with no token, answering only for their
// own model, never for anything under /api, and dead the moment they are revoked.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi, catalogError, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { errorText, materialApi } from '../helpers/material-api.ts';
import { documentedApiRoutes, fillPath, type DocumentedRoute } from '../helpers/openapi-routes.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';

const SHARE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <title>Vitrine</title>
  </head>
  <body><div id="share"></div></body>
</html>
`;

/** Every public route under a share secret, with `{id}` for the model and `{level}`. */
const SHARED_ROUTES = [
  '/models/{id}',
  '/models/{id}/parts',
  '/models/{id}/annotations',
  '/models/{id}/parts/{group_id}',
  '/models/{id}/lod/{level}',
  '/models/{id}/thumbnail',
  '/models/{id}/tileset/tileset.json',
];

for (const dialect of testDialects()) {
  void describe(`share links (${dialect})`, () => {
    let testApp: TestApp;
    let distDir: string;
    let shared: ModelJson;
    let other: ModelJson;
    let materialId: number;
    const admin = () => testApp.auth['x-api-token']!;

    before(async () => {
      distDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-share-dist-'));
      fs.writeFileSync(path.join(distDir, 'share.html'), SHARE_HTML);
      testApp = await createTestApp(dialect, { WEB_DIST_DIR: distDir });
      testApp.startJobRunner();
      const catalog = catalogApi(testApp.app, testApp.auth);
      const first = await catalog.create('shared.glb', await twoPartGlb('shared-group'), {
        name: 'Shared <b>truck</b>',
      });
      const second = await catalog.create('other.glb', await twoPartGlb('other-group'));
      shared = await waitForStatus(testApp.app, first.id, ['completed']);
      other = await waitForStatus(testApp.app, second.id, ['completed']);
      const materials = materialApi(testApp.app, testApp.auth);
      const red = await materials.create({ name: 'Red', diffuse_r: 220, diffuse_g: 10, diffuse_b: 10 });
      materialId = red.id;
      const bound = await materials.call('POST', `/materials/${red.id}/bindings`, {
        group_ids: ['shared-group'],
      });
      assert.equal(bound.status, 200, bound.text);
    });
    after(async () => {
      await testApp.close();
      fs.rmSync(distDir, { recursive: true, force: true });
    });

    const get = async (url: string, headers: Record<string, string> = {}) => {
      const response = await testApp.app.inject({ method: 'GET', url, headers });
      return {
        status: response.statusCode,
        text: response.body,
        headers: response.headers,
        raw: response.rawPayload,
      };
    };
    const createShare = async (modelId: string) => {
      const response = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${modelId}/shares`,
        headers: testApp.auth,
      });
      assert.equal(response.statusCode, 201, response.body);
      const data = JSON.parse(response.body).data as { id: string; url: string; created_at: string };
      return { ...data, secret: /\/s\/([A-Za-z0-9_-]+)$/.exec(data.url)![1]! };
    };
    const revoke = (modelId: string, shareId: string) =>
      testApp.app.inject({
        method: 'DELETE',
        url: `/api/models/${modelId}/shares/${shareId}`,
        headers: testApp.auth,
      });

    void it('creates a link with an unguessable secret and lists it', async () => {
      const share = await createShare(shared.id);
      assert.match(share.url, /^http:\/\/localhost(:\d+)?\/s\/[A-Za-z0-9_-]{43}$/);
      const list = await get(`/api/models/${shared.id}/shares`, testApp.auth);
      assert.equal(list.status, 200);
      assert.deepEqual(JSON.parse(list.text).data, [
        {
          id: share.id,
          url: share.url,
          annotations: false,
          configurations: false,
          version: null,
          created_at: share.created_at,
        },
      ]);
      const stored = await testApp.database.db.selectFrom('model_shares').selectAll().execute();
      assert.equal(stored.length, 1);
      assert.notEqual(stored[0]!.secret_hash, share.secret);
    });

    void it('opens its own model with no token: the model, its painted parts and its LOD files', async () => {
      const { secret } = await createShare(shared.id);
      const list = await get(`/s/${secret}/models`);
      assert.equal(list.status, 200, list.text);
      const [model] = JSON.parse(list.text).data;
      assert.equal(model.id, shared.id);
      assert.equal(model.name, 'Shared <b>truck</b>');
      assert.equal(model.status, 'completed');
      assert.equal(model.original_filename, undefined, 'catalog internals stay hidden');
      // The page's measures read in the model's unit, as the model page's do.
      assert.ok('unit' in model && 'source_unit' in model, 'the units are shown');
      assert.equal(model.lods.length, 3);
      const one = await get(`/s/${secret}/models/${shared.id}`);
      assert.deepEqual(JSON.parse(one.text).data, model);

      const parts = JSON.parse((await get(`/s/${secret}/models/${shared.id}/parts`)).text).data;
      const painted = parts.find((part: { group_id: string }) => part.group_id === 'shared-group');
      assert.equal(painted.material.id, materialId);
      assert.equal(painted.material.diffuse_r, 220);
      const part = JSON.parse((await get(`/s/${secret}/models/${shared.id}/parts/shared-group`)).text).data;
      assert.deepEqual({ ...part, properties: undefined }, { ...painted, properties: undefined });
      assert.deepEqual(part.properties, {});
      const found = await get(`/s/${secret}/models/${shared.id}/parts?q=${encodeURIComponent(painted.name)}`);
      assert.deepEqual(
        JSON.parse(found.text).data.map((one: { group_id: string }) => one.group_id),
        ['shared-group'],
      );
      assert.equal((await get(`/s/${secret}/models/${shared.id}/parts/other-group`)).status, 404);
      assert.equal((await get(`/s/${secret}/models/${shared.id}/parts?where=bad`)).status, 400);

      for (const lod of model.lods) {
        assert.match(lod.url, new RegExp(`/s/${secret}/models/${shared.id}/lod/${lod.level}$`));
        const file = await get(pathOf(lod.url));
        assert.equal(file.status, 200);
        assert.equal(file.headers['content-type'], 'model/gltf-binary');
        assert.equal(file.raw.subarray(0, 4).toString('latin1'), 'glTF');
        assert.equal(file.raw.length, lod.size);
        assert.equal(file.headers['cache-control'], 'private, no-cache');
      }
      const thumbnail = await get(`/s/${secret}/models/${shared.id}/thumbnail`);
      assert.equal(thumbnail.status, 200);
      assert.equal(thumbnail.headers['content-type'], 'image/png');
    });

    void it("answers 404 for another model's id on every route under the secret", async () => {
      const { secret } = await createShare(shared.id);
      for (const route of SHARED_ROUTES) {
        for (const id of [other.id, 'not-a-uuid']) {
          const url = `/s/${secret}${fillPath(route, { id, level: '0', group_id: 'shared-group' })}`;
          const answer = await get(url);
          assert.equal(answer.status, 404, url);
          assert.equal(answer.text, catalogError('Share link not found'), url);
        }
      }
      for (const url of [`/s/${secret}/nothing`, `/s/${secret}/models/${shared.id}/lod/7`]) {
        assert.equal((await get(url)).status, 404, url);
      }
    });

    void it('opens nothing under /api: the secret is no token on any documented route', async () => {
      const { secret } = await createShare(shared.id);
      const routes: DocumentedRoute[] = await documentedApiRoutes(testApp.app);
      assert.ok(routes.length >= 20);
      for (const route of routes) {
        const url = fillPath(route.path, {
          id: route.path.startsWith('/api/v1/') ? String(materialId) : shared.id,
          level: '0',
          share_id: shared.id,
          delivery_id: '1',
          annotation_id: shared.id,
          view_id: shared.id,
          cid: shared.id,
          group_id: 'shared-group',
          n: '1',
          a: '1',
          b: '1',
        });
        for (const headers of [{ 'x-api-token': secret }, {}]) {
          const response = await testApp.app.inject({ method: route.method as 'GET', url, headers });
          const message = 'x-api-token' in headers ? 'invalid API token' : 'missing API token';
          const label = `${route.method} ${route.path}`;
          assert.equal(response.statusCode, 401, label);
          assert.equal(
            response.body,
            route.path.startsWith('/api/v1/') ? errorText(401, message) : catalogError(message),
            label,
          );
        }
      }
    });

    void it('serves the page with the model title, oEmbed discovery and a CSP any site may frame', async () => {
      const { secret, url } = await createShare(shared.id);
      for (const query of ['', '?embed=1']) {
        const page = await get(`/s/${secret}${query}`);
        assert.equal(page.status, 200);
        assert.match(String(page.headers['content-type']), /^text\/html/);
        assert.match(page.text, /<title>Shared &#60;b&#62;truck&#60;\/b&#62; · Vitrine<\/title>/);
        const base = url.slice(0, url.indexOf('/s/'));
        const discovery = `${base}/oembed?url=${encodeURIComponent(url)}&#38;format=json`;
        assert.ok(page.text.includes(`type="application/json+oembed" href="${discovery}"`), page.text);
        const csp = String(page.headers['content-security-policy']);
        assert.match(csp, /frame-ancestors \*/);
        assert.match(csp, /script-src 'self'/);
        assert.doesNotMatch(
          csp.split('; ').find((d) => d.startsWith('script-src'))!,
          /'unsafe-eval'|'unsafe-inline'/,
        );
        assert.equal(page.headers['x-frame-options'], undefined);
        assert.equal(page.headers['x-content-type-options'], 'nosniff');
        assert.equal(page.headers['cache-control'], 'no-store');
      }
      const viewer = await get('/');
      assert.match(String(viewer.headers['content-security-policy']), /frame-ancestors 'none'/);
      const data = await get(`/s/${secret}/models`);
      assert.match(String(data.headers['content-security-policy']), /sandbox/);
    });

    void it('answers oEmbed with an iframe of the bare viewer, bounded by maxwidth and maxheight', async () => {
      const { secret, url } = await createShare(shared.id);
      const answer = await get(
        `/oembed?url=${encodeURIComponent(url)}&format=json&maxwidth=320&maxheight=1000`,
      );
      assert.equal(answer.status, 200, answer.text);
      const oembed = JSON.parse(answer.text);
      assert.equal(oembed.version, '1.0');
      assert.equal(oembed.type, 'rich');
      assert.equal(oembed.title, 'Shared <b>truck</b>');
      assert.equal(oembed.width, 320);
      assert.equal(oembed.height, 480);
      assert.equal(
        oembed.html,
        `<iframe src="${url}?embed=1" width="320" height="480" title="Shared &#60;b&#62;truck&#60;/b&#62;" style="border:0" allow="fullscreen" loading="lazy"></iframe>`,
      );
      const cases: [string, number, string][] = [
        [`/oembed?url=${encodeURIComponent(url)}&format=xml`, 501, 'only format=json is offered'],
        ['/oembed', 400, 'url is required'],
        [
          `/oembed?url=${encodeURIComponent(url.replace(secret, 'x'.repeat(43)))}`,
          404,
          'Share link not found',
        ],
        [
          `/oembed?url=${encodeURIComponent(`https://elsewhere.example/s/${secret}`)}`,
          404,
          'Share link not found',
        ],
        [
          `/oembed?url=${encodeURIComponent(`http://localhost/api/models/${shared.id}`)}`,
          404,
          'Share link not found',
        ],
      ];
      for (const [request, status, message] of cases) {
        const refused = await get(request);
        assert.equal(refused.status, status, request);
        assert.equal(refused.text, catalogError(message), request);
      }
    });

    void it('kills a revoked link at once: page, data, files and oEmbed all answer 404', async () => {
      const share = await createShare(shared.id);
      const model = JSON.parse((await get(`/s/${share.secret}/models`)).text).data[0];
      const revoked = await revoke(shared.id, share.id);
      assert.equal(revoked.statusCode, 200);
      assert.equal(revoked.body, JSON.stringify({ success: true, message: 'Share link revoked' }));
      const page = await get(`/s/${share.secret}`);
      assert.equal(page.status, 404);
      assert.match(page.text, /This link is not available/);
      for (const url of [
        `/s/${share.secret}/models`,
        ...SHARED_ROUTES.map(
          (route) =>
            `/s/${share.secret}${fillPath(route, { id: shared.id, level: '0', group_id: 'shared-group' })}`,
        ),
        pathOf(model.lods[0].url),
      ]) {
        const answer = await get(url);
        assert.equal(answer.status, 404, url);
        assert.equal(answer.text, catalogError('Share link not found'), url);
      }
      assert.equal((await get(`/oembed?url=${encodeURIComponent(share.url)}`)).status, 404);
      const again = await revoke(shared.id, share.id);
      assert.equal(again.statusCode, 404);
      assert.equal(again.body, catalogError('Share link not found'));
      const listed = JSON.parse((await get(`/api/models/${shared.id}/shares`, testApp.auth)).text).data;
      assert.ok(!listed.some((entry: { id: string }) => entry.id === share.id));
    });

    void it("refuses a share id of another model, and removes a model's links with the model", async () => {
      const share = await createShare(shared.id);
      assert.equal((await revoke(other.id, share.id)).statusCode, 404);
      assert.equal((await get(`/s/${share.secret}/models`)).status, 200);
      const otherShare = await createShare(other.id);
      const deleted = await testApp.app.inject({
        method: 'DELETE',
        url: `/api/models/${other.id}`,
        headers: { 'x-api-token': admin() },
      });
      assert.equal(deleted.statusCode, 200);
      assert.equal((await get(`/s/${otherShare.secret}/models`)).status, 404);
      const missing = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${other.id}/shares`,
        headers: testApp.auth,
      });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.body, catalogError('Model not found'));
      const malformed = await get(`/api/models/${shared.id}/shares/nope`, testApp.auth);
      assert.equal(malformed.status, 404, 'GET on the revoke path is no route');
      const badId = await testApp.app.inject({
        method: 'DELETE',
        url: `/api/models/${shared.id}/shares/nope`,
        headers: testApp.auth,
      });
      assert.equal(badId.statusCode, 400);
      assert.equal(badId.body, catalogError('Invalid share id'));
    });
  });
}
