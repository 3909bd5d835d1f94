import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createModelRepository } from '../../src/catalog/repository.ts';
import { ID_CHUNK_SIZE } from '../../src/db/id-set.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';
import { addModelWithParts } from '../helpers/model-with-parts.ts';

// A bind announces the models whose parts it touched; a bulk bind asks for 100,000 groups at once.
for (const dialect of testDialects()) {
  void describe(`models of groups (${dialect})`, () => {
    const database = useTestDatabase(dialect);
    let models: ReturnType<typeof createModelRepository>;

    before(async () => {
      const handle = database();
      models = createModelRepository(handle);
      await addModelWithParts(handle, 'model-b', ['b:0', 'shared']);
      await addModelWithParts(handle, 'model-a', ['a:0', 'a:1', 'shared']);
      await addModelWithParts(handle, 'model-c', ['c:0']);
    });

    void it('finds every model of a request larger than a statement carries, sorted, each once', async () => {
      // 25,000 ids, the parts' among them at the start, in the middle and at the end: three statements on SQLite.
      const groupIds = Array.from({ length: 25_000 }, (_, i) => `absent:${i}`);
      groupIds[0] = 'b:0';
      groupIds[ID_CHUNK_SIZE + 7] = 'a:1';
      groupIds[24_999] = 'shared';
      assert.deepEqual(await models.modelIdsOfGroups(groupIds), ['model-a', 'model-b']);
    });

    void it('finds none for groups no part has, and for no groups', async () => {
      assert.deepEqual(await models.modelIdsOfGroups(['absent', "it's", '%']), []);
      assert.deepEqual(await models.modelIdsOfGroups([]), []);
    });
  });
}
