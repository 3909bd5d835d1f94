import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import {
  MODELS,
  exitWithin,
  freePort,
  killChildren,
  readModel,
  runCli,
  sleep,
  tempDir,
  uploadModel,
  waitForHealth,
  waitForModel,
} from './service-process.ts';
import { startS3Server } from '../helpers/s3-server.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

// Every dated migration file, in name order: the CLI must apply them all, whoever added the latest.
// Months of migrations may sit in folders of their own, so the folder is read with its sub-folders.
const MIGRATIONS = fs
  .readdirSync(path.join(CHECKOUT_ROOT, 'src', 'db', 'migrations'), { recursive: true })
  .map((name) => path.basename(String(name)))
  .filter((name) => /^\d{4}-\d{2}-\d{2}-\d{2}-.+\.ts$/.test(name))
  .map((name) => name.slice(0, -'.ts'.length))
  .sort();
const SMALL_MODEL = path.join(MODELS, 'glb', 'MultiUVTest.glb');

void describe('the vitrine command', () => {
  const dataDirs: string[] = [];

  afterEach(async () => {
    await killChildren();
    for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  function dataDir(): string {
    const dir = tempDir('cli');
    dataDirs.push(dir);
    return dir;
  }

  void it('migrate applies every migration to a fresh SQLite DATA_DIR, then finds nothing to do', async () => {
    const dir = dataDir();
    const first = runCli('migrate', { DATA_DIR: dir });
    assert.deepEqual(await exitWithin(first, 60_000), { code: 0, signal: null }, first.stderr());
    assert.equal(first.stdout(), `Applied: ${MIGRATIONS.join(', ')}\n`);
    assert.ok(fs.statSync(path.join(dir, 'vitrine.db')).size > 0, 'the database file was created');

    const again = runCli('migrate', { DATA_DIR: dir });
    assert.deepEqual(await exitWithin(again, 60_000), { code: 0, signal: null }, again.stderr());
    assert.equal(again.stdout(), 'Database is up to date\n');
  });

  void it('start prints its address, token and docs, serves, keeps the generated token and stops on SIGTERM', async () => {
    const dir = dataDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1' };

    const first = runCli('start', env);
    const [, printedUrl] = await first.waitForOutput(/Vitrine is running at (\S+)/);
    assert.equal(printedUrl, url);
    const [, token, tokenFile] = await first.waitForOutput(/API token: (\S+) +\(kept in (.+)\)/);
    assert.equal(tokenFile, path.join(dir, 'api-token'));
    assert.equal(fs.readFileSync(tokenFile, 'utf8').trim(), token);
    assert.ok(token.length >= 24, `a long random token, got "${token}"`);
    assert.match(first.stdout(), new RegExp(`API docs: +${url}/docs\\b`));
    assert.match(first.stdout(), /Worker: +embedded/);

    await waitForHealth(url);
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200);
    assert.equal((await fetch(`${url}/api/models`)).status, 401);
    const listed = await fetch(`${url}/api/models`, { headers: { 'x-api-token': token } });
    assert.equal(listed.status, 200);
    assert.equal((await fetch(`${url}/docs`)).ok, true, 'the API docs are served');

    const stopping = Date.now();
    first.child.kill('SIGTERM');
    assert.deepEqual(await exitWithin(first, 10_000), { code: 0, signal: null }, first.stderr());
    assert.ok(Date.now() - stopping < 5_000, `stopped in ${Date.now() - stopping} ms`);
    await assert.rejects(fetch(`${url}/health`), 'nothing listens any more');

    // The second start reads the kept token instead of making a new one.
    const second = runCli('start', env);
    const [, reused] = await second.waitForOutput(/API token: (\S+) +\(kept in/);
    assert.equal(reused, token);
    await waitForHealth(url);
    const again = await fetch(`${url}/api/models`, { headers: { 'x-api-token': token } });
    assert.equal(again.status, 200);
    second.child.kill('SIGINT');
    assert.deepEqual(await exitWithin(second, 10_000), { code: 0, signal: null }, second.stderr());
  });

  void it('start stops on SIGTERM when the reader of its output is gone, with log lines still to write', async () => {
    const port = await freePort();
    // At info the stop logs a line of its own, buffered when the signal comes.
    const env = { DATA_DIR: dataDir(), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const service = runCli('start', env);
    await service.waitForOutput(/Vitrine is running at/);
    await waitForHealth(`http://127.0.0.1:${port}`);
    // A pipe whose reader exited: every write the service makes from now on fails.
    service.child.stdout?.destroy();
    service.child.stderr?.destroy();
    service.child.kill('SIGTERM');
    assert.deepEqual(await exitWithin(service, 15_000), { code: 0, signal: null });
  });

  void it('start with API_TOKEN uses it and writes no token file', async () => {
    const dir = dataDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const service = runCli('start', { DATA_DIR: dir, PORT: String(port), API_TOKEN: 'configured-token' });
    await service.waitForOutput(/API token: from API_TOKEN/);
    await waitForHealth(url);
    const listed = await fetch(`${url}/api/models`, { headers: { 'x-api-token': 'configured-token' } });
    assert.equal(listed.status, 200);
    assert.equal(fs.existsSync(path.join(dir, 'api-token')), false);
    assert.doesNotMatch(service.stdout(), /configured-token/, 'the configured token is not printed');
  });

  for (const [variable, value] of [
    ['PORT', 'abc'],
    ['JOB_LEASE_SECONDS', '0'],
    ['DATABASE_URL', 'mysql://localhost/vitrine'],
  ] as const) {
    void it(`refuses a bad ${variable} with a message naming it`, async () => {
      const service = runCli('start', { DATA_DIR: dataDir(), [variable]: value });
      const exit = await exitWithin(service, 30_000);
      assert.equal(exit.signal, null);
      assert.notEqual(exit.code, 0);
      assert.match(service.stderr(), new RegExp(`\\b${variable}\\b`));
      assert.equal(service.stdout(), '', 'nothing started');
    });
  }

  void it('reads .env from the working folder, the environment winning over it', async () => {
    const folder = dataDir();
    const port = await freePort();
    fs.writeFileSync(
      path.join(folder, '.env'),
      `# settings of this folder\nPORT=${port}\nAPI_TOKEN=from-the-env-file-0123\nHOST=0.0.0.0\n`,
    );
    const service = runCli('serve', { DATA_DIR: path.join(folder, 'data'), HOST: '127.0.0.1' }, folder);
    await service.waitForOutput(/Vitrine is running at/);
    assert.match(service.stdout(), new RegExp(`http://127\\.0\\.0\\.1:${port}`), 'HOST from the environment');
    assert.match(service.stdout(), /API token: from API_TOKEN/);
    const answer = await fetch(`http://127.0.0.1:${port}/api/models`, {
      headers: { 'x-api-token': 'from-the-env-file-0123' },
    });
    assert.equal(answer.status, 200);
  });

  void it('says in one line that Redis cannot be reached, naming REDIS_URL', async () => {
    const closed = await freePort();
    const service = runCli('worker', {
      DATA_DIR: dataDir(),
      REDIS_URL: `redis://:hunter2@127.0.0.1:${closed}`,
      DATABASE_CONNECT_TIMEOUT_SECONDS: '1',
    });
    const exit = await exitWithin(service, 30_000);
    assert.equal(exit.code, 1);
    assert.match(
      service.stderr(),
      new RegExp(
        `^vitrine: cannot reach Redis at REDIS_URL \\(redis://:\\*\\*\\*@127\\.0\\.0\\.1:${closed}\\)`,
      ),
    );
    assert.equal(service.stderr().trim().split('\n').length, 1, service.stderr());
    assert.doesNotMatch(service.stderr(), /hunter2/, 'the password is not printed');
  });

  for (const [setting, env, message] of [
    [
      'a bucket that does not exist',
      { STORAGE_URL: 's3://no-such-bucket/site' },
      /STORAGE_URL names bucket "no-such-bucket"/,
    ],
    [
      'refused credentials',
      { AWS_ACCESS_KEY_ID: 'UNKNOWNKEY', AWS_SECRET_ACCESS_KEY: 'wrong-secret' },
      /AWS credentials \(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN\) are not accepted/,
    ],
  ] as const) {
    void it(`says in one line that S3 storage is unusable with ${setting}`, async () => {
      const s3 = await startS3Server();
      try {
        for (const command of ['serve', 'worker']) {
          const service = runCli(command, { DATA_DIR: dataDir(), ...s3.env('site'), ...env });
          assert.equal((await exitWithin(service, 30_000)).code, 1);
          assert.match(service.stderr(), /^vitrine: S3 storage unusable: /);
          assert.match(service.stderr(), message);
          assert.equal(service.stderr().trim().split('\n').length, 1, service.stderr());
          assert.doesNotMatch(service.stderr(), /wrong-secret/, 'the secret is not printed');
        }
      } finally {
        await s3.close();
      }
    });
  }

  void it('says in one line that the port is taken, without a stack trace', async () => {
    const port = String(await freePort());
    const first = runCli('serve', { DATA_DIR: dataDir(), PORT: port });
    await first.waitForOutput(/Vitrine is running at/);
    const second = runCli('serve', { DATA_DIR: dataDir(), PORT: port });
    const exit = await exitWithin(second, 30_000);
    assert.equal(exit.code, 1);
    assert.equal(
      second.stderr(),
      `vitrine: 127.0.0.1:${port} is already in use; stop the program holding it or choose another PORT\n`,
    );
  });

  void it('rejects an unknown command with the usage', async () => {
    const service = runCli('frobnicate', {});
    assert.deepEqual(await exitWithin(service, 30_000), { code: 2, signal: null });
    assert.match(service.stderr(), /Unknown command "frobnicate"/);
    assert.match(service.stderr(), /vitrine <command>/);
  });

  void it('serve converts nothing, while a separate worker on the same DATA_DIR does', async () => {
    const dir = dataDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { DATA_DIR: dir, PORT: String(port), API_TOKEN: 'serve-test-token' };

    const api = runCli('serve', env);
    await api.waitForOutput(/Worker: +none/);
    await waitForHealth(url);
    const uploaded = await uploadModel(url, env.API_TOKEN, SMALL_MODEL);
    assert.equal(uploaded.status, 'pending');
    // Long enough for an embedded worker (it polls every second and is woken by the enqueue) to have claimed it.
    await sleep(2_500);
    assert.equal((await readModel(url, env.API_TOKEN, uploaded.id)).status, 'pending');

    const worker = runCli('worker', env);
    const done = await waitForModel(
      url,
      env.API_TOKEN,
      uploaded.id,
      (model) => model.status === 'completed' || model.status === 'failed',
      120_000,
      200,
    );
    assert.equal(done.status, 'completed', `error: ${done.error}`);
    assert.ok(done.model_url);
    assert.ok((done.triangle_count ?? 0) > 0);

    worker.child.kill('SIGTERM');
    api.child.kill('SIGTERM');
    assert.deepEqual(await exitWithin(worker, 10_000), { code: 0, signal: null }, worker.stderr());
    assert.deepEqual(await exitWithin(api, 10_000), { code: 0, signal: null }, api.stderr());
  });
});
