import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const VIEWER = 'https://viewer.example.com';

for (const dialect of testDialects()) {
  void describe(`CORS with CORS_ORIGINS set (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => {
      testApp = await createTestApp(dialect, { CORS_ORIGINS: `${VIEWER},http://localhost:5173` });
    });
    after(() => testApp.close());

    void it('answers a preflight from an allowed origin without a token, allowing X-API-Token', async () => {
      for (const url of ['/api/models', '/api/v1/materials/1/bindings', '/api/events', '/api/webhooks']) {
        const answer = await testApp.app.inject({
          method: 'OPTIONS',
          url,
          headers: {
            origin: VIEWER,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'x-api-token, content-type',
          },
        });
        assert.equal(answer.statusCode, 204, url);
        assert.equal(answer.headers['access-control-allow-origin'], VIEWER);
        assert.match(String(answer.headers['access-control-allow-headers']), /X-API-Token/);
        assert.match(String(answer.headers['access-control-allow-headers']), /Idempotency-Key/);
        assert.match(String(answer.headers['access-control-allow-methods']), /DELETE/);
        assert.equal(answer.headers.vary, 'Origin');
      }
    });

    void it('marks answers to an allowed origin, and only those', async () => {
      const allowed = await testApp.app.inject({
        method: 'GET',
        url: '/api/models',
        headers: { ...testApp.auth, origin: VIEWER },
      });
      assert.equal(allowed.statusCode, 200);
      assert.equal(allowed.headers['access-control-allow-origin'], VIEWER);
      assert.match(String(allowed.headers['access-control-expose-headers']), /ETag/);
      assert.match(String(allowed.headers['access-control-expose-headers']), /Idempotent-Replayed/);
      // A refused token still carries the header, so the page can read the 401 and ask for a token.
      const unauthorised = await testApp.app.inject({
        method: 'GET',
        url: '/api/models',
        headers: { origin: VIEWER },
      });
      assert.equal(unauthorised.statusCode, 401);
      assert.equal(unauthorised.headers['access-control-allow-origin'], VIEWER);

      const foreign = await testApp.app.inject({
        method: 'OPTIONS',
        url: '/api/models',
        headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'GET' },
      });
      assert.equal(foreign.headers['access-control-allow-origin'], undefined);
      assert.equal(foreign.statusCode, 401);
      const health = await testApp.app.inject({ method: 'GET', url: '/health', headers: { origin: VIEWER } });
      assert.equal(health.headers['access-control-allow-origin'], undefined, 'only /api/');
    });
  });
}

void describe('CORS without CORS_ORIGINS', () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await createTestApp('sqlite');
  });
  after(() => testApp.close());

  void it('allows no origin', async () => {
    const preflight = await testApp.app.inject({
      method: 'OPTIONS',
      url: '/api/models',
      headers: { origin: VIEWER, 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const read = await testApp.app.inject({
      method: 'GET',
      url: '/api/models',
      headers: { ...testApp.auth, origin: VIEWER },
    });
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['access-control-allow-origin'], undefined);
  });
});
