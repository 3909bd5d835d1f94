import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type KyselyPlugin } from 'kysely';
import { catalogApi, catalogError, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
const INTERNAL = catalogError('Internal server error');

/** Files left anywhere under a folder (empty when it does not exist). */
function filesUnder(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

for (const dialect of testDialects()) {
  void describe(`an upload whose enqueue or storing fails (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    // Jobs are counted by model: a converted model's job row goes when its worker finishes, at its own pace.
    const counts = async () => ({
      models: (await testApp.database.db.selectFrom('models').select('id').execute()).length,
      jobsWithoutModel: (
        await testApp.database.db
          .selectFrom('jobs')
          .select('id')
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom('models').select('id').whereRef('models.id', '=', 'jobs.subject'))),
          )
          .execute()
      ).length,
      stored: filesUnder(path.join(testApp.config.dataDir, 'files', 'models')).length,
      uploading: filesUnder(path.join(testApp.config.dataDir, 'tmp', 'uploads')).length,
    });

    /**
     * Makes every job insert fail, but only once the job's model row is there: the fault strikes right after the
     * row is written, inside the same transaction.
     */
    const failEnqueueAfterTheRow = async (on: boolean) => {
      const { db } = testApp.database;
      if (dialect === 'sqlite') {
        if (!on) return void (await sql`drop trigger refuse_jobs`.execute(db));
        await sql`create trigger refuse_jobs before insert on jobs
          when exists (select 1 from models where id = json_extract(new.payload, '$.model_id'))
          begin select raise(abort, 'job queue unavailable'); end`.execute(db);
        return;
      }
      if (!on) return void (await sql`drop trigger refuse_jobs on jobs`.execute(db));
      await sql`create or replace function refuse_jobs() returns trigger language plpgsql as $$
        begin
          if exists (select 1 from models where id = (new.payload::json ->> 'model_id')) then
            raise exception 'job queue unavailable';
          end if;
          return new;
        end $$`.execute(db);
      await sql`create trigger refuse_jobs before insert on jobs
        for each row execute function refuse_jobs()`.execute(db);
    };

    void it('a failed enqueue after the row is written answers 500 and leaves no row, job or file', async () => {
      const before = await counts();
      await failEnqueueAfterTheRow(true);
      try {
        const refused = await api.upload('triangle.obj', OBJ, { name: 'never recorded' });
        assert.equal(refused.status, 500);
        assert.equal(refused.text, INTERNAL);
        const zipped = await api.upload('truck.glb', sample('glb/CesiumMilkTruck.glb'));
        assert.equal(zipped.status, 500);
      } finally {
        await failEnqueueAfterTheRow(false);
      }
      assert.deepEqual(await counts(), before, 'nothing of the refused uploads remains');
      assert.equal((await api.call('GET', '?search=never')).json.meta.total, 0);

      // The same upload once the queue works again: recorded, queued, stored and converted.
      const accepted = await api.upload('triangle.obj', OBJ);
      assert.equal(accepted.status, 201, accepted.text);
      testApp.startJobRunner();
      const done = await waitForStatus(testApp.app, accepted.json.data.id, ['completed', 'failed']);
      assert.equal(done.status, 'completed', done.error);
    });

    void it('a file that cannot be stored after the commit removes the model and its job again', async () => {
      const before = await counts();
      // A plain file where the models folder belongs: storing any upload fails after the record committed.
      const models = path.join(testApp.config.dataDir, 'files', 'models');
      const aside = `${models}.aside`;
      fs.renameSync(models, aside);
      fs.writeFileSync(models, 'not a folder');
      try {
        const refused = await api.upload('triangle.obj', OBJ);
        assert.equal(refused.status, 500);
        assert.equal(refused.text, INTERNAL);
      } finally {
        fs.rmSync(models);
        fs.renameSync(aside, models);
      }
      assert.deepEqual(await counts(), before);
    });

    void it('a reprocess whose enqueue fails leaves the model as it was', async () => {
      const model = (await api.upload('triangle.obj', OBJ)).json.data;
      const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed']);
      assert.equal(done.status, 'completed');
      await failEnqueueAfterTheRow(true);
      try {
        const refused = await api.call('POST', `/${model.id}/reprocess`);
        assert.equal(refused.status, 500);
      } finally {
        await failEnqueueAfterTheRow(false);
      }
      const after = (await api.call('GET', `/${model.id}`)).json.data;
      assert.equal(after.status, 'completed', 'not left pending without a job');
      assert.deepEqual(after, done);
    });
  });

  void describe(`deleting a model on a full disk (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    // While set, every write fails as the database does when its disk is full.
    let diskFullUntilGone: string | undefined;
    const code = dialect === 'sqlite' ? 'SQLITE_FULL' : '53100';
    const fullDisk: KyselyPlugin = {
      transformQuery({ node }) {
        if (node.kind !== 'SelectQueryNode' && diskFullUntilGone && fs.existsSync(diskFullUntilGone)) {
          throw Object.assign(new Error('database or disk is full'), { code });
        }
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    before(async () => {
      testApp = await createTestApp(dialect, {}, { wrapDb: (db) => db.withPlugin(fullDisk) });
      api = catalogApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    void it('removes the files first, then the record, and answers 200', async () => {
      const model = (await api.upload('triangle.obj', OBJ)).json.data;
      const folder = path.join(testApp.config.dataDir, 'files', 'models', model.id);
      assert.equal(filesUnder(folder).length, 1);
      diskFullUntilGone = folder;
      const full = await api.call('PATCH', `/${model.id}`, { name: 'renamed' });
      assert.equal(full.status, 500, 'the disk is full for other writes');

      const deleted = await api.call('DELETE', `/${model.id}`);
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(deleted.text, JSON.stringify({ success: true, message: 'Model deleted successfully' }));
      assert.equal(fs.existsSync(folder), false);
      assert.equal((await api.call('GET', `/${model.id}`)).status, 404);
      diskFullUntilGone = undefined;
    });
  });
}
