// 3D Tiles through the API: a model above TILES_ABOVE_TRIANGLES gets a tileset stored under its prefix, handed out
// as a folder-granted URL whose relative tile URIs resolve under the same grant, served under its share links and
// nowhere else, rebuilt on reprocess (the old folder removed) and deleted with the model.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Document, NodeIO } from '@gltf-transform/core';
import type { StructuralMetadata } from '@gltf-transform/extensions';
import { readGlb, validationErrors } from '../pipeline/documents.ts';
import { twoPartGlb } from './tiny-model.ts';
import { catalogApi, catalogError, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';

/** A GLB of one triangle: below a threshold of one triangle. */
async function oneTriangleGlb(): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const position = document
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setBuffer(buffer);
  const mesh = document
    .createMesh('Lone')
    .addPrimitive(document.createPrimitive().setAttribute('POSITION', position));
  document.createScene().addChild(document.createNode('Lone').setMesh(mesh));
  return new NodeIO().writeBinary(document);
}

/** The group ids of a tile's table of parts. */
function groupIds(document: Document): string[] {
  const metadata = document.getRoot().getExtension<StructuralMetadata>('EXT_structural_metadata')!;
  const [table] = metadata.listPropertyTables();
  const column = table.getProperty('group_id')!;
  const offsets = new Uint32Array(column.getStringOffsets()!.slice().buffer);
  return Array.from({ length: table.getCount() }, (_, i) =>
    new TextDecoder().decode(column.getValues().subarray(offsets[i], offsets[i + 1])),
  );
}

/** Content URIs of every tile of a tileset.json. */
function contentUris(tileset: { root: TileNode }): string[] {
  const walk = (tile: TileNode): string[] => [tile.content.uri, ...(tile.children ?? []).flatMap(walk)];
  return walk(tileset.root);
}
interface TileNode {
  content: { uri: string };
  children?: TileNode[];
}

