import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';

/** The credentials s3rver accepts (its built-in account). */
export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

/** A local S3 server holding one bucket, in a temporary folder. */
export interface TestS3Server {
  /** `http://127.0.0.1:<port>`, for `S3_ENDPOINT`. */
  endpoint: string;
  bucket: string;
  /** The environment that points the service at this server and bucket, under `prefix`. */
  env(prefix?: string): Record<string, string>;
  /** Stops answering (connections dropped, port closed) to play an outage; the objects are kept. */
  stop(): Promise<void>;
  /** Answers again on the same port with the same objects. */
  restart(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 on a free port, with `bucket` created. */
export async function startS3Server(bucket = 'vitrine-test'): Promise<TestS3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-s3-'));
  let port = 0;
  let server: Server | undefined;
  const start = async () => {
    const s3rver = new S3rver({
      address: '127.0.0.1',
      port,
      directory,
      silent: true,
      configureBuckets: [{ name: bucket, configs: [] }],
    });
    port = ((await s3rver.run()) as AddressInfo).port;
    server = s3rver.httpServer;
  };
  const stop = async () => {
    const running = server;
    server = undefined;
    if (!running) return;
    // The SDK keeps connections alive; dropping them is what an outage looks like and lets close() finish.
    const closed = new Promise<void>((resolve) => running.close(() => resolve()));
    running.closeAllConnections();
    await closed;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: (prefix = '') => ({
      STORAGE_URL: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      ...S3RVER_CREDENTIALS,
    }),
    stop,
    restart: start,
    async close() {
      await stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
