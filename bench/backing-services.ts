// PostgreSQL, Redis and S3 for benchmarks that run `vitrine serve` and `vitrine worker` as separate processes.
import fs from 'node:fs';
import { createTestDatabase } from '../test/helpers/databases.ts';
import { createFreezableProxy, type FreezableProxy } from '../test/helpers/freezable-proxy.ts';
import { removeRedisKeys, testRedisUrl, uniqueRedisPrefix } from '../test/helpers/redis.ts';
import { startS3Server, type TestS3Server } from '../test/helpers/s3-server.ts';
import { throughProxy } from '../test/helpers/tcp-proxy.ts';
import { tempDir } from '../test/system/service-process.ts';

/** A database, a Redis key prefix and an S3 bucket of one benchmark run, removed by `dispose`. */
export interface BackingServices {
  /** DATABASE_URL, REDIS_URL, REDIS_PREFIX and the S3 settings the processes share. */
  env: Record<string, string>;
  /** The database itself, never through a proxy, for the benchmark's own checks. */
  databaseUrl: string;
  s3: TestS3Server;
  /** In front of PostgreSQL when asked for: the processes reach it only through this. */
  postgresProxy?: FreezableProxy;
  /** In front of Redis when asked for: the processes reach it only through this. */
  redisProxy?: FreezableProxy;
  /** Settings of one more process: `env`, `extra` and a DATA_DIR of its own (removed by `dispose`). */
  settings(extra?: Record<string, string>): Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * Creates a PostgreSQL database on TEST_DATABASE_URL, a key prefix on TEST_REDIS_URL and starts s3rver; with
 * `freezable`, the processes connect to PostgreSQL and Redis through proxies the benchmark can freeze.
 */
export async function startBackingServices(
  name: string,
  options: { freezable?: boolean } = {},
): Promise<BackingServices> {
  const redisUrl = testRedisUrl();
  const database = await createTestDatabase('postgres');
  const s3 = await startS3Server();
  const prefix = uniqueRedisPrefix(name);
  const proxyTo = async (url: string, defaultPort: number) => {
    const target = new URL(url);
    return createFreezableProxy(target.hostname, Number(target.port || defaultPort));
  };
  const postgresProxy = options.freezable ? await proxyTo(database.url, 5432) : undefined;
  const redisProxy = options.freezable ? await proxyTo(redisUrl, 6379) : undefined;
  const env = {
    DATABASE_URL: postgresProxy ? throughProxy(database.url, postgresProxy) : database.url,
    REDIS_URL: redisProxy ? throughProxy(redisUrl, redisProxy) : redisUrl,
    REDIS_PREFIX: prefix,
    ...s3.env(name),
  };
  const folders: string[] = [];
  return {
    env,
    databaseUrl: database.url,
    s3,
    postgresProxy,
    redisProxy,
    settings(extra = {}) {
      const dataDir = tempDir(name);
      folders.push(dataDir);
      return { DATA_DIR: dataDir, ...env, ...extra };
    },
    async dispose() {
      await postgresProxy?.close();
      await redisProxy?.close();
      await removeRedisKeys(redisUrl, prefix);
      await database.dispose();
      await s3.close();
      for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
