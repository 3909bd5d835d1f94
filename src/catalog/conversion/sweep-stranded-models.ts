import type { EventPublisher } from '../../events/event-publisher.ts';
import { JobName } from '../../jobs/job-types.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { AppLogger } from '../../logger.ts';
import type { VersionRepository } from '../versions/repository.ts';
import { versionJobSubject } from '../versions/schemas.ts';
import { modelEventData } from '../model-events.ts';
import type { ModelRepository } from '../repository.ts';

/** The `error` of a model whose conversion ended without recording how. */
export const STRANDED_FAILURE =
  'The conversion ended without recording its outcome (its worker or the database was interrupted); reprocess the model to try again';

/** The `error` of a version whose conversion ended without recording how. */
export const STRANDED_VERSION_FAILURE =
  'The conversion of this version ended without recording its outcome (its worker or the database was interrupted); reprocess the version to convert it again';

/** What the sweep works with and how often it runs. */
export interface StrandedSweepOptions {
  models: ModelRepository;
  /** The versions swept like the models: a later version converts under a job of its own. */
  versions: VersionRepository;
  queue: JobQueue;
  events: EventPublisher;
  logger: AppLogger;
  /** Time between two sweeps; a model must also have been left untouched this long to be swept. */
  intervalMs: number;
}

/** Models looked at per sweep; more wait for the next one. */
const SWEEP_BATCH = 500;

/** A running sweep. */
export interface StrandedSweep {
  /**
   * Sweeps now (also what the timer does); resolves with the ids of the models it failed or queued again (versions:
   * their events).
   */
  sweep(): Promise<string[]>;
  /** Stops the timer and waits for a sweep under way. */
  stop(): Promise<void>;
}

/**
 * Finds the models and versions left `pending` or `processing` with no live conversion job. A model whose job the
 * queue no longer holds at all (lost with a Redis that restarted without persistence) is queued again, as its
 * upload is still stored; one whose job ended without its outcome recorded (the database away past the retries) is
 * failed, since converting it again would likely end the same way. A later version is treated alike, by the job
 * under its own subject (version 1 is the model's own conversion; a version whose job cannot be told is failed).
 * Without this such a model stays converting for ever and refuses a reprocess, and such a version shows as
 * converting for ever.
 * Runs at once (so a restarted service picks up what the queue lost) and then every `intervalMs`; several
 * processes may run it, as each change is one conditional update that only the first of them makes.
 */
export function startStrandedModelSweep(options: StrandedSweepOptions): StrandedSweep {
  const { models, versions, queue, events, logger, intervalMs } = options;
  let running: Promise<string[]> | undefined;

  async function sweepOnce(): Promise<string[]> {
    const before = new Date(Date.now() - intervalMs).toISOString();
    const handled: string[] = [];
    for (const id of await models.untouchedInProgress(before, SWEEP_BATCH)) {
      const state = await queue.jobState(id, JobName.ConvertModel);
      if (state === 'live') continue;
      if (await (state === 'none' ? requeue(id, before) : fail(id, before))) handled.push(id);
    }
    await sweepVersions(before);
    return handled;
  }

  /** Queues the conversion of a model whose job the queue lost; false when another sweep or a worker came first. */
  async function requeue(id: string, before: string): Promise<boolean> {
    const row = await models.requeueUntouched(id, before);
    if (!row) return false;
    // Should this enqueue fail, the row's new updated_at brings the model back to the next sweep but one.
    const job = await queue.enqueue(
      JobName.ConvertModel,
      { model_id: id },
      { subject: id, dedupeKey: `convert:${id}` },
    );
    logger.warn(
      { model_id: id, job_id: job.id },
      'model left converting with no job in the queue (lost with it): queued again',
    );
    await events.publish('model.updated', modelEventData(row));
    return true;
  }

  /** Fails a model whose job ended without its outcome recorded; false when another sweep or a worker came first. */
  async function fail(id: string, before: string): Promise<boolean> {
    const row = await models.failUntouched(id, before, STRANDED_FAILURE);
    if (!row) return false;
    logger.warn({ model_id: id }, 'model left converting after its job ended: marked failed');
    await events.publish('model.failed', modelEventData(row));
    return true;
  }

  /** Queues the conversion of a version whose job the queue lost, unless a worker or another sweep came first. */
  async function requeueVersion(id: string, number: number, before: string): Promise<void> {
    if (!(await versions.requeueUntouched(id, number, before))) return;
    const job = await queue.enqueue(
      JobName.ConvertModel,
      { model_id: id, version: number },
      { subject: versionJobSubject(id, number), dedupeKey: `convert:${id}:v${number}` },
    );
    logger.warn(
      { model_id: id, version: number, job_id: job.id },
      'model version left converting with no job in the queue (lost with it): queued again',
    );
  }

  async function sweepVersions(before: string): Promise<void> {
    for (const { model_id: id, number } of await versions.untouchedInProgress(before, SWEEP_BATCH)) {
      // A version's job has its own subject; version 1 converts under the model's, as did versions queued before
      // versions had their own, so a live job under either leaves the version alone.
      const own = await queue.jobState(versionJobSubject(id, number), JobName.ConvertModel);
      if (own === 'live') continue;
      if (await queue.hasLiveJob(id, JobName.ConvertModel)) continue;
      // The models are swept first: a model whose own job was lost is queued again by now, and its versions wait.
      if (own === 'none' && number > 1) {
        await requeueVersion(id, number, before);
        continue;
      }
      const row = await versions.failUntouched(id, number, before, STRANDED_VERSION_FAILURE);
      if (!row) continue;
      logger.warn(
        { model_id: id, version: number },
        'model version left converting without a job: marked failed',
      );
      await events.publish('model.version.failed', {
        model_id: id,
        version: number,
        based_on: row.based_on,
        error: STRANDED_VERSION_FAILURE,
      });
    }
  }

  const sweep = (): Promise<string[]> => {
    running ??= sweepOnce()
      .catch((error: unknown) => {
        // The database or the queue is away: the next sweep tries again.
        logger.warn({ err: error }, 'stranded model sweep failed');
        return [];
      })
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  void sweep();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
