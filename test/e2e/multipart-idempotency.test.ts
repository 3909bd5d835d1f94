// The viewer's multipart upload (a model with its resources) carries an Idempotency-Key: the first sending reaches
// the server and makes the model, but its answer is lost (the connection is reset on the way back); the viewer
// sends the same request again under the same key and gets the first model (200), so one model is made, not two.
// A new upload gets a new key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { skipWithoutChromium } from './support/chromium.ts';
import { openViewerSession, type ViewerSession } from './support/viewer-session.ts';

const TOKEN = 'e2e-multipart-key-token-0123456789';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An OBJ triangle with its material library, which makes the viewer send both in one multipart request. */
function triangleFiles(name: string) {
  const obj = `mtllib ${name}.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n`;
  const mtl = 'newmtl red\nKd 1 0 0\n';
  return [
    { name: `${name}.obj`, mimeType: 'text/plain', buffer: Buffer.from(obj) },
    { name: `${name}.mtl`, mimeType: 'text/plain', buffer: Buffer.from(mtl) },
  ];
}

void describe(
  'the viewer sends its multipart upload again under one Idempotency-Key',
  { timeout: 5 * 60_000, skip: skipWithoutChromium },
  () => {
    let session: ViewerSession;
    let page: Page;
    /** Each POST /api/models the page sent: its key and what the server answered it (before any reset). */
    const posts: { key: string | undefined; status: number }[] = [];

    before(async () => {
      session = await openViewerSession('multipart-key', TOKEN);
      page = session.page;
      await page.route('**/api/models', async (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        const key = (await route.request().allHeaders())['idempotency-key'];
        const answer = await route.fetch();
        posts.push({ key, status: answer.status() });
        // The first answer never reaches the page, as when a connection drops after the server has done its work.
        if (posts.length === 1) return route.abort('connectionreset');
        return route.fulfill({ response: answer });
      });
      await page.goto(session.server.baseUrl + '/');
      await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
    });
    after(() => session?.close());

    /** Chooses the files in the upload panel and waits until their upload item settles; returns its status. */
    const upload = async (name: string): Promise<string> => {
      await page.locator('.upload-panel input[type=file]').setInputFiles(triangleFiles(name));
      const title = `${name}.obj + 1 files`;
      await page.waitForFunction(
        (file) => {
          const status = document.querySelector<HTMLElement>(`.upload-item[data-file="${file}"]`)?.dataset
            .status;
          return status === 'completed' || status === 'failed' || status === 'upload-failed';
        },
        title,
        { timeout: 120_000, polling: 250 },
      );
      return (await page.locator(`.upload-item[data-file="${title}"]`).getAttribute('data-status')) ?? '';
    };

    void test('a lost answer is retried under the same key and makes one model', async () => {
      assert.equal(await upload('first'), 'completed');
      assert.equal(posts.length, 2, JSON.stringify(posts));
      const [sent, resent] = posts;
      assert.match(sent!.key ?? '', UUID_V4);
      assert.equal(resent!.key, sent!.key, 'the retry carries the same key');
      assert.deepEqual(
        posts.map((post) => post.status),
        [201, 200],
        'the first sending made the model, the retry was answered it',
      );
      const listed = (await (await session.client.call('/api/models')).json()) as {
        data: { name: string }[];
      };
      assert.deepEqual(
        listed.data.map((model) => model.name),
        ['first'],
      );
      assert.deepEqual(session.pageErrors, []);
    });

    void test('a new upload gets a new key', async () => {
      assert.equal(await upload('second'), 'completed');
      assert.equal(posts.length, 3, JSON.stringify(posts));
      assert.match(posts[2]!.key ?? '', UUID_V4);
      assert.notEqual(posts[2]!.key, posts[0]!.key);
      assert.equal(posts[2]!.status, 201);
    });
  },
);
