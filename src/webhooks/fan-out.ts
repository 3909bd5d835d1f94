import type { Db } from '../db/database.ts';
import type { EventFanOut } from '../events/event-publisher.ts';
import type { EventType } from '../events/event-types.ts';
import { JobName } from '../jobs/job-types.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { createWebhookRepository } from './repository.ts';
import type { Delivery } from './schemas.ts';

/**
 * Attempts a delivery gets in all: with the queue's back-off (5 s, then four times longer each time) the last
 * comes about 28 minutes after the first.
 */
export const DELIVERY_ATTEMPTS = 6;

/** The job subject of a webhook's deliveries, so deleting the webhook can cancel its queued ones. */
export function webhookSubject(webhookId: string): string {
  return `webhook:${webhookId}`;
}

/** Records a delivery and queues its job in the caller's transaction; returns the delivery and the job to promote. */
export async function queueDelivery(
  trx: Db,
  queue: JobQueue,
  input: { webhook_id: string; event_id: number; event_type: EventType; body: string },
): Promise<{ delivery: Delivery; jobId: string }> {
  const delivery = await createWebhookRepository({ db: trx }).createDelivery(input);
  const job = await queue.enqueue(
    JobName.DeliverWebhook,
    { delivery_id: delivery.id },
    { subject: webhookSubject(input.webhook_id), maxAttempts: DELIVERY_ATTEMPTS, transaction: trx },
  );
  return { delivery, jobId: job.id };
}

/** Queues one delivery per webhook that wants the event, in the transaction that records the event. */
export function createWebhookFanOut(queue: JobQueue): EventFanOut {
  return async (trx, event) => {
    const hooks = await createWebhookRepository({ db: trx }).subscribedTo(event.type);
    if (hooks.length === 0) return;
    const body = JSON.stringify(event);
    const jobIds: string[] = [];
    for (const hook of hooks) {
      const { jobId } = await queueDelivery(trx, queue, {
        webhook_id: hook.id,
        event_id: event.id,
        event_type: event.type,
        body,
      });
      jobIds.push(jobId);
    }
    // Jobs written in a transaction wait for the commit; promoting them wakes the workers at once. The promotion is
    // not awaited: the publisher may be a conversion announcing its progress, which must not wait on deliveries
    // (with Redis, each promote relays a job). A promote that fails costs only time: committed jobs are claimed
    // by the embedded queue's polling, and relayed from the outbox by the BullMQ queue's relay.
    return async () => {
      void Promise.all(jobIds.map((id) => queue.promote(id))).catch(() => {});
    };
  };
}
