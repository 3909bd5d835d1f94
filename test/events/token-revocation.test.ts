// An event stream lasts no longer than its token: revoking (deleting) or expiry ends it, at once in the process
// that revoked it and within EVENT_STREAM_TOKEN_CHECK_SECONDS elsewhere, and it receives nothing after.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { openEventClient, type EventClient } from '../helpers/event-client.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const CHECK_SECONDS = 1;

/** Resolves with the milliseconds until the stream ends; fails if it is still open after `withinMs`. */
async function endsWithin(client: EventClient, withinMs: number): Promise<number> {
  const started = Date.now();
  await assert.rejects(
    client.waitFor(() => false, withinMs),
    /the stream ended/,
  );
  return Date.now() - started;
}

for (const dialect of testDialects()) {
  void describe(`event streams of revoked tokens (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let baseUrl: string;
    const clients: EventClient[] = [];
    const open = async (token: string) => {
      const client = await openEventClient(`${baseUrl}/api/events`, { 'x-api-token': token });
      clients.push(client);
      assert.equal(client.status, 200, client.body);
      return client;
    };
    const createToken = async (body: object) => {
      const answer = await testApp.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: testApp.auth,
        payload: body,
      });
      assert.equal(answer.statusCode, 201, answer.body);
      return answer.json().data as { id: string; token: string };
    };
    /** Uploads a model and waits until the admin stream shows its creation; its id. */
    const announce = async (watcher: EventClient, name: string) => {
      const model = await api.create(`${name}.glb`, await twoPartGlb(name), { name });
      await watcher.waitFor(
        (event) =>
          event.type === 'model.created' && (event.data as { model_id: string }).model_id === model.id,
        30_000,
      );
      return model.id as string;
    };
    const modelIdsSeen = (client: EventClient) =>
      client.events.map((event) => (event.data as { model_id?: string }).model_id);

    before(async () => {
      testApp = await createTestApp(dialect, { EVENT_STREAM_TOKEN_CHECK_SECONDS: String(CHECK_SECONDS) });
      api = catalogApi(testApp.app, testApp.auth);
      baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      for (const client of clients) client.close();
      await testApp.close();
    });

    void it('ends the streams of a token revoked in this process before the revocation answers', async () => {
      const admin = await open(testApp.auth['x-api-token']!);
      const { id, token } = await createToken({ name: 'viewer', scope: 'read' });
      const stream = await open(token);
      const before = await announce(admin, 'before-revoke');
      await stream.waitFor((event) => (event.data as { model_id?: string }).model_id === before, 30_000);

      const revoked = await testApp.app.inject({
        method: 'DELETE',
        url: `/api/tokens/${id}`,
        headers: testApp.auth,
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      const ms = await endsWithin(stream, 500);
      const later = await announce(admin, 'after-revoke');
      assert.ok(!modelIdsSeen(stream).includes(later), 'nothing after the revocation');
      assert.ok(ms < 500, `ended ${ms} ms after the answer`);
    });

    void it('ends within the check interval the streams of a token deleted by another process, or expired', async () => {
      const admin = await open(testApp.auth['x-api-token']!);
      const deleted = await createToken({ name: 'elsewhere', scope: 'write' });
      const expiring = await createToken({
        name: 'brief',
        scope: 'read',
        expires_at: new Date(Date.now() + 1_500).toISOString(),
      });
      const deletedStream = await open(deleted.token);
      const expiringStream = await open(expiring.token);
      const kept = await createToken({ name: 'kept', scope: 'read' });
      const keptStream = await open(kept.token);

      // Another API process revokes it: the row goes, and this process hears of it only through its check.
      const revokedAt = Date.now();
      await testApp.database.db.deleteFrom('api_tokens').where('id', '=', deleted.id).execute();
      await endsWithin(deletedStream, CHECK_SECONDS * 1000 + 1_000);
      const afterRevocation = Date.now() - revokedAt;
      assert.ok(afterRevocation <= CHECK_SECONDS * 1000 + 1_000, `ended ${afterRevocation} ms after`);

      await endsWithin(expiringStream, 1_500 + CHECK_SECONDS * 1000 + 1_000);
      const later = await announce(admin, 'after-expiry');
      assert.ok(!modelIdsSeen(deletedStream).includes(later));
      assert.ok(!modelIdsSeen(expiringStream).includes(later));
      // A token still valid keeps its stream through the checks.
      await keptStream.waitFor((event) => (event.data as { model_id?: string }).model_id === later, 30_000);
    });
  });
}
