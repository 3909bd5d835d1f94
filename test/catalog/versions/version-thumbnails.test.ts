// The model's thumbnail follows the version it serves: a completed second version shows its own picture, a restore
// of the first shows the first's again (and back), each version keeps its picture while another is current, no
// picture is left behind that nothing names, and a thumbnail a person uploaded stays whatever version is restored.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { Document, NodeIO } from '@gltf-transform/core';
import { catalogApi, pathOf } from '../../helpers/catalog-api.ts';
import { testDialects } from '../../helpers/databases.ts';
import { materialApi } from '../../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { waitForStatus } from '../../helpers/wait-for-status.ts';

/** A GLB of `count` one-triangle parts side by side: versions of different counts draw different pictures. */
async function trianglesGlb(count: number): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene('Scene');
  for (let index = 0; index < count; index++) {
    const x = index * 2;
    const position = document
      .createAccessor(`t${index}`)
      .setType('VEC3')
      .setArray(new Float32Array([x, 0, 0, x + 1, 0, 0, x, 1 + index, 0]))
      .setBuffer(buffer);
    const mesh = document
      .createMesh(`T${index}`)
      .addPrimitive(document.createPrimitive().setAttribute('POSITION', position));
    scene.addChild(document.createNode(`T${index}`).setMesh(mesh));
  }
  return new NodeIO().writeBinary(document);
}

