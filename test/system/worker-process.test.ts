import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  MODELS,
  exitWithin,
  freePort,
  killChildren,
  runCli,
  tempDir,
  uploadModel,
  waitForHealth,
  waitForModel,
} from './service-process.ts';

const SMALL_MODEL = path.join(MODELS, 'stl', 'cyl_w_rect_hole.stl');
const RECORD_IMPORTS = new URL('./record-imports.mjs', import.meta.url).href;
/** The extension of the modules the worker runs: compiled when this suite runs compiled (cli-arguments.ts). */
const OWN_EXTENSION = path.extname(import.meta.filename);

void describe('vitrine worker', () => {
  after(killChildren);

  void it('converts a model from its own process without loading the HTTP server', async () => {
    const dir = tempDir('worker-imports');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { DATA_DIR: dir, PORT: String(port), API_TOKEN: 'worker-imports-token' };
    const importLog = path.join(dir, 'imports.txt');

    const api = runCli('serve', env);
    await waitForHealth(url);
    const worker = runCli('worker', { ...env, VITRINE_IMPORT_LOG: importLog }, undefined, [
      '--import',
      RECORD_IMPORTS,
    ]);
    const uploaded = await uploadModel(url, env.API_TOKEN, SMALL_MODEL);
    const done = await waitForModel(
      url,
      env.API_TOKEN,
      uploaded.id,
      (model) => model.status === 'completed' || model.status === 'failed',
      120_000,
      200,
    );
    assert.equal(done.status, 'completed', `error: ${done.error}`);
    worker.child.kill('SIGTERM');
    api.child.kill('SIGTERM');
    assert.deepEqual(await exitWithin(worker, 10_000), { code: 0, signal: null }, worker.stderr());
    await exitWithin(api, 10_000);

    const imports = fs.readFileSync(importLog, 'utf8').split('\n');
    // The recording works: the worker's own modules are in it.
    assert.ok(
      imports.some((url) => url.endsWith(`/src/worker-process${OWN_EXTENSION}`)),
      `worker-process${OWN_EXTENSION} recorded`,
    );
    assert.ok(
      imports.some((url) => url.endsWith(`/src/job-runner${OWN_EXTENSION}`)),
      `job-runner${OWN_EXTENSION} recorded`,
    );
    const http = imports.filter(
      (url) => /\/node_modules\/(fastify|@fastify)\//.test(url) || /\/src\/(app|server)\.[jt]s$/.test(url),
    );
    assert.deepEqual(http, [], 'the worker process loaded HTTP modules');
  });
});
