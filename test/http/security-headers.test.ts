// No route used to send X-Content-Type-Options, a Content-Security-Policy or X-Frame-Options.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerSecurityHeaders } from '../../src/http/security-headers.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/** Every kind of answer the app gives: pages, scripts, JSON, refusals, errors and not-founds. */
const ROUTES: [url: string, status: number, kind: 'page' | 'inert'][] = [
  ['/', 200, 'page'],
  ['/index.html', 200, 'page'],
  ['/assets/index-Ab12.js', 200, 'page'],
  ['/assets/index-Ab12.css', 200, 'inert'],
  ['/docs', 200, 'page'],
  ['/docs/json', 200, 'inert'],
  ['/health', 200, 'inert'],
  ['/api/v1/materials', 401, 'inert'],
  ['/api/models', 401, 'inert'],
  ['/api/models/not-a-uuid', 401, 'inert'],
  ['/files/models/none/lod0.glb', 404, 'inert'],
  ['/nowhere', 404, 'inert'],
];

void describe('security headers on every route', () => {
  let testApp: TestApp;
  let dist: string;
  before(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      '<!doctype html><script type="module" src="/assets/index-Ab12.js"></script>',
    );
    fs.writeFileSync(path.join(dist, 'assets', 'index-Ab12.js'), 'console.log(1);');
    fs.writeFileSync(path.join(dist, 'assets', 'index-Ab12.css'), 'body{}');
    testApp = await createTestApp('sqlite', {
      WEB_DIST_DIR: dist,
      PUBLIC_BASE_URL: 'https://cdn.example:8443/x',
    });
  });
  after(async () => {
    await testApp.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  for (const [url, status, kind] of ROUTES) {
    void it(`${url} answers ${status} with the ${kind} policy`, async () => {
      const response = await testApp.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, status, response.body.slice(0, 200));
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['referrer-policy'], 'no-referrer');
      assert.equal(response.headers['x-frame-options'], 'DENY');
      assert.equal(response.headers['cross-origin-opener-policy'], 'same-origin');
      const csp = String(response.headers['content-security-policy']);
      assert.match(csp, /frame-ancestors 'none'/);
      if (kind === 'page') {
        const script = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
        assert.equal(script, "'self' 'wasm-unsafe-eval'", 'no inline script, no eval');
        assert.match(csp, /object-src 'none'/);
        assert.match(
          csp,
          /connect-src 'self' https:\/\/cdn\.example:8443 /,
          'models load from the public base URL',
        );
      } else {
        assert.match(csp, /default-src 'none'/);
        assert.match(csp, /(^|; )sandbox(;|$)/);
      }
    });
  }
});

void describe('a route with its own policy', () => {
  void it('keeps its Content-Security-Policy and gets no X-Frame-Options that would contradict it', async () => {
    const app = Fastify();
    registerSecurityHeaders(app);
    app.get('/embed', async (_request, reply) =>
      reply.type('text/html').header('content-security-policy', 'frame-ancestors *').send('<p>embed</p>'),
    );
    const response = await app.inject({ method: 'GET', url: '/embed' });
    assert.equal(response.headers['content-security-policy'], 'frame-ancestors *');
    assert.equal(response.headers['x-frame-options'], undefined);
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    await app.close();
  });
});
