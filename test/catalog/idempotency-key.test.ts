// A multipart upload sent with an `Idempotency-Key` makes one model however often it is retried: the same key
// with the same token within IDEMPOTENCY_KEY_HOURS answers the first model (200, `Idempotent-Replayed: true`),
// concurrent copies included (a unique index decides); the same key with a different request is 422, as the IETF
// Idempotency-Key draft says; another token's key, or a key past its window, is a new request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BAD_IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_REUSED } from '../../src/catalog/intake/request-keys.ts';
import { catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { multipartForm } from '../helpers/multipart.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
const OTHER_OBJ = 'v 0 0 0\nv 2 0 0\nv 0 2 0\nf 1 2 3\n';

for (const dialect of testDialects()) {
  void describe(`multipart uploads with an Idempotency-Key (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => void (testApp = await createTestApp(dialect)));
    after(() => testApp.close());

    /** Posts a one-file form with the key (and another token when given). */
    const post = async (key: string | undefined, body = OBJ, fields = { name: 'Keyed' }, token?: string) => {
      const form = multipartForm(fields, { field: 'file', filename: 'triangle.obj', data: body });
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/api/models',
        headers: {
          ...testApp.auth,
          ...(token ? { 'x-api-token': token } : {}),
          ...(key === undefined ? {} : { 'idempotency-key': key }),
          ...form.headers,
        },
        payload: form.payload,
      });
      return {
        status: response.statusCode,
        text: response.body,
        headers: response.headers,
        id: idOf(response.body),
      };
    };
    const idOf = (body: string): string | undefined =>
      (JSON.parse(body) as { data?: { id?: string } }).data?.id;
    const count = async () => (await testApp.database.db.selectFrom('models').select('id').execute()).length;

    void it('answers a retry with the same key with the first model; the catalog holds one', async () => {
      const before = await count();
      const first = await post('retry-1');
      assert.equal(first.status, 201, first.text);
      const retry = await post('retry-1');
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.id, first.id);
      // The key as a structured-field string is the same key.
      const quoted = await post('"retry-1"');
      assert.equal(quoted.id, first.id);
      assert.equal(await count(), before + 1);
      // Without a key, the same request is a new model, as before.
      assert.equal((await post(undefined)).status, 201);
      assert.equal(await count(), before + 2);
    });

    void it('refuses the same key with a different file or fields (422), making nothing', async () => {
      const first = await post('reused-1');
      assert.equal(first.status, 201, first.text);
      const before = await count();
      for (const changed of [
        await post('reused-1', OTHER_OBJ),
        await post('reused-1', OBJ, { name: 'Else' }),
      ]) {
        assert.equal(changed.status, 422, changed.text);
        assert.equal(changed.text, catalogError(IDEMPOTENCY_KEY_REUSED));
      }
      assert.equal(await count(), before);
    });

    void it('keeps keys apart by token', async () => {
      const created = await testApp.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: testApp.auth,
        payload: { name: 'uploader', scope: 'write' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const other = (created.json() as { data: { token: string } }).data.token;
      const mine = await post('shared-key');
      const theirs = await post('shared-key', OBJ, { name: 'Keyed' }, other);
      assert.equal(mine.status, 201, mine.text);
      assert.equal(theirs.status, 201, theirs.text);
      assert.notEqual(theirs.id, mine.id);
    });

    void it('makes one model of concurrent requests with one key', async () => {
      const before = await count();
      const answers = await Promise.all([1, 2, 3, 4].map(() => post('concurrent-1')));
      const ids = new Set(answers.map((answer) => answer.id));
      assert.equal(ids.size, 1, answers.map((answer) => `${answer.status} ${answer.text}`).join('\n'));
      assert.deepEqual(
        answers.map((answer) => answer.status).sort(),
        [200, 200, 200, 201],
        answers.map((answer) => answer.text).join('\n'),
      );
      assert.equal(await count(), before + 1);
    });

    void it('takes a key past its window (IDEMPOTENCY_KEY_HOURS) as new', async () => {
      const first = await post('old-1');
      assert.equal(first.status, 201, first.text);
      const longAgo = new Date(Date.now() - 25 * 3600 * 1000).toISOString();
      await testApp.database.db
        .updateTable('models')
        .set({ created_at: longAgo })
        .where('id', '=', first.id!)
        .execute();
      const later = await post('old-1', OTHER_OBJ);
      assert.equal(later.status, 201, later.text);
      assert.notEqual(later.id, first.id);
      assert.equal((await post('old-1', OTHER_OBJ)).id, later.id, 'the key now answers the new model');
    });

    void it('refuses a key that is empty, too long or not visible ASCII (400)', async () => {
      const before = await count();
      for (const key of ['', 'x'.repeat(256), 'two words']) {
        const refused = await post(key);
        assert.equal(refused.status, 400, `${JSON.stringify(key)}: ${refused.text}`);
        assert.equal(refused.text, catalogError(BAD_IDEMPOTENCY_KEY));
      }
      assert.equal(await count(), before);
    });
  });
}