for (const dialect of testDialects()) {
  void describe(`3D Tiles tilesets (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let tiled: ModelJson;
    const get = async (url: string, headers: Record<string, string> = {}) => {
      const response = await testApp.app.inject({ method: 'GET', url, headers });
      return {
        status: response.statusCode,
        text: response.body,
        headers: response.headers,
        raw: response.rawPayload,
      };
    };
    const modelFolder = (id: string) => path.join(testApp.config.dataDir, 'files', 'models', id);
    const tilesetFolders = (id: string) =>
      fs.existsSync(modelFolder(id))
        ? fs.readdirSync(modelFolder(id)).filter((name) => name.startsWith('tileset-'))
        : [];

    before(async () => {
      testApp = await createTestApp(dialect, { TILES_ABOVE_TRIANGLES: '1' });
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
      const created = await api.create('parts.glb', await twoPartGlb('tiled-group'));
      tiled = await waitForStatus(testApp.app, created.id, ['completed', 'failed'], 60_000);
      assert.equal(tiled.status, 'completed', tiled.error);
    });
    after(() => testApp.close());

    void it('hands out a tileset whose relative tile URIs resolve under the same grant, with every part', async () => {
      assert.match(
        tiled.tileset_url,
        /^http:\/\/localhost(:\d+)?\/folders\/[^/]+\/models\/[^/]+\/tileset-[0-9a-f]{16}\/tileset\.json$/,
      );
      const tilesetUrl = new URL(tiled.tileset_url as string);
      const answer = await get(pathOf(tilesetUrl.href));
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.headers['content-type'], 'application/json');
      assert.match(String(answer.headers['cache-control']), /^private, max-age=\d+$/);
      const tileset = JSON.parse(answer.text) as { asset: { version: string }; root: TileNode };
      assert.equal(tileset.asset.version, '1.1');
      const found = new Set<string>();
      for (const uri of contentUris(tileset)) {
        // As a 3D Tiles client resolves it: against the tileset's own URL.
        const tile = await get(pathOf(new URL(uri, tilesetUrl).href));
        assert.equal(tile.status, 200, `${uri}: ${tile.text}`);
        assert.equal(tile.headers['content-type'], 'model/gltf-binary');
        assert.deepEqual(await validationErrors(tile.raw), [], `${uri} validates`);
        for (const id of groupIds(await readGlb(tile.raw))) found.add(id);
      }
      assert.deepEqual(
        [...found].sort(),
        ['tiled-group', `${tiled.id}:1`].sort(),
        'both parts are in the tiles',
      );
      // Its thumbnail was drawn from a cut through the tree.
      const thumbnail = await get(pathOf(tiled.thumbnail_url as string));
      assert.equal(thumbnail.status, 200, thumbnail.text);
      assert.equal(thumbnail.raw.toString('latin1', 1, 4), 'PNG');
    });

    void it('refuses a folder grant that is altered or used outside its folder', async () => {
      const url = new URL(tiled.tileset_url as string);
      const [, , grant] = url.pathname.split('/');
      const lodKey = pathOf(tiled.lods[0].url)
        .split('?')[0]
        .replace(/^\/files\//, '');
      const altered = grant!.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
      for (const attempt of [
        url.pathname.replace(grant!, altered),
        `/folders/${grant}/${lodKey}`,
        `/folders/${grant}/models/${tiled.id}/source/parts.glb`,
        url.pathname.replace('tileset.json', 'tiles/%2e%2e/%2e%2e/tileset.json'),
      ]) {
        const answer = await get(attempt);
        assert.equal(answer.status, 404, `${attempt}: ${answer.text}`);
      }
      assert.equal((await get(url.pathname.replace('tileset.json', 'tiles/9-9.glb'))).status, 404);
    });

    void it('leaves tileset_url null for a model at or below the threshold', async () => {
      const created = await api.create('lone.glb', await oneTriangleGlb());
      const done = await waitForStatus(testApp.app, created.id, ['completed', 'failed'], 60_000);
      assert.equal(done.status, 'completed', done.error);
      assert.equal(done.tileset_url, null);
      assert.deepEqual(tilesetFolders(created.id), []);
    });

    void it('serves the tileset under a share link, and nothing else there', async () => {
      const created = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${tiled.id}/shares`,
        headers: testApp.auth,
      });
      assert.equal(created.statusCode, 201, created.body);
      const secret = /\/s\/([A-Za-z0-9_-]+)$/.exec(JSON.parse(created.body).data.url as string)![1]!;
      const shared = JSON.parse((await get(`/s/${secret}/models/${tiled.id}`)).text).data as ModelJson;
      assert.match(shared.tileset_url, new RegExp(`/s/${secret}/models/${tiled.id}/tileset/tileset\\.json$`));
      const tilesetUrl = new URL(shared.tileset_url as string);
      const answer = await get(pathOf(tilesetUrl.href));
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.headers['cache-control'], 'private, no-cache');
      for (const uri of contentUris(JSON.parse(answer.text) as { root: TileNode })) {
        const tile = await get(pathOf(new URL(uri, tilesetUrl).href));
        assert.equal(tile.status, 200, `${uri}: ${tile.text}`);
        assert.equal(tile.headers['content-type'], 'model/gltf-binary');
      }
      const base = `/s/${secret}/models/${tiled.id}/tileset`;
      for (const [url, error] of [
        [`${base}/tiles/9-9.glb`, 'Tileset file not found'],
        [`${base}/tiles/0.json`, 'Tileset file not found'],
        [`${base}/tiles/..%2F..%2Flod0.glb`, 'Tileset file not found'],
        // No route: the link's own answer for anything it does not open.
        [`${base}/tiles%2F..%2F..%2Flod0.glb`, 'Share link not found'],
        [`${base}/lod0.glb`, 'Share link not found'],
        [
          `/s/${secret}/models/00000000-0000-4000-8000-000000000000/tileset/tileset.json`,
          'Share link not found',
        ],
      ] as const) {
        const refused = await get(url);
        assert.equal(refused.status, 404, url);
        assert.equal(refused.text, catalogError(error), url);
      }
    });

    void it('rebuilds the tileset on reprocess, removing the folder it replaces, and deletes it with the model', async () => {
      // A tileset recorded by an earlier conversion, in a folder of its own.
      const oldKey = `models/${tiled.id}/tileset-0000000000000000/tileset.json`;
      await testApp.blobs.putBytes(oldKey, new TextEncoder().encode('{}'));
      await testApp.database.db
        .updateTable('models')
        .set({ tileset_key: oldKey })
        .where('id', '=', tiled.id)
        .execute();
      assert.equal(tilesetFolders(tiled.id).length, 2);

      const reprocess = await api.call('POST', `/${tiled.id}/reprocess`);
      assert.equal(reprocess.status, 200, reprocess.text);
      const done = await waitForStatus(testApp.app, tiled.id, ['completed', 'failed'], 60_000);
      assert.equal(done.status, 'completed', done.error);
      assert.equal(
        new URL(done.tileset_url as string).pathname.split('/').slice(3).join('/'),
        new URL(tiled.tileset_url as string).pathname.split('/').slice(3).join('/'),
      );
      // The replaced folder goes after the model is completed (a client that saw it completed may still be
      // reading the old one's tiles a moment longer): wait for it.
      const current = [new URL(tiled.tileset_url as string).pathname.split('/')[5]];
      for (let tries = 0; tries < 100 && tilesetFolders(tiled.id).length > 1; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(tilesetFolders(tiled.id), current, 'the old folder is gone');
      assert.equal((await get(pathOf(done.tileset_url as string))).status, 200);

      const removed = await api.call('DELETE', `/${tiled.id}`);
      assert.ok(removed.status === 200 || removed.status === 204, removed.text);
      assert.deepEqual(tilesetFolders(tiled.id), [], 'the tileset went with the model');
      assert.equal((await get(pathOf(done.tileset_url as string))).status, 404);
    });
  });
}
