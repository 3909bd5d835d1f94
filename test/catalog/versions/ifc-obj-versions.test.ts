// Versions of real formats through the front door: the FZK-Haus IFC with one wall moved by its placement and then
// three elements deleted, and an OBJ with one group added, each posted as a next version and diffed by the API; the
// annotations and material bindings on the parts a version continues follow them, and the annotation on a part a
// version removed stays listed on a part the model no longer has. A new part of a removed part's shape and
// another name is added, never given the removed part's id, binding or annotation.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { boxesObj } from '../../helpers/box-obj.ts';
import { catalogApi } from '../../helpers/catalog-api.ts';
import { materialApi } from '../../helpers/material-api.ts';
import { testDialects } from '../../helpers/databases.ts';
import { SAMPLE_MODELS } from '../../helpers/sample-models.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../../helpers/wait-for-status.ts';
import { deleteEntities, entityNamed, moveByPlacement } from '../../helpers/step-text.ts';

const HOUSE = path.join(SAMPLE_MODELS, 'ifc', 'AC14-FZK-Haus.ifc');
const MOVED = 'Wand-Int-ERDG-1';
const DELETED = ['Wand-Int-ERDG-5', 'Wand-Int-ERDG-4', 'Unterzug-1'];
// Unchanged by version 2, removed by version 3.
const KEPT_THEN_REMOVED = 'Wand-Int-ERDG-4';
// Three conversions of the house on a small machine.
const TIMEOUT_MS = 600_000;

/** A part as the parts list gives it, with the fields read here. */
interface PartJson {
  group_id: string;
  name: string;
  material: { id: number } | null;
}

/** Where each box of the room stands along x, whatever its place in the file. */
const BOX_X: Record<string, number> = { Table: 0, Chair: 2, Rug: 4, Shelf: 6, Lamp: 8 };

/** The room's boxes, each a unit cube at its own x. */
function objText(names: readonly string[]): string {
  return boxesObj(names.map((name) => ({ name, at: [BOX_X[name], 0, 0], size: [1, 1, 1] })));
}