for (const dialect of testDialects()) {
  void describe(`version thumbnails (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    /** The bytes a handed-out URL answers, failing unless 200. */
    const bytesOf = async (url: string): Promise<Buffer> => {
      const response = await testApp.app.inject({ method: 'GET', url: pathOf(url) });
      assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 200)}`);
      return response.rawPayload;
    };
    const modelPicture = async (id: string) =>
      bytesOf((await api.call('GET', `/${id}`)).json.data.thumbnail_url);
    const versionOf = async (id: string, n: number) =>
      (await api.call('GET', `/${id}/versions/${n}`)).json.data;
    const waitForVersion = async (id: string, n: number) => {
      for (let tries = 0; ; tries++) {
        const version = await versionOf(id, n);
        if (version.status === 'completed') return version;
        assert.notEqual(version.status, 'failed', version.error);
        assert.ok(tries < 1_200, `version ${n} stuck`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    /** The thumbnail files in the model's folder and its versions' folders. */
    const pictureFiles = (id: string): string[] => {
      const folder = path.join(testApp.config.dataDir, 'files', 'models', id);
      return fs
        .readdirSync(folder, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.startsWith('thumbnail-'))
        .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
        .sort();
    };
    const restore = async (id: string, n: number) => {
      const answer = await api.call('POST', `/${id}/versions/${n}/restore`);
      assert.equal(answer.status, 200, answer.text);
      return answer.json.data;
    };

    /** A model with a completed second version; its first picture and the second's. */
    async function twoVersions() {
      const id = (await api.create('one.glb', await trianglesGlb(1))).id as string;
      await waitForStatus(testApp.app, id, ['completed']);
      const first = await modelPicture(id);
      const posted = await api.postForm(
        `/${id}/versions`,
        {},
        { field: 'file', filename: 'three.glb', data: await trianglesGlb(3) },
      );
      assert.equal(posted.status, 202, posted.text);
      const second = await waitForVersion(id, 2);
      assert.ok(second.thumbnail_url, 'version 2 rendered its own picture');
      return { id, first, second: await bytesOf(second.thumbnail_url) };
    }

    void it('shows the picture of the version it serves, after a completion and each restore', async () => {
      const { id, first, second } = await twoVersions();
      assert.ok(!first.equals(second), 'the two versions draw differently');
      assert.ok((await modelPicture(id)).equals(second), 'the completed version 2 is shown');

      const restored = await restore(id, 1);
      assert.ok(restored.thumbnail_url, 'the restore answers with the model’s picture');
      assert.ok((await bytesOf(restored.thumbnail_url)).equals(first), 'version 1’s picture is back');
      const kept = await versionOf(id, 1);
      assert.ok(
        kept.thumbnail_url && (await bytesOf(kept.thumbnail_url)).equals(first),
        'version 1 keeps it',
      );
      assert.ok(
        (await bytesOf((await versionOf(id, 2)).thumbnail_url)).equals(second),
        'version 2 keeps its own',
      );

      await restore(id, 2);
      assert.ok((await modelPicture(id)).equals(second));
      await restore(id, 1);
      assert.ok((await modelPicture(id)).equals(first));
      // One picture per version and none that nothing names.
      assert.equal(pictureFiles(id).length, 2, pictureFiles(id).join(', '));

      // Version 2 deleted while version 1 is shown: the model's picture is untouched, version 2's is gone.
      assert.equal((await api.call('DELETE', `/${id}/versions/2`)).status, 204);
      assert.ok((await modelPicture(id)).equals(first));
      assert.equal(pictureFiles(id).length, 1);
    });

    void it('keeps a regenerated picture as the current version’s own, through a restore and back', async () => {
      const { id, second } = await twoVersions();
      // A bound colour makes the regenerated picture differ from the one the conversion rendered.
      const [part] = (await api.call('GET', `/${id}/parts`)).json.data as { group_id: string }[];
      const materials = materialApi(testApp.app, testApp.auth);
      const red = await materials.create({ name: 'Red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 });
      await materials.bind(red.id, [part!.group_id]);
      assert.equal((await api.call('POST', `/${id}/regenerate-thumbnail`)).status, 200);
      let regenerated = await modelPicture(id);
      for (let tries = 0; regenerated.equals(second); tries++) {
        assert.ok(tries < 1_200, 'no regenerated picture');
        await new Promise((resolve) => setTimeout(resolve, 50));
        regenerated = await modelPicture(id);
      }
      assert.ok(
        (await bytesOf((await versionOf(id, 2)).thumbnail_url)).equals(regenerated),
        'version 2 names the regenerated picture',
      );
      await restore(id, 1);
      await restore(id, 2);
      assert.ok((await modelPicture(id)).equals(regenerated), 'back on version 2, its regenerated picture');
      // Version 1's picture and version 2's new one; the one it replaced is gone.
      assert.equal(pictureFiles(id).length, 2, pictureFiles(id).join(', '));
    });

    void it('keeps a picture a person uploaded through every restore', async () => {
      const { id } = await twoVersions();
      const uploaded = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#3a7' } })
        .png()
        .toBuffer();
      const posted = await api.thumbnail(id, 'mine.png', uploaded);
      assert.equal(posted.status, 200, posted.text);
      await restore(id, 1);
      assert.ok((await modelPicture(id)).equals(uploaded), 'the upload stays over version 1');
      await restore(id, 2);
      assert.ok((await modelPicture(id)).equals(uploaded), 'and over version 2');
      // Each version still has its own picture to show once the upload is replaced.
      for (const n of [1, 2])
        assert.ok((await versionOf(id, n)).thumbnail_url, `version ${n} keeps its picture`);
    });

    void it('keeps the picture the model shows when a version whose picture has the same bytes is deleted', async () => {
      const { id, first, second } = await twoVersions();
      // Version 1's picture uploaded as the model's while version 2 is served: the same bytes, so the same name.
      const posted = await api.thumbnail(id, 'first.png', first);
      assert.equal(posted.status, 200, posted.text);
      const shown = (await api.call('GET', `/${id}`)).json.data.thumbnail_url as string;
      assert.equal(
        new URL(shown, 'http://x').pathname,
        new URL((await versionOf(id, 1)).thumbnail_url, 'http://x').pathname,
        'the model names version 1’s picture file',
      );

      assert.equal((await api.call('DELETE', `/${id}/versions/1`)).status, 204);
      assert.ok((await modelPicture(id)).equals(first), 'the model still shows its picture');
      assert.ok(
        (await bytesOf((await versionOf(id, 2)).thumbnail_url)).equals(second),
        'version 2 keeps its own',
      );
      assert.equal(pictureFiles(id).length, 2, pictureFiles(id).join(', '));
    });
  });
}
