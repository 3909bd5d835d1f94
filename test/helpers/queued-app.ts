// The setup of suites about queued jobs: an app on each database with each queue (embedded, and Redis under a
// prefix of its own), no job runner so jobs stay queued, and stranded-model sweeps stopped after each test.
import { after, afterEach, before } from 'node:test';
import { createModelRepository } from '../../src/catalog/repository.ts';
import { startStrandedModelSweep } from '../../src/catalog/conversion/sweep-stranded-models.ts';
import { createLogger } from '../../src/logger.ts';
import { createVersionRepository } from '../../src/catalog/versions/repository.ts';
import { catalogApi } from './catalog-api.ts';
import type { DialectName } from '../../src/db/create-db.ts';
import { testDialects } from './databases.ts';
import { removeRedisKeys, testRedisUrl, uniqueRedisPrefix } from './redis.ts';
import { createTestApp, type TestApp } from './test-app.ts';

/** The queue a suite runs on. */
export type QueueKind = 'embedded' | 'redis';

/** One database with one queue. */
export interface QueueSetup {
  dialect: DialectName;
  queue: QueueKind;
}

/** Every database with each queue: the suites loop over these (the Redis ones skip with `skipWithoutRedis`). */
export function queueSetups(): QueueSetup[] {
  return testDialects().flatMap((dialect) => [
    { dialect, queue: 'embedded' as const },
    { dialect, queue: 'redis' as const },
  ]);
}

/** A stranded-model sweep a test started. */
export type StrandedSweep = ReturnType<typeof startStrandedModelSweep>;

/** What {@link useQueuedApp} gives a suite once its `before` hook has run. */
export interface QueuedApp {
  testApp: TestApp;
  api: ReturnType<typeof catalogApi>;
  /** A stranded-model sweep over the app's database and queue, sweeping each second, stopped after the test. */
  sweeper(): StrandedSweep;
  /** The Redis key prefix of the app's queue (undefined on the embedded queue), to empty it as a restart would. */
  redisPrefix?: string;
}

/**
 * Registers, in the calling `describe`, the hooks that start an app for `setup` (Redis keys under a fresh prefix
 * named after `name`, stranded sweeps each second), stop the test's sweeps after each test, and close the app and
 * remove its Redis keys after the suite. Its fields are set when the suite's first `before` hook has run.
 */
export function useQueuedApp({ dialect, queue }: QueueSetup, name: string): QueuedApp {
  let prefix: string | undefined;
  const sweeps: StrandedSweep[] = [];
  const context = {
    sweeper(): StrandedSweep {
      const sweep = startStrandedModelSweep({
        models: createModelRepository(context.testApp.database),
        versions: createVersionRepository(context.testApp.database.db),
        queue: context.testApp.queue,
        events: context.testApp.services.events,
        logger: createLogger('silent'),
        intervalMs: 1_000,
      });
      sweeps.push(sweep);
      return sweep;
    },
  } as QueuedApp;
  before(async () => {
    prefix = queue === 'redis' ? uniqueRedisPrefix(name) : undefined;
    context.redisPrefix = prefix;
    const redis: Record<string, string> = prefix ? { REDIS_URL: testRedisUrl(), REDIS_PREFIX: prefix } : {};
    context.testApp = await createTestApp(dialect, { STRANDED_MODEL_SWEEP_SECONDS: '1', ...redis });
    context.api = catalogApi(context.testApp.app, context.testApp.auth);
  });
  afterEach(async () => {
    await Promise.all(sweeps.splice(0).map((sweep) => sweep.stop()));
  });
  after(async () => {
    await context.testApp?.close();
    if (prefix) await removeRedisKeys(testRedisUrl(), prefix);
  });
  return context;
}