for (const dialect of testDialects()) {
  void describe(`versions of an IFC and an OBJ model (${dialect})`, { timeout: TIMEOUT_MS }, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    /** Polls a version until it completed or failed, failing the test unless it completed. */
    const waitForVersion = async (id: string, n: number): Promise<ModelJson> => {
      const deadline = Date.now() + TIMEOUT_MS / 3;
      for (;;) {
        const answer = await api.call('GET', `/${id}/versions/${n}`);
        const status = answer.status === 200 ? answer.json.data.status : undefined;
        if (status === 'completed') return answer.json.data;
        if (status === 'failed') throw new Error(`version ${n} failed: ${answer.json.data.error}`);
        if (Date.now() > deadline) throw new Error(`version ${n} stuck: ${answer.text}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    /** Posts `data` as the model's next version and waits for it to complete. */
    const postVersion = async (id: string, filename: string, data: string, n: number) => {
      const posted = await api.postForm(`/${id}/versions`, {}, { field: 'file', filename, data });
      assert.equal(posted.status, 202, posted.text);
      assert.equal(posted.json.data.version.number, n);
      return waitForVersion(id, n);
    };
    const partsOf = async (id: string): Promise<PartJson[]> => {
      const answer = await api.call('GET', `/${id}/parts`);
      assert.equal(answer.status, 200, answer.text);
      return answer.json.data;
    };
    const diffOf = async (id: string, from: number, to: number) => {
      const answer = await api.call('GET', `/${id}/versions/${from}/diff/${to}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.json.data;
    };

    void it('diffs a moved wall as that wall changed by transform, three deleted elements as three removed, and keeps annotations and bindings on the parts that persist', async () => {
      // STEP text is ASCII (non-ASCII characters are escaped), so latin1 gives back the very bytes read.
      const text = await readFile(HOUSE, 'latin1');
      const id = (await api.create('AC14-FZK-Haus.ifc', Buffer.from(text, 'latin1'))).id as string;
      const first = await waitForStatus(testApp.app, id, ['completed']);
      assert.equal(first.status, 'completed', first.error);
      const before = await partsOf(id);
      const byName = (name: string) => before.find((part) => part.name === name)!.group_id;
      const wall = byName(MOVED);
      const kept = byName(KEPT_THEN_REMOVED);

      const notes = new Map<string, string>();
      for (const groupId of [wall, kept]) {
        const annotated = await api.call('POST', `/${id}/annotations`, {
          group_id: groupId,
          position: [0, 0, 0],
          normal: [0, 1, 0],
          text: `about ${groupId}`,
        });
        assert.equal(annotated.status, 201, annotated.text);
        notes.set(groupId, annotated.json.data.id);
      }
      const materials = materialApi(testApp.app, testApp.auth);
      const plaster = await materials.create({ name: 'Plaster' });
      await materials.bind(plaster.id, [wall, kept]);

      const movedText = moveByPlacement(text, entityNamed(text, MOVED), [0.5, -0.25, 0]);
      await postVersion(id, 'house-moved.ifc', movedText, 2);
      const moved = await diffOf(id, 1, 2);
      assert.deepEqual(moved.changed, [{ group_id: wall, name: MOVED, what: ['transform'] }]);
      assert.deepEqual(moved.counts, { added: 0, removed: 0, changed: 1, unchanged: before.length - 1 });

      const second = await partsOf(id);
      assert.deepEqual(
        second.map((part) => part.group_id),
        before.map((part) => part.group_id),
        'every part continues with its GlobalId',
      );
      const boundIn = (parts: PartJson[]) =>
        parts.filter((part) => part.material?.id === plaster.id).map((part) => part.group_id);
      assert.deepEqual(boundIn(second).sort(), [wall, kept].sort());
      const annotations = async () =>
        ((await api.call('GET', `/${id}/annotations`)).json.data as { id: string; group_id: string }[]).map(
          (annotation) => [annotation.id, annotation.group_id],
        );
      assert.deepEqual(await annotations(), [
        [notes.get(wall), wall],
        [notes.get(kept), kept],
      ]);

      // Version 3 continues version 2: the wall stays where version 2 moved it.
      const { text: less } = deleteEntities(
        movedText,
        DELETED.map((name) => entityNamed(movedText, name)),
      );
      await postVersion(id, 'house-less.ifc', less, 3);
      const removed = await diffOf(id, 2, 3);
      assert.deepEqual(
        removed.removed.map((part: { name: string }) => part.name).sort(),
        [...DELETED].sort(),
      );
      assert.deepEqual(removed.counts, { added: 0, removed: 3, changed: 0, unchanged: before.length - 3 });

      const third = await partsOf(id);
      const current = new Set(third.map((part) => part.group_id));
      assert.equal(third.length, before.length - 3);
      assert.ok(current.has(wall) && !current.has(kept));
      assert.deepEqual(boundIn(third), [wall], 'no part of the model carries the removed part’s binding');
      // The annotation on the removed part stays, pinned to a part the current version no longer has.
      assert.deepEqual(await annotations(), [
        [notes.get(wall), wall],
        [notes.get(kept), kept],
      ]);
    });

    void it('diffs an OBJ group added as one added part, the others keeping their ids', async () => {
      const names = ['Table', 'Chair', 'Shelf', 'Lamp'];
      const id = (await api.create('room.obj', objText(names))).id as string;
      const first = await waitForStatus(testApp.app, id, ['completed']);
      assert.equal(first.status, 'completed', first.error);
      const before = await partsOf(id);
      assert.deepEqual(
        before.map((part) => part.name),
        names,
      );

      // Added in the middle, so every group after it has another place in the file than before.
      await postVersion(id, 'room-2.obj', objText(['Table', 'Chair', 'Rug', 'Shelf', 'Lamp']), 2);
      const diff = await diffOf(id, 1, 2);
      assert.deepEqual(diff.added, [{ group_id: `${id}:v2-2`, name: 'Rug' }]);
      assert.deepEqual(diff.counts, { added: 1, removed: 0, changed: 0, unchanged: 4 });
      const after = await partsOf(id);
      assert.deepEqual(
        after.map((part) => [part.group_id, part.name]),
        [
          [before[0].group_id, 'Table'],
          [before[1].group_id, 'Chair'],
          [`${id}:v2-2`, 'Rug'],
          [before[2].group_id, 'Shelf'],
          [before[3].group_id, 'Lamp'],
        ],
      );
    });

    void it('never hands the group_id of a removed part, its binding or annotation to a new part of its shape', async () => {
      // Unit cubes at x = 0, 2, 4; then Bravo removed and Delta, the same cube, added at x = 6.
      const cubes = (parts: [string, number][]) =>
        boxesObj(parts.map(([name, x]) => ({ name, at: [x, 0, 0], size: [1, 1, 1] })));
      const id = (
        await api.create(
          'abc.obj',
          cubes([
            ['Alpha', 0],
            ['Bravo', 2],
            ['Charlie', 4],
          ]),
        )
      ).id as string;
      const first = await waitForStatus(testApp.app, id, ['completed']);
      assert.equal(first.status, 'completed', first.error);
      const bravo = (await partsOf(id)).find((part) => part.name === 'Bravo')!.group_id;
      const note = await api.call('POST', `/${id}/annotations`, {
        group_id: bravo,
        position: [2.5, 1, 0.5],
        normal: [0, 1, 0],
        text: 'Bravo only',
      });
      assert.equal(note.status, 201, note.text);
      const materials = materialApi(testApp.app, testApp.auth);
      const brass = await materials.create({ name: 'Brass' });
      await materials.bind(brass.id, [bravo]);

      await postVersion(
        id,
        'acd.obj',
        cubes([
          ['Alpha', 0],
          ['Charlie', 4],
          ['Delta', 6],
        ]),
        2,
      );
      const diff = await diffOf(id, 1, 2);
      assert.deepEqual(diff.added, [{ group_id: `${id}:v2-2`, name: 'Delta' }]);
      assert.deepEqual(diff.removed, [{ group_id: bravo, name: 'Bravo' }]);
      assert.deepEqual(diff.counts, { added: 1, removed: 1, changed: 0, unchanged: 2 });
      const delta = (await partsOf(id)).find((part) => part.name === 'Delta')!;
      assert.notEqual(delta.group_id, bravo);
      assert.equal(delta.material, null, 'Delta has no binding of its own');
      const annotations = (await api.call('GET', `/${id}/annotations`)).json.data as { group_id: string }[];
      assert.deepEqual(
        annotations.map((annotation) => annotation.group_id),
        [bravo],
        'the note stays on Bravo, which the model no longer has',
      );
    });
  });
}
