// A consumer of the embedded queue: claims due jobs of its lane up to its concurrency, when woken by an enqueue in
// this process or every `pollMs`, runs each as an attempt, and on stop hands back what it runs.
import type { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { JobRow } from '../db/database.ts';
import { runEmbeddedAttempt } from './embedded-attempt.ts';
import type { EmbeddedLeases } from './embedded-leases.ts';
import type { EmbeddedQueueOptions } from './embedded-queue-options.ts';
import { JobLane, JobName, jobsInLane, type JobHandlers } from './job-types.ts';
import type { ConsumerOptions, QueueConsumer } from './queue.ts';

/** Starts a consumer over `leases`; `wakeUp` emits `job` when this process enqueues a job that is due now. */
export function startEmbeddedConsumer(
  leases: EmbeddedLeases,
  wakeUp: EventEmitter,
  settings: EmbeddedQueueOptions,
  handlers: JobHandlers,
  workerOptions: ConsumerOptions,
): QueueConsumer {
  for (const name of Object.values(JobName)) {
    if (!handlers[name]) throw new Error(`No handler for job "${name}"`);
  }
  const workerId = `${process.pid}-${randomUUID()}`;
  const names = jobsInLane(workerOptions.lane ?? JobLane.Work);
  const running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // The claiming pass under way, so stop() can wait for a job it is about to start.
  let looking: Promise<void> | undefined;

  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (looking || stopped) return;
      looking = fill().finally(() => {
        looking = undefined;
        schedule(settings.pollMs);
      });
    }, delay);
  };
  const onEnqueue = () => schedule(0);
  wakeUp.on('job', onEnqueue);

  async function fill(): Promise<void> {
    try {
      while (!stopped && running.size < workerOptions.concurrency) {
        const row = await leases.claim(workerId, names);
        if (!row) break;
        // Started even when stop() came during the claim: stop() waits for this pass, then aborts and hands it back.
        start(row);
      }
    } catch (error) {
      settings.logger.error({ err: error }, 'job queue: claiming failed; retrying');
    }
  }

  function start(row: JobRow): void {
    const controller = new AbortController();
    const done = runEmbeddedAttempt(row, controller, { leases, workerId, handlers, settings })
      // Recording the outcome failed (the database went away): the lease runs out and the job runs again.
      .catch((error: unknown) =>
        settings.logger.error(
          { err: error, job_id: String(row.id), subject: row.subject },
          'job queue: could not record the outcome of a job',
        ),
      )
      .finally(() => {
        running.delete(row.id);
        schedule(0);
      });
    running.set(row.id, { controller, done });
  }

  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wakeUp.off('job', onEnqueue);
      await looking;
      for (const { controller } of running.values()) controller.abort();
      await Promise.allSettled([...running.values()].map((entry) => entry.done));
    },
  };
}
