// Events made in another OS process reach a stream on this one through PostgreSQL LISTEN/NOTIFY alone: this
// app's timer that reads the log is turned off, and the upload and its conversion happen in a `vitrine start`
// child process on the same database.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { startServer, type RunningServer } from '../e2e/support/server-process.ts';
import { testPostgresUrl } from '../helpers/databases.ts';
import { openEventClient, type EventClient } from '../helpers/event-client.ts';
import { createTestApp, TEST_TOKEN, type TestApp } from '../helpers/test-app.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const TIMEOUT_MS = 120_000;

void describe('events across processes (postgres, LISTEN/NOTIFY)', () => {
  let testApp: TestApp;
  let other: RunningServer;
  let otherDataDir: string;
  let baseUrl: string;
  const clients: EventClient[] = [];

  before(async () => {
    testPostgresUrl();
    testApp = await createTestApp('postgres', {}, { eventHub: { fallbackPollMs: 3_600_000 } });
    baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    otherDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-other-'));
    other = await startServer({
      repoDir: REPO,
      dataDir: otherDataDir,
      apiToken: TEST_TOKEN,
      timeoutMs: 60_000,
      env: { DATABASE_URL: testApp.config.databaseUrl, LOG_LEVEL: 'warn' },
    });
  });
  after(async () => {
    for (const client of clients) client.close();
    await other?.stop();
    await testApp?.close();
    if (otherDataDir) fs.rmSync(otherDataDir, { recursive: true, force: true });
  });

  void it('streams created → progress → completed of an upload made and converted by another process', async () => {
    const stream = await openEventClient(`${baseUrl}/api/events`, testApp.auth);
    clients.push(stream);
    assert.equal(stream.status, 200);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await twoPartGlb('elsewhere'))]), 'elsewhere.glb');
    const response = await fetch(`${other.baseUrl}/api/models`, {
      method: 'POST',
      headers: { 'x-api-token': TEST_TOKEN },
      body: form,
    });
    assert.equal(response.status, 201, await response.clone().text());
    const id = ((await response.json()) as { data: { id: string } }).data.id;
    const about = (type: string) => (event: { type: string; data: object }) =>
      event.type === type && (event.data as { model_id?: string }).model_id === id;
    const completed = await stream.waitFor(about('model.completed'), TIMEOUT_MS);
    const created = stream.events.find(about('model.created'));
    const progress = stream.events.find(about('model.progress'));
    assert.ok(created && progress, `created and progress too: ${JSON.stringify(stream.events)}`);
    assert.ok(created.id < progress.id && progress.id < completed.id);

    const resumed = await openEventClient(`${baseUrl}/api/events?model_id=${id}`, {
      ...testApp.auth,
      'last-event-id': String(created.id),
    });
    clients.push(resumed);
    await resumed.waitFor((event) => event.id === completed.id, 10_000);
    assert.deepEqual(
      resumed.events.map((event) => event.type),
      stream.events.filter((event) => event.id > created.id && about(event.type)(event)).map((e) => e.type),
    );
  });
});
