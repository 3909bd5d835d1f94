import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

/** The credentials s3rver accepts (its built-in account). */
export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

/** A local S3 server holding one bucket, in a temporary folder. */
export interface TestS3Server {
  /** `http://127.0.0.1:<port>`, for `S3_ENDPOINT`. */
  endpoint: string;
  bucket: string;
  /** The environment that points the service at this server and bucket, under `prefix`. */
  env(prefix?: string): Record<string, string>;
  /** Kills the server (connections dropped, port closed) to play an outage; the objects are kept. */
  stop(): Promise<void>;
  /** Answers again on the same port with the same objects. */
  restart(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

const RUNNER = path.join(import.meta.dirname, 'run-s3rver.mjs');

/** Starts s3rver in a child process on 127.0.0.1 on a free port, with `bucket` created. */
export async function startS3Server(bucket = 'vitrine-test'): Promise<TestS3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-s3-'));
  let child: ChildProcess | undefined;
  let port = 0;
  const start = async () => {
    const started = spawn(
      process.execPath,
      ['--openssl-legacy-provider', RUNNER, directory, bucket, String(port)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    started.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = readline.createInterface({ input: started.stdout! });
    const exited = once(started, 'exit').then(() => {
      throw new Error(`s3rver did not start: ${stderr.trim()}`);
    });
    const [line] = (await Promise.race([once(lines, 'line'), exited])) as [string];
    port = (JSON.parse(line) as { port: number }).port;
    child = started;
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: (prefix = '') => ({
      STORAGE_URL: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      S3_ENDPOINT: endpoint,
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
