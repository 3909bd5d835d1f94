import { PermanentJobError, type FailureHandler, type JobHandler, type JobName } from '../jobs/job-types.ts';
import type { AppLogger } from '../logger.ts';
import { postWebhook, RefusedAddressError } from './post-webhook.ts';
import type { WebhookRepository } from './repository.ts';
import { SIGNATURE_HEADER, signatureHeader } from './sign.ts';

/** What the delivery job needs. */
export interface DeliverWebhookDependencies {
  webhooks: WebhookRepository;
  logger: AppLogger;
  /** `WEBHOOK_REFUSE_PRIVATE_ADDRESSES`. */
  refusePrivate: boolean;
  /** How long a receiver has to answer. */
  timeoutMs: number;
}

/** Most of a receiver's failure text kept in the delivery log. */
const MAX_ERROR_LENGTH = 500;

/**
 * The handler of `deliver-webhook` jobs: posts the stored body, signed at the time of the attempt. A 2xx answer
 * delivers it; anything else is recorded and retried by the queue with back-off; a deleted webhook gets nothing.
 */
export function createDeliverWebhookJob(deps: DeliverWebhookDependencies): {
  run: JobHandler<typeof JobName.DeliverWebhook>;
  failed: FailureHandler<typeof JobName.DeliverWebhook>;
} {
  const { webhooks, logger } = deps;
  return {
    async run(job, signal) {
      const id = job.payload.delivery_id;
      const delivery = await webhooks.getDelivery(id);
      if (!delivery || delivery.status !== 'pending') return;
      const hook = await webhooks.getForDelivery(delivery.webhook_id);
      if (!hook) return;
      let statusCode: number;
      try {
        statusCode = await postWebhook(hook.url, delivery.body, {
          refusePrivate: deps.refusePrivate,
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
        return;
      }
      const message = `the receiver answered ${statusCode}`;
      await webhooks.recordAttempt(id, {
        status: 'pending',
        last_status_code: statusCode,
        last_error: message,
      });
      throw new Error(message);
    },

    async failed(job, error) {
      logger.warn(
        { delivery_id: job.payload.delivery_id, job_id: job.id, err: error.message },
        'webhook delivery failed for good',
      );
      await webhooks.markFailed(job.payload.delivery_id, error.message.slice(0, MAX_ERROR_LENGTH));
    },
  };
}
