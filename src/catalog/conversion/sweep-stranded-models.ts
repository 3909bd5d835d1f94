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
  'The conversion of this version ended without recording its outcome (its worker or the database was interrupted); post its file again as a new version to try again';

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
  /** Sweeps now (also what the timer does); resolves with the ids of the models it failed (versions: their events). */
  sweep(): Promise<string[]>;
  /** Stops the timer and waits for a sweep under way. */
  stop(): Promise<void>;
}

/**
 * Fails the models and versions left `pending` or `processing` whose conversion job no longer exists or has ended:
 * a failure that could not be recorded (the database away past the retries), a job lost with its queue. Without
 * this such a model stays converting for ever and refuses a reprocess, and such a version shows as converting for
 * ever. Runs at once and then every `intervalMs`; several
 * processes may run it, as each failure is one conditional update that only the first of them makes.
 */
export function startStrandedModelSweep(options: StrandedSweepOptions): StrandedSweep {
  const { models, versions, queue, events, logger, intervalMs } = options;
  let running: Promise<string[]> | undefined;

  async function sweepOnce(): Promise<string[]> {
    const before = new Date(Date.now() - intervalMs).toISOString();
    const failed: string[] = [];
    for (const id of await models.untouchedInProgress(before, SWEEP_BATCH)) {
      if (await queue.hasLiveJob(id, JobName.ConvertModel)) continue;
      const row = await models.failUntouched(id, before, STRANDED_FAILURE);
      if (!row) continue;
      failed.push(id);
      logger.warn({ model_id: id }, 'model left converting without a job: marked failed');
      await events.publish('model.failed', modelEventData(row));
    }
    await sweepVersions(before);
    return failed;
  }

  async function sweepVersions(before: string): Promise<void> {
    for (const { model_id: id, number } of await versions.untouchedInProgress(before, SWEEP_BATCH)) {
      // A version's job has its own subject; version 1 converts under the model's, as did versions queued before
      // versions had their own, so a live job under either leaves the version alone.
      if (await queue.hasLiveJob(versionJobSubject(id, number), JobName.ConvertModel)) continue;
      if (await queue.hasLiveJob(id, JobName.ConvertModel)) continue;
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
