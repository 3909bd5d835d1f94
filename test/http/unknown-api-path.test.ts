import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Routing is the same on both databases; SQLite keeps this quick.
void describe('unknown paths', () => {
  let testApp: TestApp;
  before(async () => void (testApp = await createTestApp('sqlite')));
  after(() => testApp.close());

  const get = (url: string) => testApp.app.inject({ method: 'GET', url, headers: testApp.auth });

  void it("answer 404 in their API family's envelope under /api", async () => {
    const catalog = JSON.stringify({ success: false, error: 'Not found' });
    const materials = JSON.stringify({ code: 404, message: 'not found' });
    const cases: [string, string][] = [
      ['/api', catalog],
      ['/api/', catalog],
      ['/api/nope', catalog],
      ['/api/nope/deeper?x=1', catalog],
      ['/api/models/a/b/c', catalog],
      ['/api/v1/nope', materials],
      ['/api/v1', materials],
    ];
    for (const [url, body] of cases) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.body, body, url);
      assert.match(String(response.headers['content-type']), /^application\/json/, url);
    }
  });

  void it("keep Fastify's 404 body outside /api", async () => {
    const response = await get('/nope.txt');
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), {
      message: 'Route GET:/nope.txt not found',
      error: 'Not Found',
      statusCode: 404,
    });
  });
});
