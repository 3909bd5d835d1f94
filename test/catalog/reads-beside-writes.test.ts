// The catalog's reads while a long write transaction is open, as a model of many parts completing holds one: the
// model list, a model and its parts answer at once with what was committed, on both databases. On SQLite the one
// writer connection is held from begin to commit, so reads through it would wait for the commit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createModelRepository } from '../../src/catalog/repository.ts';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';

/** How long a read may take before the test says it waited for the transaction (a guard against a hang). */
const WAITED_MS = 10_000;

/** `read`'s answer, or a failure naming it if it did not come while the transaction was open. */
async function answeredWhileOpen<T>(what: string, read: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} waited for the open transaction`)), WAITED_MS);
  });
  try {
    return await Promise.race([read, waited]);
  } finally {
    clearTimeout(timer);
  }
}

/** A model row as an upload makes it. */
function newModel(id: string) {
  return {
    id,
    name: id,
    description: '',
    original_filename: `${id}.obj`,
    format: 'obj',
    file_size: 1,
    status: 'processing' as const,
    progress: 0,
    source_key: `models/${id}/source/${id}.obj`,
    source_entry: null,
    unit: null,
    up_axis: null,
    lods: '[]',
    tags: '[]',
  };
}

for (const dialect of testDialects()) {
  void describe(`catalog reads beside an open write transaction (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    void it('the list, a model and its parts answer with what was committed, before the commit', async () => {
      const handle: DatabaseHandle = database();
      const models = createModelRepository(handle);
      await models.create(newModel('committed'));
      const page = { limit: 10, offset: 0 };

      await handle.db.transaction().execute(async (trx) => {
        await createModelRepository({ db: trx, dialect }).create(newModel('uncommitted'));
        const listed = await answeredWhileOpen('the model list', models.list(page));
        assert.deepEqual(
          listed.rows.map((row) => row.id),
          ['committed'],
        );
        assert.equal(listed.total, 1);
        assert.equal(
          (await answeredWhileOpen('a committed model', models.get('committed')))?.id,
          'committed',
        );
        assert.equal(await answeredWhileOpen('an uncommitted model', models.get('uncommitted')), undefined);
        assert.deepEqual(await answeredWhileOpen('the parts', models.parts('committed')), []);
      });

      // Once committed, the next read sees it.
      const after = await models.list(page);
      assert.deepEqual(after.rows.map((row) => row.id).sort(), ['committed', 'uncommitted']);
    });
  });
}
