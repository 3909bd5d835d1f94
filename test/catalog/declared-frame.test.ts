import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { boxStl } from '../fixtures/box-stl.ts';

/** Size of a bounds object along x, y, z. */
const sizeOf = (bounds: { min: number[]; max: number[] }) =>
  bounds.max.map((max, axis) => max - bounds.min[axis]);

for (const dialect of testDialects()) {
  void describe(`declared unit and up axis (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    void it('an STL uploaded with unit=mm&up=z has bounds in metres, +Y up; PATCH and reprocess change it', async () => {
      // 100 mm long (x), 50 mm deep (y), 20 mm tall (z, up in the file).
      const stl = boxStl(100, 50, 20);
      const model = await api.create('bracket.stl', stl, { unit: 'mm', up: 'z' });
      assert.equal(model.unit, 'mm');
      assert.equal(model.up, 'z');
      const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 60_000);
      assert.equal(done.status, 'completed', done.error);
      const size = sizeOf(done.bounds);
      for (const [axis, expected] of [0.1, 0.02, 0.05].entries())
        assert.ok(Math.abs(size[axis] - expected) < 1e-6, `${size}`);
      assert.equal(done.source_unit, 'mm');
      assert.equal(done.source_up_axis, '+Z');

      const patched = await api.call('PATCH', `/${model.id}`, { unit: 'cm', up: 'y' });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.json.data.unit, 'cm');
      assert.equal(patched.json.data.up, 'y');
      assert.equal((await api.call('POST', `/${model.id}/reprocess`)).status, 200);
      const again = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 60_000);
      assert.equal(again.status, 'completed', again.error);
      const resized = sizeOf(again.bounds);
      for (const [axis, expected] of [1, 0.5, 0.2].entries())
        assert.ok(Math.abs(resized[axis] - expected) < 1e-6, `${resized}`);
    });

    void it('refuses units and axes it does not know, with the allowed values', async () => {
      const stl = boxStl(1, 1, 1);
      const unit = await api.upload('a.stl', stl, { unit: 'furlong' });
      assert.equal(unit.status, 400);
      assert.equal(unit.json.error, 'unit must be one of mm, cm, m, in, ft');
      const up = await api.upload('a.stl', stl, { up: 'x' });
      assert.equal(up.status, 400);
      assert.equal(up.json.error, 'up must be one of y, z');
      const model = await api.create('a.stl', stl);
      assert.equal(model.unit, null);
      assert.equal(model.up, null);
      const patched = await api.call('PATCH', `/${model.id}`, { unit: 'yd' });
      assert.equal(patched.status, 400);
      assert.match(patched.json.error, /unit must be one of mm, cm, m, in, ft/);
    });

    void it('keeps the frame of the model for a next version that states none, and takes the one a version states', async () => {
      const stl = boxStl(100, 50, 20);
      const model = await api.create('bracket.stl', stl);
      await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 60_000);
      // Fixed after its upload: millimetres, Z up.
      assert.equal((await api.call('PATCH', `/${model.id}`, { unit: 'mm', up: 'z' })).status, 200);
      assert.equal((await api.call('POST', `/${model.id}/reprocess`)).status, 200);
      const fixed = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 60_000);
      assert.equal(fixed.status, 'completed', fixed.error);

      const waitForVersion = async (n: number) => {
        const deadline = Date.now() + 60_000;
        for (;;) {
          const answer = await api.call('GET', `/${model.id}/versions/${n}`);
          if (['completed', 'failed'].includes(answer.json.data?.status)) return answer.json.data;
          if (Date.now() > deadline) throw new Error(`version ${n} stuck: ${answer.text}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const post = async (fields: Record<string, string>, n: number) => {
        const posted = await api.postForm(`/${model.id}/versions`, fields, {
          field: 'file',
          filename: 'bracket.stl',
          data: stl,
        });
        assert.equal(posted.status, 202, posted.text);
        assert.equal((await waitForVersion(n)).status, 'completed');
        return (await api.call('GET', `/${model.id}`)).json.data;
      };

      const second = await post({}, 2);
      assert.equal(second.unit, 'mm');
      assert.equal(second.up, 'z');
      assert.equal(second.source_up_axis, '+Z');
      assert.deepEqual(second.bounds, fixed.bounds, 'the same file in the same frame');
      const diff = (await api.call('GET', `/${model.id}/versions/1/diff/2`)).json.data;
      assert.deepEqual(diff.counts, { added: 0, removed: 0, changed: 0, unchanged: 1 });

      // A version that states its frame has it: metres and Y up, the file 100 m long.
      const third = await post({ unit: 'm', up: 'y' }, 3);
      assert.equal(third.unit, 'm');
      assert.equal(third.up, 'y');
      const size = sizeOf(third.bounds);
      for (const [axis, expected] of [100, 50, 20].entries())
        assert.ok(Math.abs(size[axis] - expected) < 1e-6, `${size}`);
    });
  });
}
