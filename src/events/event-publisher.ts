import type { DatabaseHandle } from '../db/create-db.ts';
import type { Db } from '../db/database.ts';
import { createEventLog, EVENT_RETENTION } from './event-log.ts';
import type { EventData, EventType, VitrineEvent } from './event-types.ts';
import type { EventWakeUp } from './wake-up.ts';

/**
 * Work done for each event in the transaction that records it (queueing webhook deliveries), so an event and its
 * deliveries commit together; may return work to run after the commit.
 */
export type EventFanOut = (trx: Db, event: VitrineEvent) => Promise<(() => Promise<void>) | void>;

/** Two fan-outs run one after the other in the event's transaction; their after-commit work runs side by side. */
export function bothFanOuts(first: EventFanOut, second: EventFanOut): EventFanOut {
  return async (trx, event) => {
    const afterFirst = await first(trx, event);
    const afterSecond = await second(trx, event);
    if (!afterFirst) return afterSecond;
    if (!afterSecond) return afterFirst;
    return async () => {
      await Promise.all([afterFirst(), afterSecond()]);
    };
  };
}

/** What the publisher works with. */
export interface EventPublisherDependencies {
  database: Pick<DatabaseHandle, 'db' | 'dialect'>;
  wakeUp: EventWakeUp;
  logger: Pick<Console, 'warn'>;
  fanOut?: EventFanOut;
}

/** Records events and wakes the streams; used by whichever process makes the change, API or worker. */
export interface EventPublisher {
  /**
   * Records an event after the change it reports has committed. Never throws: a change that happened stays
   * done, and a failure to announce it is logged.
   */
  publish<T extends EventType>(type: T, data: EventData[T]): Promise<void>;
}

// Pruning is cheap but not free; once every this many events keeps the log near its retention.
const PRUNE_EVERY = 100;

/** Creates the publisher. */
export function createEventPublisher(deps: EventPublisherDependencies): EventPublisher {
  const { database, wakeUp, logger, fanOut } = deps;
  return {
    async publish(type, data) {
      const modelId = 'model_id' in data ? data.model_id : null;
      try {
        const { event, afterCommit } = await database.db.transaction().execute(async (trx) => {
          const recorded = await createEventLog({ db: trx, dialect: database.dialect }).append(
            type,
            modelId,
            data,
          );
          return { event: recorded, afterCommit: await fanOut?.(trx, recorded) };
        });
        await Promise.all([
          wakeUp
            .notify(event.id)
            .catch((error: unknown) =>
              logger.warn({ err: error, event_id: event.id }, 'could not announce an event'),
            ),
          afterCommit?.(),
        ]);
        if (event.id % PRUNE_EVERY === 0) await createEventLog(database).prune(EVENT_RETENTION);
      } catch (error) {
        logger.warn({ err: error, type, model_id: modelId }, 'could not record an event');
      }
    },
  };
}
