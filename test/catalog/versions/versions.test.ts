// Versions of a model through the front door: a second version posted as a form and from a resumable upload
// converts beside the current one (the model stays completed, its levels answering, while it is held), becomes
// current with its parts, and a restore brings back the first version's files byte for byte; a failed version
// leaves the current one; deleting removes a version's own files only, never the current version's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Document, NodeIO } from '@gltf-transform/core';
import type { BlobStore } from '../../../src/storage/blob-store.ts';
import { overstatedBufferGlb } from '../../fixtures/hostile-gltf.ts';
import { catalogApi, catalogError, pathOf } from '../../helpers/catalog-api.ts';
import { materialApi } from '../../helpers/material-api.ts';
import { testDialects } from '../../helpers/databases.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { tusClient, uploadIdOf } from '../../helpers/tus-client.ts';
import { waitForStatus, type ModelJson } from '../../helpers/wait-for-status.ts';

/** A GLB of one-triangle parts, each at its x offset, with an `extras.group_id` when given. */
async function partsGlb(parts: { name: string; x: number; groupId?: string }[]): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene('Scene');
  for (const part of parts) {
    const position = document
      .createAccessor(`${part.name}-position`)
      .setType('VEC3')
      .setArray(new Float32Array([part.x, 0, 0, part.x + 1, 0, 0, part.x, 1, 0]))
      .setBuffer(buffer);
    const mesh = document
      .createMesh(part.name)
      .addPrimitive(document.createPrimitive().setAttribute('POSITION', position));
    const node = document.createNode(part.name).setMesh(mesh);
    if (part.groupId) node.setExtras({ group_id: part.groupId });
    scene.addChild(node);
  }
  return new NodeIO().writeBinary(document);
}

const FIRST = [
  { name: 'Wall', x: 0, groupId: 'wall-guid-1' },
  { name: 'Slab', x: 2 },
];
const SECOND = [...FIRST, { name: 'Door', x: 4 }];

