// registerViewer on a bare Fastify app: cache headers, the not-built answer, and paths it must leave alone.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { VIEWER_NOT_BUILT, registerViewer } from '../../src/http/files/serve-viewer.ts';

let workDir: string;

before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'vitrine-viewer-'));
});

after(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** An app with an API prefix that has its own not-found answer, like the real material API. */
async function buildApp(distDir: string): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(
    async (api) => {
      api.get('/materials', async () => ({ code: 0 }));
      api.setNotFoundHandler(async (_request, reply) =>
        reply.code(404).send({ code: 404, message: 'not found' }),
      );
    },
    { prefix: '/api/v1' },
  );
  app.get('/health', async () => ({ status: 'ok' }));
  await registerViewer(app, { distDir });
  return app;
}

void describe('registerViewer with a built viewer', () => {
  let app: FastifyInstance;

  before(async () => {
    const dist = join(workDir, 'dist');
    await mkdir(join(dist, 'assets'), { recursive: true });
    await writeFile(join(dist, 'index.html'), '<!doctype html><title>Vitrine</title>');
    await writeFile(join(dist, 'assets', 'index-AbC123.js'), 'console.log(1);');
    app = await buildApp(dist);
  });

  after(() => app.close());

  void test('serves index.html at / without long caching', async () => {
    const response = await app.inject({ url: '/' });
    assert.equal(response.statusCode, 200);
    assert.match(response.headers['content-type'] as string, /text\/html/);
    assert.equal(response.headers['cache-control'], 'no-cache');
    assert.match(response.body, /<title>Vitrine<\/title>/);
  });

  void test('serves hashed assets with a year of immutable caching', async () => {
    const response = await app.inject({ url: '/assets/index-AbC123.js' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(response.body, 'console.log(1);');
  });

  void test('leaves unknown API paths to the API not-found handler', async () => {
    const response = await app.inject({ url: '/api/v1/nothing-here' });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), { code: 404, message: 'not found' });
  });

  void test('does not answer for /files, /docs or unknown viewer paths', async () => {
    for (const url of ['/files/abc/model.glb', '/docs', '/docs/json', '/models/123', '/assets/missing.js']) {
      const response = await app.inject({ url });
      assert.equal(response.statusCode, 404, url);
      assert.doesNotMatch(response.body, /<title>Vitrine/, url);
    }
  });

  void test('keeps API and health routes working', async () => {
    assert.deepEqual((await app.inject({ url: '/api/v1/materials' })).json(), { code: 0 });
    assert.deepEqual((await app.inject({ url: '/health' })).json(), { status: 'ok' });
  });
});

void describe('registerViewer without a build', () => {
  let app: FastifyInstance;

  before(async () => {
    const empty = join(workDir, 'empty');
    await mkdir(empty, { recursive: true });
    app = await buildApp(empty);
  });

  after(() => app.close());

  void test('answers 503 at / telling how to build the viewer', async () => {
    const response = await app.inject({ url: '/' });
    assert.equal(response.statusCode, 503);
    assert.match(response.headers['content-type'] as string, /text\/plain/);
    assert.equal(response.body, VIEWER_NOT_BUILT);
    assert.match(response.body, /npm run build:web/);
  });

  void test('serves a build made after start-up without a restart', async () => {
    const late = join(workDir, 'late');
    await mkdir(join(late, 'assets'), { recursive: true });
    const lateApp = await buildApp(late);
    try {
      assert.equal((await lateApp.inject({ url: '/' })).statusCode, 503);
      await writeFile(join(late, 'index.html'), '<!doctype html><title>Vitrine</title>');
      await writeFile(join(late, 'assets', 'index-New1.js'), 'console.log(2);');
      assert.equal((await lateApp.inject({ url: '/' })).statusCode, 200);
      assert.equal((await lateApp.inject({ url: '/assets/index-New1.js' })).body, 'console.log(2);');
    } finally {
      await lateApp.close();
    }
  });

  void test('still leaves the API alone', async () => {
    const response = await app.inject({ url: '/api/v1/nothing-here' });
    assert.deepEqual(response.json(), { code: 404, message: 'not found' });
  });
});
