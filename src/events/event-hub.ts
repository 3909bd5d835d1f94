import type { EventLog } from './event-log.ts';
import type { VitrineEvent } from './event-types.ts';
import type { EventWakeUp } from './wake-up.ts';

/** Tuning of the hub. */
export interface EventHubOptions {
  /** The log is read this often even without a wake-up, covering one that was lost or another process on SQLite. */
  fallbackPollMs: number;
  /** Rows read from the log at a time. */
  batchSize: number;
}

/** Defaults of {@link EventHubOptions}. */
export const EVENT_HUB_DEFAULTS: EventHubOptions = { fallbackPollMs: 2_000, batchSize: 500 };

/** One process's reader of the event log, shared by all its open streams. */
export interface EventHub {
  /** Starts following the log (once); resolves with the id it follows from. */
  start(): Promise<number>;
  /** Calls `listener` with every batch of new events, in id order; returns a function that stops. */
  subscribe(listener: (events: VitrineEvent[]) => void): () => void;
  /** Stops following. */
  close(): Promise<void>;
}

/**
 * Reads the log once per wake-up for every stream of this process, instead of each stream querying on its own.
 * Reads never overlap: a wake-up during a read makes one more read after it.
 */
export function createEventHub(
  log: EventLog,
  wakeUp: EventWakeUp,
  logger: Pick<Console, 'warn'>,
  options: Partial<EventHubOptions> = {},
): EventHub {
  const settings = { ...EVENT_HUB_DEFAULTS, ...options };
  const listeners = new Set<(events: VitrineEvent[]) => void>();
  let cursor = 0;
  let starting: Promise<number> | undefined;
  let stopWakeUp: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let reading: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const readNew = async (): Promise<void> => {
    for (;;) {
      const events = await log.after(cursor, settings.batchSize);
      if (events.length === 0) return;
      cursor = events[events.length - 1]!.id;
      for (const listener of listeners) listener(events);
      if (events.length < settings.batchSize) return;
    }
  };

  const read = (): void => {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = readNew()
      .catch((error: unknown) => logger.warn({ err: error }, 'could not read the event log'))
      .finally(() => {
        reading = undefined;
        if (again) {
          again = false;
          read();
        }
      });
  };

  return {
    start() {
      starting ??= (async () => {
        cursor = await log.latestId();
        stopWakeUp = await wakeUp.subscribe(read);
        timer = setInterval(read, settings.fallbackPollMs);
        timer.unref();
        return cursor;
      })();
      // A failed start (the database was away) is tried again by the next stream.
      starting.catch(() => (starting = undefined));
      return starting;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearInterval(timer);
      stopWakeUp?.();
      listeners.clear();
      await reading;
    },
  };
}
