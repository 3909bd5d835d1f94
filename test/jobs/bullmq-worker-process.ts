// A worker process for the BullMQ tests to kill: it takes one job, says so on stdout and works on it for ever.
import { createDb } from '../../src/db/create-db.ts';
import { openBullmqQueue } from '../../src/jobs/bullmq-queue.ts';
import { FAST, handlers, recordingLogger } from './queue-test-kit.ts';

const handle = createDb(process.env.WORKER_DATABASE_URL ?? '');
const queue = await openBullmqQueue(handle, {
  ...FAST,
  logger: recordingLogger(),
  redisUrl: process.env.WORKER_REDIS_URL ?? '',
  prefix: process.env.WORKER_PREFIX ?? '',
});
queue.startConsumer(
  handlers(async (job) => {
    process.stdout.write(`started ${job.id}\n`);
    await new Promise(() => {});
  }),
  { concurrency: 1 },
);
