// The relay that keeps the outbox moving: it hands committed outbox rows to Redis, on demand and every `pollMs`.
// It picks up rows whose process died between commit and relay, rows whose hold ran out, and rows written while
// Redis was away. Every process with a queue runs it.
import type { JobOutboxRow } from '../db/database.ts';
import type { BullmqLanes } from './bullmq-lanes.ts';
import type { BullmqQueueOptions } from './bullmq-settings.ts';
import type { createJobOutbox } from './job-outbox.ts';

const RELAY_BATCH = 100;

/** A running relay. */
export interface OutboxRelay {
  /** Hands one outbox row to Redis, then deletes it. */
  relay(row: JobOutboxRow): Promise<void>;
  /** Stops the timer and waits for the pass under way. */
  stop(): Promise<void>;
}

/** Starts relaying the outbox's due rows into the lanes: a first pass now, then one every `pollMs`. */
export function startOutboxRelay(
  outbox: ReturnType<typeof createJobOutbox>,
  lanes: BullmqLanes,
  settings: Pick<BullmqQueueOptions, 'pollMs' | 'logger'>,
): OutboxRelay {
  const { logger } = settings;

  async function relay(row: JobOutboxRow): Promise<void> {
    await lanes.add({
      id: row.id,
      name: row.name,
      payload: JSON.parse(row.payload),
      subject: row.subject,
      dedupeKey: row.dedupe_key,
      maxAttempts: row.max_attempts,
      delayMs: 0,
    });
    await outbox.remove(row.id);
  }

  /** Hands every committed, due outbox row to Redis. */
  async function relayDue(): Promise<void> {
    for (;;) {
      const rows = await outbox.due(RELAY_BATCH);
      for (const row of rows) await relay(row);
      if (rows.length < RELAY_BATCH) return;
    }
  }

  let relaying: Promise<void> | undefined;
  let relayFailing = false;
  const relayNow = () => {
    relaying ??= relayDue()
      .then(() => {
        if (relayFailing) logger.info({}, 'job queue: outbox relay works again');
        relayFailing = false;
      })
      .catch((error: unknown) => {
        if (!relayFailing) logger.warn({ err: error }, 'job queue: outbox relay failed; retrying');
        relayFailing = true;
      })
      .finally(() => (relaying = undefined));
    return relaying;
  };
  const relayTimer = setInterval(relayNow, settings.pollMs);
  void relayNow();

  return {
    relay,
    async stop() {
      clearInterval(relayTimer);
      await relaying;
    },
  };
}
