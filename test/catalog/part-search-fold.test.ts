// The parts' `q` filter finds text in any case of any script, as the model list's search does: `ß` is `ss`,
// `É` is `é`, on SQLite (whose lower() folds ASCII only) as on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Document, NodeIO } from '@gltf-transform/core';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const CONVERSION_TIMEOUT_MS = 60_000;

/** A GLB of one-triangle parts with the given names and node extras (which become their properties). */
async function namedPartsGlb(
  parts: { name: string; extras?: Record<string, string> }[],
): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene('Scene');
  parts.forEach(({ name, extras }, index) => {
    const position = document
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array([index * 2, 0, 0, index * 2 + 1, 0, 0, index * 2, 1, 0]))
      .setBuffer(buffer);
    const mesh = document
      .createMesh(name)
      .addPrimitive(document.createPrimitive().setAttribute('POSITION', position));
    scene.addChild(
      document
        .createNode(name)
        .setMesh(mesh)
        .setExtras(extras ?? {}),
    );
  });
  return new NodeIO().writeBinary(document);
}

for (const dialect of testDialects()) {
  void describe(`parts q filter folds case in every script (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let id: string;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
      const glb = await namedPartsGlb([
        { name: 'Straße' },
        { name: 'ÉCROU M8' },
        { name: 'Bolt', extras: { Street: 'Hauptstraße' } },
        { name: 'Washer' },
      ]);
      id = (await api.create('parts.glb', glb)).id;
      const model = await waitForStatus(testApp.app, id, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      assert.equal(model.status, 'completed', model.error);
    });
    after(() => testApp.close());

    const namesFor = async (q: string) => {
      const answer = await api.call('GET', `/${id}/parts?q=${encodeURIComponent(q)}`);
      assert.equal(answer.status, 200, answer.text);
      return (answer.json.data as { name: string }[]).map((part) => part.name).sort();
    };

    void it('finds ß by SS and SS by ß, in names and property values', async () => {
      assert.deepEqual(await namesFor('STRASSE'), ['Bolt', 'Straße']);
      assert.deepEqual(await namesFor('straße'), ['Bolt', 'Straße']);
    });

    void it('finds an accented capital by its lower case, and the other way round', async () => {
      assert.deepEqual(await namesFor('écrou'), ['ÉCROU M8']);
      assert.deepEqual(await namesFor('ÉCROU'), ['ÉCROU M8']);
      // A decomposed é (e and a combining accent) is the composed one.
      assert.deepEqual(await namesFor('e\u0301crou'), ['ÉCROU M8']);
    });

    void it('finds an accented name without its accents', async () => {
      assert.deepEqual(await namesFor('ecrou'), ['ÉCROU M8']);
      assert.deepEqual(await namesFor('ECROU M8'), ['ÉCROU M8']);
    });

    void it('still finds plain ASCII text in any case and nothing for text no part holds', async () => {
      assert.deepEqual(await namesFor('WASHER'), ['Washer']);
      assert.deepEqual(await namesFor('écrous'), []);
    });
  });
}