for (const dialect of testDialects()) {
  void describe(`model versions (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let realPutFile: BlobStore['putFile'];
    let baseUrl: string;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      realPutFile = testApp.blobs.putFile.bind(testApp.blobs);
      baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    /** Every file under a model's folder of the file store, relative to it. */
    const filesOf = (id: string): string[] => {
      const folder = path.join(testApp.config.dataDir, 'files', 'models', id);
      if (!fs.existsSync(folder)) return [];
      return fs
        .readdirSync(folder, { recursive: true, withFileTypes: true })
        .flatMap((entry) =>
          entry.isFile() ? [path.relative(folder, path.join(entry.parentPath, entry.name))] : [],
        );
    };
    /** The bytes a handed-out URL answers, failing unless 200. */
    const fetchBytes = async (url: string): Promise<Buffer> => {
      const response = await testApp.app.inject({ method: 'GET', url: pathOf(url) });
      assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 200)}`);
      return response.rawPayload;
    };
    /** Polls a version until its status is one of `statuses`. */
    const waitForVersion = async (id: string, n: number, statuses: string[]): Promise<ModelJson> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const answer = await api.call('GET', `/${id}/versions/${n}`);
        if (answer.status === 200 && statuses.includes(answer.json.data.status)) return answer.json.data;
        if (Date.now() > deadline) throw new Error(`version ${n} stuck: ${answer.text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    /** The events of a type about a model, once at least `least` were recorded (published after the commit). */
    const eventsOf = async (id: string, type: string, least = 1) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = await recordedEvents(id, type);
        if (found.length >= least || Date.now() > deadline) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const recordedEvents = async (id: string, type: string) =>
      (
        await testApp.database.db
          .selectFrom('events')
          .select('data')
          .where('model_id', '=', id)
          .where('type', '=', type)
          .orderBy('id')
          .execute()
      ).map((row) => JSON.parse(row.data) as Record<string, unknown>);

    void it('converts a second version beside the first, makes it current, restores the first byte for byte and deletes its own files', async () => {
      const created = await api.create('house.glb', await partsGlb(FIRST));
      const id = created.id as string;
      const first = await waitForStatus(testApp.app, id, ['completed']);
      const firstLods = await Promise.all(first.lods.map((lod: { url: string }) => fetchBytes(lod.url)));
      const firstParts = (await api.call('GET', `/${id}/parts`)).json.data;
      assert.equal(firstParts.length, 2);

      // The second version's levels wait here until released, so the test looks at the model meanwhile.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let reached!: () => void;
      const holding = new Promise<void>((resolve) => (reached = resolve));
      testApp.blobs.putFile = async (key, localPath) => {
        if (key.includes(`/v2/lod`)) {
          reached();
          await released;
        }
        return realPutFile(key, localPath);
      };
      try {
        const posted = await api.postForm(
          `/${id}/versions`,
          {},
          { field: 'file', filename: 'house-2.glb', data: await partsGlb(SECOND) },
        );
        assert.equal(posted.status, 202, posted.text);
        assert.equal(posted.json.data.version.number, 2);
        assert.equal(posted.json.data.version.current, false);
        assert.equal(posted.json.data.version.based_on, 1);
        await holding;
        const during = (await api.call('GET', `/${id}`)).json.data;
        assert.equal(during.status, 'completed');
        assert.deepEqual(
          during.lods.map((lod: { url: string }) => new URL(lod.url).pathname),
          first.lods.map((lod: { url: string }) => new URL(lod.url).pathname),
        );
        for (const [index, lod] of during.lods.entries())
          assert.ok((await fetchBytes(lod.url)).equals(firstLods[index]));
        assert.equal((await waitForVersion(id, 2, ['processing'])).status, 'processing');
      } finally {
        release();
        testApp.blobs.putFile = realPutFile;
      }
      const second = await waitForVersion(id, 2, ['completed', 'failed']);
      assert.equal(second.status, 'completed', second.error);
      assert.deepEqual(second.diff_counts, { added: 1, removed: 0, changed: 0, unchanged: 2 });
      const model = (await api.call('GET', `/${id}`)).json.data;
      assert.equal(model.status, 'completed');
      assert.equal(model.part_count, 3);
      assert.equal(model.original_filename, 'house-2.glb');
      assert.ok(
        model.lods.every((lod: { url: string }) => new URL(lod.url).pathname.includes(`/models/${id}/v2/`)),
      );
      const parts = (await api.call('GET', `/${id}/parts`)).json.data;
      assert.deepEqual(
        parts.map((part: { name: string }) => part.name),
        ['Wall', 'Slab', 'Door'],
      );
      // The wall's id comes from the file, so it is the same part in both versions.
      assert.equal(parts[0].group_id, 'wall-guid-1');

      const list = (await api.call('GET', `/${id}/versions`)).json.data;
      assert.deepEqual(
        list.map((version: { number: number }) => version.number),
        [2, 1],
      );
      assert.deepEqual(
        list.map((version: { current: boolean }) => version.current),
        [true, false],
      );
      assert.equal(list[1].lods.length, first.lods.length);

      const diff = await api.call('GET', `/${id}/versions/1/diff/2`);
      assert.equal(diff.status, 200, diff.text);
      assert.deepEqual(
        diff.json.data.added.map((part: { name: string }) => part.name),
        ['Door'],
      );
      assert.deepEqual(diff.json.data.counts, { added: 1, removed: 0, changed: 0, unchanged: 2 });
      assert.equal(diff.json.data.from, 1);
      assert.equal(diff.json.data.to, 2);

      assert.equal(
        (await api.call('DELETE', `/${id}/versions/2`)).text,
        catalogError(
          'The current version cannot be deleted; restore another version first, or delete the model',
        ),
      );

      const restored = await api.call('POST', `/${id}/versions/1/restore`);
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.json.data.part_count, 2);
      for (const [index, lod] of restored.json.data.lods.entries()) {
        assert.ok((await fetchBytes(lod.url)).equals(firstLods[index]), `level ${index} as it was`);
      }
      assert.deepEqual((await api.call('GET', `/${id}/parts`)).json.data, firstParts);

      const v2Files = filesOf(id).filter((file) => file.startsWith('v2'));
      assert.ok(v2Files.length > 0);
      const others = filesOf(id).filter((file) => !file.startsWith('v2'));
      const deleted = await api.call('DELETE', `/${id}/versions/2`);
      assert.equal(deleted.status, 204, deleted.text);
      assert.deepEqual(filesOf(id).sort(), others.sort(), 'only the version’s own files went');
      for (const lod of restored.json.data.lods) await fetchBytes(lod.url);
      assert.equal((await api.call('GET', `/${id}/versions/2`)).status, 404);

      const createdEvents = await eventsOf(id, 'model.version.created');
      assert.deepEqual(createdEvents, [{ model_id: id, version: 2, based_on: 1 }]);
      const completedEvents = await eventsOf(id, 'model.version.completed');
      assert.deepEqual(completedEvents, [
        {
          model_id: id,
          version: 2,
          based_on: 1,
          diff_counts: { added: 1, removed: 0, changed: 0, unchanged: 2 },
        },
      ]);

      assert.equal((await api.call('DELETE', `/${id}`)).status, 200);
      assert.deepEqual(filesOf(id), [], 'a model delete removes every version’s files');
    });

    void it('takes a version from a finished resumable upload, and a failed version leaves the current one', async () => {
      const id = (await api.create('house.glb', await partsGlb(FIRST))).id as string;
      const first = await waitForStatus(testApp.app, id, ['completed']);
      const tus = tusClient(baseUrl, testApp.auth);
      const bytes = await partsGlb(SECOND);
      const upload = await tus.create(bytes.length, { filename: 'house-2.glb' });
      assert.equal(upload.status, 201, upload.text);
      assert.equal((await tus.patch(upload.location, 0, bytes))?.status, 204);
      const uploadId = uploadIdOf(upload.location);
      const posted = await api.call('POST', `/${id}/versions`, { upload_id: uploadId });
      assert.equal(posted.status, 202, posted.text);
      // Retried after a lost answer: the version it made, not a second one, and not a 404 for the upload gone.
      const retried = await api.call('POST', `/${id}/versions`, { upload_id: uploadId });
      assert.equal(retried.status, 200, retried.text);
      assert.equal(retried.headers['idempotent-replayed'], 'true');
      assert.equal(retried.json.data.version.number, 2);
      assert.equal((await waitForVersion(id, 2, ['completed', 'failed'])).status, 'completed');
      const again = await api.call('POST', `/${id}/versions`, { upload_id: uploadId });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json.data.version.status, 'completed');
      const other = (await api.create('other.glb', await partsGlb(FIRST))).id as string;
      await waitForStatus(testApp.app, other, ['completed']);
      assert.equal(
        (await api.call('POST', `/${other}/versions`, { upload_id: uploadId })).text,
        catalogError('This upload already made a version of another model'),
      );

      const broken = await api.postForm(
        `/${id}/versions`,
        {},
        { field: 'file', filename: 'broken.glb', data: overstatedBufferGlb() },
      );
      assert.equal(broken.status, 202, broken.text);
      const failed = await waitForVersion(id, 3, ['completed', 'failed']);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /Invalid GLB/);
      const model = (await api.call('GET', `/${id}`)).json.data;
      assert.equal(model.status, 'completed');
      assert.equal(model.part_count, 3);
      const list = (await api.call('GET', `/${id}/versions`)).json.data;
      assert.deepEqual(
        list.map((version: { current: boolean }) => version.current),
        [false, true, false],
      );
      assert.equal((await eventsOf(id, 'model.version.failed')).length, 1);
      assert.equal(
        (await api.call('POST', `/${id}/versions/3/restore`)).text,
        catalogError('Only a completed version can be restored'),
      );
      assert.equal((await api.call('POST', `/${id}/versions/1/restore`)).status, 200);
      assert.notEqual(first.lods[0].url, undefined);
    });

    void it('keeps the bindings of the parts a version continues: the kept and the moved part, none on the new one', async () => {
      const id = (await api.create('house.glb', await partsGlb(FIRST))).id as string;
      await waitForStatus(testApp.app, id, ['completed']);
      const before = (await api.call('GET', `/${id}/parts`)).json.data as {
        group_id: string;
        name: string;
      }[];
      const materials = materialApi(testApp.app, testApp.auth);
      const material = await materials.create({ name: 'Concrete' });
      await materials.bind(
        material.id as number,
        before.map((part) => part.group_id),
      );

      const moved = [FIRST[0], { name: 'Slab', x: 3 }, { name: 'Door', x: 6 }];
      const posted = await api.postForm(
        `/${id}/versions`,
        {},
        { field: 'file', filename: 'house-2.glb', data: await partsGlb(moved) },
      );
      assert.equal(posted.status, 202, posted.text);
      assert.equal((await waitForVersion(id, 2, ['completed', 'failed'])).status, 'completed');

      const after = (await api.call('GET', `/${id}/parts`)).json.data as {
        group_id: string;
        name: string;
        material: { id: number } | null;
      }[];
      assert.deepEqual(
        after.map((part) => part.name),
        ['Wall', 'Slab', 'Door'],
      );
      assert.equal(after[0].group_id, before[0].group_id, 'the wall keeps the id its file gives');
      assert.equal(after[1].group_id, before[1].group_id, 'the moved slab continues by path and name');
      assert.equal(after[2].group_id, `${id}:v2-2`, 'the new door gets an id of version 2');
      assert.deepEqual(
        after.map((part) => part.material?.id ?? null),
        [material.id, material.id, null],
      );

      const diff = (await api.call('GET', `/${id}/versions/1/diff/2`)).json.data;
      assert.deepEqual(diff.changed, [{ group_id: before[1].group_id, name: 'Slab', what: ['transform'] }]);
      assert.deepEqual(diff.added, [{ group_id: `${id}:v2-2`, name: 'Door' }]);
      assert.deepEqual(diff.unchanged, [{ group_id: before[0].group_id, name: 'Wall' }]);
      assert.deepEqual(diff.counts, { added: 1, removed: 0, changed: 1, unchanged: 1 });
      const [completed] = await eventsOf(id, 'model.version.completed');
      assert.deepEqual(completed.diff_counts, diff.counts);

      // A reprocess converts the current version again, its parts keeping the ids they got as version 2.
      assert.equal((await api.call('POST', `/${id}/reprocess`)).status, 200);
      await waitForStatus(testApp.app, id, ['completed']);
      const reprocessed = (await api.call('GET', `/${id}/parts`)).json.data as { group_id: string }[];
      assert.deepEqual(
        reprocessed.map((part) => part.group_id),
        after.map((part) => part.group_id),
      );
      const versions = (await api.call('GET', `/${id}/versions`)).json.data;
      assert.deepEqual(
        versions.map((version: { status: string; current: boolean }) => [version.status, version.current]),
        [
          ['completed', true],
          ['completed', false],
        ],
      );
    });

    void it('numbers versions posted at once one after the other', async () => {
      const id = (await api.create('house.glb', await partsGlb(FIRST))).id as string;
      await waitForStatus(testApp.app, id, ['completed']);
      const data = await partsGlb(SECOND);
      const posted = await Promise.all(
        [1, 2, 3].map(() => api.postForm(`/${id}/versions`, {}, { field: 'file', filename: 'h.glb', data })),
      );
      assert.deepEqual(
        posted.map((answer) => answer.status),
        [202, 202, 202],
        posted.map((a) => a.text).join(),
      );
      assert.deepEqual(posted.map((answer) => answer.json.data.version.number).sort(), [2, 3, 4]);
      for (const n of [2, 3, 4]) await waitForVersion(id, n, ['completed', 'failed']);
    });

    void it('converts a failed version again from its file, and refuses to for any other', async () => {
      const id = (await api.create('house.glb', await partsGlb(FIRST))).id as string;
      await waitForStatus(testApp.app, id, ['completed']);
      // The store cannot give version 2's file back, on every try: the version fails on the server's side.
      const realDownload = testApp.blobs.download.bind(testApp.blobs);
      let storeDown = true;
      testApp.blobs.download = async (key, localPath) => {
        if (storeDown && key.startsWith(`models/${id}/v2/`)) throw new Error('store unreachable');
        return realDownload(key, localPath);
      };
      try {
        const posted = await api.postForm(
          `/${id}/versions`,
          {},
          { field: 'file', filename: 'house-2.glb', data: await partsGlb(SECOND) },
        );
        assert.equal(posted.status, 202, posted.text);
        const failed = await waitForVersion(id, 2, ['completed', 'failed']);
        assert.equal(failed.status, 'failed');
        storeDown = false;

        const again = await api.call('POST', `/${id}/versions/2/reprocess`);
        assert.equal(again.status, 202, again.text);
        assert.equal(again.json.data.version.number, 2);
        assert.equal(again.json.data.version.status, 'pending');
        assert.equal(again.json.data.version.error, null);
        assert.equal((await waitForVersion(id, 2, ['completed', 'failed'])).status, 'completed');
        const model = (await api.call('GET', `/${id}`)).json.data;
        assert.equal(model.part_count, 3);
        assert.deepEqual(
          (await api.call('GET', `/${id}/versions`)).json.data.map(
            (version: { number: number; current: boolean }) => [version.number, version.current],
          ),
          [
            [2, true],
            [1, false],
          ],
        );
      } finally {
        testApp.blobs.download = realDownload;
      }
      assert.equal(
        (await api.call('POST', `/${id}/versions/1/reprocess`)).text,
        catalogError('Only a failed version can be converted again'),
      );
      assert.equal(
        (await api.call('POST', `/${id}/versions/2/reprocess`)).text,
        catalogError(
          "The current version is the model's own conversion; reprocess the model (POST /api/models/:id/reprocess)",
        ),
      );
      assert.equal(
        (await api.call('POST', `/${id}/versions/9/reprocess`)).text,
        catalogError('Version not found'),
      );
    });

    void it('leaves a current version after each of 20 restores and deletes of one version sent at once, and restores none during a reprocess', async () => {
      const id = (await api.create('house.glb', await partsGlb(FIRST))).id as string;
      await waitForStatus(testApp.app, id, ['completed']);
      const posted = await api.postForm(
        `/${id}/versions`,
        {},
        { field: 'file', filename: 'house-2.glb', data: await partsGlb(SECOND) },
      );
      assert.equal(posted.status, 202, posted.text);
      assert.equal((await waitForVersion(id, 2, ['completed', 'failed'])).status, 'completed');
      // Versions 3 to 22 are copies of version 2's rows (its files stay where version 2 has them): the race is over
      // rows, and twenty conversions would only make the test slower.
      const { db } = testApp.database;
      const source = await db
        .selectFrom('model_versions')
        .selectAll()
        .where('model_id', '=', id)
        .where('number', '=', 2)
        .executeTakeFirstOrThrow();
      const parts = await db
        .selectFrom('model_version_parts')
        .selectAll()
        .where('model_id', '=', id)
        .where('version', '=', 2)
        .execute();
      const ROUNDS = 20;
      const now = new Date().toISOString();
      for (let n = 3; n < 3 + ROUNDS; n++) {
        await db
          .insertInto('model_versions')
          .values({ ...source, number: n, thumbnail_key: null, created_at: now, updated_at: now })
          .execute();
        await db
          .insertInto('model_version_parts')
          .values(parts.map((part) => ({ ...part, version: n })))
          .execute();
      }
      await db
        .updateTable('models')
        .set({ last_version: 2 + ROUNDS })
        .where('id', '=', id)
        .execute();

      for (let n = 3; n < 3 + ROUNDS; n++) {
        const [restore, remove] = await Promise.all([
          api.call('POST', `/${id}/versions/${n}/restore`),
          api.call('DELETE', `/${id}/versions/${n}`),
        ]);
        // One of the two went first: restored (the delete refused: now current), or deleted (nothing to restore).
        const outcome = `${restore.status}/${remove.status}`;
        assert.ok(['200/409', '404/204', '409/204'].includes(outcome), `round ${n}: ${outcome}`);
        const list = (await api.call('GET', `/${id}/versions`)).json.data as {
          number: number;
          current: boolean;
        }[];
        const current = list.filter((version) => version.current);
        assert.equal(current.length, 1, `round ${n}: one current version of ${list.length}`);
        const model = (await api.call('GET', `/${id}`)).json.data;
        assert.equal(model.status, 'completed');
        assert.equal((await api.call('GET', `/${id}/lod/0`)).status, 200, `round ${n}: level 0 answers`);
      }

      // While the model's own conversion runs (held here at its download), a restore would be overwritten by it.
      const realDownload = testApp.blobs.download.bind(testApp.blobs);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      testApp.blobs.download = async (key, localPath) => {
        if (key.startsWith(`models/${id}/`)) await held;
        return realDownload(key, localPath);
      };
      try {
        assert.equal((await api.call('POST', `/${id}/reprocess`)).status, 200);
        assert.equal(
          (await api.call('POST', `/${id}/versions/1/restore`)).text,
          catalogError('The model is being converted; restore a version when its conversion ends'),
        );
      } finally {
        release();
        testApp.blobs.download = realDownload;
      }
      assert.equal((await waitForStatus(testApp.app, id, ['completed', 'failed'])).status, 'completed');
      assert.equal((await api.call('POST', `/${id}/versions/1/restore`)).status, 200);
    });

    void it('answers unknown models and versions with 404 and bad numbers and bodies with 400', async () => {
      const id = (await api.create('house.glb', await partsGlb(FIRST))).id as string;
      await waitForStatus(testApp.app, id, ['completed']);
      const unknown = '00000000-0000-4000-8000-000000000000';
      assert.equal((await api.call('GET', `/${unknown}/versions`)).text, catalogError('Model not found'));
      assert.equal((await api.call('GET', `/${id}/versions/7`)).text, catalogError('Version not found'));
      assert.equal((await api.call('DELETE', `/${id}/versions/7`)).text, catalogError('Version not found'));
      assert.equal(
        (await api.call('GET', `/${id}/versions/1/diff/7`)).text,
        catalogError('Version not found'),
      );
      const zero = await api.call('GET', `/${id}/versions/0`);
      assert.equal(zero.status, 400);
      assert.match(zero.json.error, /Invalid version number/);
      assert.equal((await api.call('GET', `/not-a-uuid/versions`)).status, 400);
      const empty = await api.call('POST', `/${id}/versions`, {});
      assert.equal(empty.status, 400);
      const noFile = await api.postForm(`/${id}/versions`, { unit: 'mm' });
      assert.equal(noFile.text, catalogError('No model file provided'));
      const badUnit = await api.postForm(
        `/${id}/versions`,
        { unit: 'furlong' },
        { field: 'file', filename: 'h.glb', data: await partsGlb(FIRST) },
      );
      assert.equal(badUnit.status, 400);
      assert.match(badUnit.json.error, /unit must be one of/);
      const notModel = await api.postForm(
        `/${id}/versions`,
        {},
        { field: 'file', filename: 'notes.txt', data: 'hello' },
      );
      assert.equal(notModel.text, catalogError('Unsupported model format'));
      const onUnknown = await api.postForm(
        `/${unknown}/versions`,
        {},
        { field: 'file', filename: 'h.glb', data: await partsGlb(FIRST) },
      );
      assert.equal(onUnknown.text, catalogError('Model not found'));
      assert.deepEqual(
        (await api.call('GET', `/${id}/versions`)).json.data.map(
          (version: { number: number }) => version.number,
        ),
        [1],
        'no refused request made a version',
      );
    });
  });
}
