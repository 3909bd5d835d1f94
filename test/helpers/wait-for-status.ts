import type { FastifyInstance } from 'fastify';
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
