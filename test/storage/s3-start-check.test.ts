// A wrong bucket, refused credentials or an unreachable endpoint must stop the start with one line naming what to
// fix, not a stack trace on the first upload. The start-up sweep must still clean local scratch with S3 storage.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../src/config-error.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { openServices, sweepAtStart } from '../../src/services.ts';
import { processTag } from '../../src/storage/sweep-leftovers.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../helpers/s3-server.ts';

/** A port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

void describe('S3 storage check at start', () => {
  let s3: TestS3Server;
  let database: TestDatabase;
  let dataDir: string;
  const savedEnv = { ...process.env };
  before(async () => {
    s3 = await startS3Server();
    database = await createTestDatabase('sqlite');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-s3-start-'));
  });
  after(async () => {
    process.env = savedEnv;
    await s3.close();
    await database.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Opens the services on the test database with S3 settings, the credentials set as the SDK's chain reads them. */
  const open = (env: Record<string, string>, credentials = S3RVER_CREDENTIALS) => {
    Object.assign(process.env, credentials);
    return openServices(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: database.url, ...s3.env(), ...env }));
  };
  const refusesNaming = async (opening: Promise<unknown>, variable: RegExp) =>
    assert.rejects(opening, (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.match(error.message, variable);
      assert.doesNotMatch(error.message, /\n/, 'one line');
      return true;
    });

  void it('opens on a reachable bucket with accepted credentials', async () => {
    const services = await open({});
    assert.equal(services.blobs.localRoot, undefined);
    await services.close();
  });

  void it('names STORAGE_URL for a bucket that does not exist', async () => {
    await refusesNaming(open({ STORAGE_URL: 's3://no-such-bucket/p' }), /STORAGE_URL.*"no-such-bucket"/);
  });

  void it('names the AWS credentials when the server refuses them', async () => {
    await refusesNaming(
      open({}, { AWS_ACCESS_KEY_ID: 'UNKNOWNKEY', AWS_SECRET_ACCESS_KEY: 'nope' }),
      /AWS_ACCESS_KEY_ID.*not accepted/,
    );
  });

  void it('names S3_ENDPOINT when nothing answers there', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    await refusesNaming(
      open({ S3_ENDPOINT: endpoint }),
      new RegExp(`S3_ENDPOINT ${endpoint} cannot be reached`),
    );
  });

  void it('sweeps local scratch of dead processes at start when files are in S3', async () => {
    const dead = processTag(
      Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout),
    );
    const leftover = path.join(dataDir, 'tmp', 'jobs', dead, 'convert-x', 'upload.glb');
    fs.mkdirSync(path.dirname(leftover), { recursive: true });
    fs.writeFileSync(leftover, 'glTF');
    const services = await open({});
    await sweepAtStart(loadConfig({ DATA_DIR: dataDir, ...s3.env() }), services, createLogger('silent'));
    assert.equal(fs.existsSync(path.join(dataDir, 'tmp', 'jobs', dead)), false);
    await services.close();
  });
});
