import {
  DeferJobError,
  PermanentJobError,
  type FailureHandler,
  type JobHandler,
  type JobName,
} from '../jobs/job-types.ts';
import type { AppLogger } from '../logger.ts';
import type { AddressGuard } from './address-guard.ts';
import { RefusedAddressError, type ResolveHost } from './guarded-lookup.ts';
import { postWebhook } from './post-webhook.ts';
import type { ReceiverSlots } from './receiver-slots.ts';
import type { DeliveryRetention, WebhookRepository } from './repository.ts';
import { SIGNATURE_HEADER, signatureHeader } from './sign.ts';

/** What the delivery job needs. */
export interface DeliverWebhookDependencies {
  webhooks: WebhookRepository;
  logger: AppLogger;
  /** Which addresses receivers may have. */
  guard: AddressGuard;
  /** Resolves receivers' host names; the system resolver unless a test replaces it. */
  resolve?: ResolveHost;
  /** How long a receiver has to answer one attempt. */
  timeoutMs: number;
  /** Attempts in flight per receiver origin; a job beyond them is put off without counting the attempt. */
  slots: ReceiverSlots;
  /** What the delivery log keeps; pruned once every {@link PRUNE_EVERY} deliveries settle. */
  retention: DeliveryRetention;
}

/** Most of a receiver's failure text kept in the delivery log. */
const MAX_ERROR_LENGTH = 500;
/** Pruning the log is cheap but not free: once every this many settled deliveries keeps it near its retention. */
export const PRUNE_EVERY = 100;

/**
 * The handler of `deliver-webhook` jobs: posts the stored body, signed at the time of the attempt. A 2xx answer
 * delivers it; anything else is recorded and retried by the queue with back-off; a deleted webhook gets nothing; a
 * receiver that already has its share of attempts in flight gets this one later.
 */
export function createDeliverWebhookJob(deps: DeliverWebhookDependencies): {
  run: JobHandler<typeof JobName.DeliverWebhook>;
  failed: FailureHandler<typeof JobName.DeliverWebhook>;
} {
  const { webhooks, logger } = deps;
  const settled = async (id: number) => {
    if (id % PRUNE_EVERY !== 0) return;
    await webhooks
      .prune(deps.retention)
      .catch((error: unknown) => logger.warn({ err: error }, 'could not prune the webhook delivery log'));
  };

  async function attempt(
    hook: { url: string; secret: string },
    delivery: { id: number; body: string; event_type: string },
    signal: AbortSignal,
  ): Promise<void> {
    const { id } = delivery;
    let statusCode: number;
    try {
      statusCode = await postWebhook(hook.url, delivery.body, {
        guard: deps.guard,
        resolve: deps.resolve,
        timeoutMs: deps.timeoutMs,
        signal,
        headers: {
          [SIGNATURE_HEADER]: signatureHeader(hook.secret, delivery.body, Math.floor(Date.now() / 1000)),
          'x-vitrine-event': delivery.event_type,
          'x-vitrine-delivery': String(id),
          'user-agent': 'Vitrine-Webhooks',
        },
      });
    } catch (error) {
      // Handed back on shutdown: this attempt does not count.
      if (signal.aborted) throw error;
      const message = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);
      await webhooks.recordAttempt(id, { status: 'pending', last_status_code: null, last_error: message });
      throw error instanceof RefusedAddressError ? new PermanentJobError(message) : error;
    }
    if (statusCode >= 200 && statusCode < 300) {
      await webhooks.recordAttempt(id, {
        status: 'delivered',
        last_status_code: statusCode,
        last_error: null,
      });
      await settled(id);
      return;
    }
    const message = `the receiver answered ${statusCode}`;
    await webhooks.recordAttempt(id, {
      status: 'pending',
      last_status_code: statusCode,
      last_error: message,
    });
    throw new Error(message);
  }

  return {
    async run(job, signal) {
      const delivery = await webhooks.getDelivery(job.payload.delivery_id);
      if (!delivery || delivery.status !== 'pending') return;
      const hook = await webhooks.getForDelivery(delivery.webhook_id);
      if (!hook) return;
      // A receiver is an origin: scheme, host and port, as a browser tells sites apart.
      const receiver = new URL(hook.url).origin;
      const free = deps.slots.take(receiver);
      if (!free) {
        throw new DeferJobError(
          `${receiver} has its share of deliveries in flight`,
          deps.slots.deferMs(receiver),
        );
      }
      try {
        await attempt(hook, delivery, signal);
      } finally {
        free();
      }
    },

    async failed(job, error) {
      logger.warn(
        { delivery_id: job.payload.delivery_id, job_id: job.id, err: error.message },
        'webhook delivery failed for good',
      );
      await webhooks.markFailed(job.payload.delivery_id, error.message.slice(0, MAX_ERROR_LENGTH));
      await settled(job.payload.delivery_id);
    },
  };
}
