import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** What `/health` checks, and how long it waits for an answer. */
export interface HealthOptions {
  db: Db;
  /** A check that has not answered within this fails (`DATABASE_CONNECT_TIMEOUT_SECONDS`). */
  timeoutMs: number;
}

/** The answer while every dependency answers: the body the material service's contract shows. */
const HealthyBody = Type.Object({ status: Type.Literal('ok') });

/** The answer while a dependency does not: the same `status` field, and which dependencies failed. */
const UnhealthyBody = Type.Object({
  status: Type.Literal('unavailable'),
  failed: Type.Array(Type.Literal('database'), { description: 'The dependencies that did not answer' }),
});

/**
 * `GET /health`, no token: 200 `{"status":"ok"}` when the database answers a trivial query within `timeoutMs`,
 * else 503 `{"status":"unavailable","failed":["database"]}`, so a balancer or orchestrator takes the process out
 * of service while its database is away instead of sending it requests that would all answer 503.
 */
export function registerHealth(app: FastifyInstance, options: HealthOptions): void {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        summary: 'Health check (no token): 503 naming the dependency that does not answer',
        security: [],
        response: { 200: HealthyBody, 503: UnhealthyBody },
      },
    },
    async (_request, reply) => {
      if (await answers(sql`select 1`.execute(options.db), options.timeoutMs))
        return { status: 'ok' as const };
      return reply.code(503).send({ status: 'unavailable' as const, failed: ['database' as const] });
    },
  );
}

/** Whether a check settles successfully within `timeoutMs`. */
async function answers(check: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([check.then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
