import type { FastifyInstance } from 'fastify';
import type { JobName } from '../../src/jobs/job-types.ts';
import type { JobQueue } from '../../src/jobs/queue.ts';
import { TEST_TOKEN } from './test-app.ts';

/** A model as `GET /api/models/:id` returns it, loosely typed for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ModelJson = Record<string, any>;

/**
 * Polls `GET /api/models/:id` until the model's status is one of `statuses` and returns it; rejects with the
 * last answer when `timeoutMs` runs out, so a stuck conversion fails the test with something to read.
 */
export async function waitForStatus(
  app: FastifyInstance,
  id: string,
  statuses: readonly string[],
  timeoutMs = 60_000,
): Promise<ModelJson> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const response = await app.inject({
      method: 'GET',
      url: `/api/models/${id}`,
      headers: { 'x-api-token': TEST_TOKEN },
    });
    last = response.body;
    if (response.statusCode === 200) {
      const model = JSON.parse(response.body).data as ModelJson;
      if (statuses.includes(model.status)) return model;
    }
    if (Date.now() > deadline) {
      throw new Error(`model ${id} did not reach ${statuses.join(' or ')} in ${timeoutMs} ms; last: ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Polls the queue until `subject` has no queued or running job of `name`, so what that job does last (removing
 * the files of a model deleted while it ran, say) is done before the test looks.
 */
export async function waitForNoLiveJob(
  queue: JobQueue,
  subject: string,
  name: JobName,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (await queue.hasLiveJob(subject, name)) {
    if (Date.now() > deadline)
      throw new Error(`the ${name} job of ${subject} still runs after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
